"""docs/report-contract.md names every property of the shipped report schema.

A property added to accelgui/report.schema.json without a line in the contract page fails here.
"""

import json
import re
from pathlib import Path

import pytest

from accelgui.data import read_bytes

DOC = Path(__file__).resolve().parent.parent / "docs" / "report-contract.md"

# (label, path of JSON keys from the schema root to an object schema with "properties")
SECTIONS = [
    ("top level", ()),
    ("platform", ("properties", "platform")),
    ("cpu", ("properties", "cpu")),
    ("memory", ("properties", "memory")),
    ("software", ("properties", "software")),
    ("software.environments[]", ("properties", "software", "properties", "environments", "items")),
    ("devices[]", ("$defs", "device")),
    ("devices[].details", ("$defs", "device", "properties", "details")),
    ("routes[]", ("properties", "routes", "items")),
    ("probes[]", ("properties", "probes", "items")),
    ("probes[].warnings[]", ("properties", "probes", "items", "properties", "warnings", "items")),
    ("estimates", ("$defs", "estimates")),
    ("estimates.devices[]", ("$defs", "estimate_device")),
]


def _schema() -> dict:
    return json.loads(read_bytes("accelgui", "report.schema.json"))


def _code_spans() -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", DOC.read_text(encoding="utf-8")))


def _properties(schema: dict, path: tuple) -> list[str]:
    node = schema
    for key in path:
        node = node[key]
    return sorted(node["properties"])


@pytest.mark.parametrize("label,path", SECTIONS, ids=[s[0] for s in SECTIONS])
def test_every_schema_property_is_documented(label, path):
    names = _properties(_schema(), path)
    assert names, f"{label}: no properties found at {path} (schema layout changed?)"
    spans = _code_spans()
    missing = [n for n in names if n not in spans]
    assert not missing, f"docs/report-contract.md does not name these {label} properties as `code`: {missing}"


def test_the_check_can_fail():
    spans = _code_spans()
    assert "schema_version" in spans
    assert "no_such_property_xyz" not in spans
