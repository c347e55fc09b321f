"""Every hardware table under probes/data has its JSON Schema beside it, and fits it (the four a
site may extend are also checked when merged: tests/test_contributing_recipes.py)."""

import json
from pathlib import Path

import jsonschema
import pytest

DATA = Path(__file__).resolve().parents[1] / "probes" / "data"
TABLES = sorted(p for p in DATA.glob("*.json") if not p.name.endswith(".schema.json"))


def test_the_tables_are_found():
    assert {"vendors.json", "accelerators.json", "cpu_parts.json"} <= {p.name for p in TABLES}


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.name)
def test_a_table_fits_the_schema_beside_it(table):
    schema_path = table.with_name(table.name[:-len(".json")] + ".schema.json")
    assert schema_path.is_file(), f"{table.name} has no schema beside it"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = [f"{e.json_path}: {e.message[:200]}"
              for e in jsonschema.Draft202012Validator(schema).iter_errors(json.loads(table.read_text(encoding="utf-8")))]
    assert errors == []


def test_a_schema_refuses_a_misspelt_field():
    """The schemas close their objects, so a typo in a new entry is an error, not ignored."""
    schema = json.loads((DATA / "accelerators.schema.json").read_text(encoding="utf-8"))
    table = json.loads((DATA / "accelerators.json").read_text(encoding="utf-8"))
    table["devices"]["1fff:0001"] = {"kind": "npu", "nmae": "Zephyr N1"}
    assert any("nmae" in e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(table))
