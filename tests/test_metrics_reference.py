"""docs/metrics.md is generated from the code (tests/tools/metrics_reference.py) and lists
every family of the ``--serve-metrics`` endpoint and of both textfiles: a renamed, added or
dropped metric, label or help text fails here until the reference is regenerated."""

from __future__ import annotations

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))

import metrics_reference

REGENERATE = "python tests/tools/metrics_reference.py --write"


@pytest.fixture(scope="module")
def generated() -> str:
    return metrics_reference.generate()


def test_the_committed_reference_is_the_generated_one(generated):
    assert os.path.exists(metrics_reference.DOC), f"docs/metrics.md is missing: run `{REGENERATE}`"
    with open(metrics_reference.DOC, encoding="utf-8") as f:
        committed = f.read()
    assert committed == generated, f"docs/metrics.md is out of date with the code: run `{REGENERATE}`"


def _documented(text: str, heading: str) -> set[str]:
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `(accelgui_\w+)` \|", section, re.M))


def test_every_family_of_every_source_is_documented(generated):
    report = metrics_reference._report()
    sources = {
        "## The `--serve-metrics` endpoint": metrics_reference.endpoint_families(report=report),
        "## The inventory textfile": metrics_reference.textfile_families("inventory", report),
        "## The benchmark textfile": metrics_reference.textfile_families("benchmark", report),
    }
    for heading, fams in sources.items():
        names = {f["name"] for f in fams}
        assert names and _documented(generated, heading) == names, heading
    bench = {f["name"] for f in sources["## The benchmark textfile"]}
    inventory = {f["name"] for f in sources["## The inventory textfile"]}
    assert not bench & inventory and all(n.startswith("accelgui_benchmark_") for n in bench)
    assert {"accelgui_build_info", "accelgui_host_info", "accelgui_devices", "accelgui_device_info",
            "accelgui_report_timestamp_seconds"} <= inventory
    assert "accelgui_benchmark_timestamp_seconds" in bench


def test_documented_names_are_in_base_units(generated):
    names = set(re.findall(r"^\| `(accelgui_\w+)` \|", generated, re.M))
    assert names
    bad = [n for n in names if re.search(r"_(gbps|gflops|tflops|ns|us|ms|mhz|ghz|kb|mb|gb|kib|mib|gib|percent|pct)"
                                         r"(_|$)", n)]
    assert not bad, bad
    assert "accelgui_info" not in names and "accelgui_benchmark_headline_value" not in names
