"""One validation path: the RULE schema comes from the operator registry, every schema is checked
through accelgui.validation, and the headless probe imports no validator."""

import copy
import json
import os
import subprocess
import sys

import pytest

from accelgui import rules, validation
from accelgui.knowledge import check_route, load_knowledge

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tools"))
import sync_rule_schema  # noqa: E402

MACHINE = os.path.join(HERE, "fixtures", "machines", "acc-amd-mi300x")


def test_the_route_schema_states_what_the_registry_knows():
    with open(sync_rule_schema.SCHEMA, encoding="utf-8") as f:
        text = f.read()
    assert sync_rule_schema.stale(text) == [], "run python tests/tools/sync_rule_schema.py"
    assert set(json.loads(text)["$defs"]["rule"]["properties"]) == set(rules.OPERATORS) | {"min"}
    assert set(json.loads(text)["$defs"]["deviceFilter"]["properties"]) == set(rules.DEVICE_FILTERS)


@pytest.fixture
def made_up_operator():
    """An operator registered the way rules.py registers its own (and removed afterwards)."""
    @rules._op("gpu_count_min", {"type": "integer", "minimum": 1})
    def _o_gpu_count(arg, report, lang):
        gpus = [d for d in report.get("devices") or [] if d.get("kind") == "gpu"]
        return len(gpus) >= arg, [rules.Fact(f"{len(gpus)} GPUs")]

    rules._rule_validator.cache_clear()
    yield "gpu_count_min"
    del rules._OPS["gpu_count_min"]
    rules._rule_validator.cache_clear()


def test_a_new_operator_is_one_registration(made_up_operator):
    report = {"devices": [{"kind": "gpu"}, {"kind": "gpu"}]}
    assert rules.evaluate({made_up_operator: 2}, report) == (True, ["2 GPUs"])
    assert rules.evaluate({"not": {made_up_operator: 3}}, report)[0] is True
    with pytest.raises(rules.KnowledgeRuleError, match=r"rule\.gpu_count_min: must be at least 1"):
        rules.validate({made_up_operator: 0})
    # the route schema, written from the registry, accepts a route file that uses it
    with open(sync_rule_schema.SCHEMA, encoding="utf-8") as f:
        schema = json.loads(sync_rule_schema.synced(f.read()))
    route = copy.deepcopy(load_knowledge().routes["gpu"])
    route["requirements"][0]["rule"] = {"all": [{made_up_operator: 2}, {"os": "Linux"}]}
    assert list(validation.validator_for(schema).iter_errors(route)) == []
    assert any("rule.all[0].gpu_count_min: unknown field" in p for p in check_route(route, "r.json"))


@pytest.mark.parametrize("rule,message", [
    ({"arch": "x86_64", "os": "Linux"}, "rule: allows at most 1 field, has arch, os"),
    ({"metric": "benchmarks.cpu.stream.triad_gbps"}, "rule.min: missing"),
    ({"min": 3}, "rule.metric: missing"),
    ({"device": {"kind": "gpu", "colour": "red"}}, "rule.device.colour: unknown field"),
    ({"device": {"kind": "quantum"}}, "rule.device.kind: 'quantum' is not one of gpu, npu"),
    ({"cloud": "yes"}, "rule.cloud: must be true or false (got a string)"),
    ({"any": [{"os": "Linux"}, {"packages_any": ["torch", "torch"]}]},
     "rule.any[1].packages_any[1]: 'torch' is listed twice"),
    ({"all": []}, "rule.all: needs at least 1 item, has 0"),
])
def test_rule_problems_name_the_field_in_plain_words(rule, message):
    with pytest.raises(rules.KnowledgeRuleError) as exc:
        rules.validate(rule)
    assert message in str(exc.value)


def test_an_unchecked_rule_is_checked_before_it_is_evaluated():
    with pytest.raises(rules.KnowledgeRuleError, match="rule.toolkits_any: must be a list"):
        rules.evaluate({"toolkits_any": "rocm"}, {})


def test_route_problems_are_listed_by_field():
    route = copy.deepcopy(load_knowledge().routes["cpu"])
    del route["title"]["zh"]
    route["steps"] += [copy.deepcopy(route["steps"][-1]) for _ in range(12 - len(route["steps"]))]
    for i, step in enumerate(route["steps"]):
        step["id"] = f"cpu.step-{i}"
    route["steps"][10]["hours"] = 0
    route["steps"][2]["level"] = "expert"
    problems = check_route(route, "x.json")
    assert problems == [
        "x.json: steps[2].level: 'expert' is not one of beginner, intermediate, advanced",
        "x.json: steps[10].hours: must be more than 0 (got 0)",
        "x.json: title.zh: missing",
    ], problems


def test_the_probe_and_the_advice_import_no_validator():
    """``accelgui --probe`` (which advises too) as a person runs it: -X importtime lists every
    module it imported, and no validator is among them."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "accelgui", "--probe",
                          "--sysroot", MACHINE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and json.loads(out.stdout)["routes"], out.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    assert "accelgui.advisor" in imported
    assert not {m for m in imported if m.split(".")[0] in ("jsonschema", "referencing", "fastjsonschema")}


def test_contract_numbers_are_defined_once():
    import re

    from accelgui import BENCHMARK_CONTRACT, SCHEMA_VERSION, benchmarks
    from accelgui.report import schema

    pattern = schema()["properties"]["schema_version"]["pattern"]
    major = int(SCHEMA_VERSION.split(".")[0])
    assert re.search(pattern, SCHEMA_VERSION) and not re.search(pattern, f"{major + 1}.0")
    assert benchmarks.CONTRACT == BENCHMARK_CONTRACT
    with open(os.path.join(HERE, "..", "probes", "kernels", "__main__.py"), encoding="utf-8") as f:
        child = f.read()
    assert '"contract": BENCHMARK_CONTRACT' in child and not re.search(r'"contract": \d', child)


def test_a_reader_changing_its_benchmark_section_changes_nothing_for_the_next():
    """A checked section is remembered, so the same content is not checked twice; but each
    reader gets one of its own (the history drops build paths from the one it stores)."""
    from accelgui import benchmarks

    with open(os.path.join(HERE, "fixtures", "reports", "rich.json"), encoding="utf-8") as f:
        section = json.load(f)["benchmarks"]
    first = benchmarks.check(copy.deepcopy(section))
    assert "jit" in first
    first.pop("jit")
    first["cpu"].clear()
    again = benchmarks.check(copy.deepcopy(section))
    assert "jit" in again and again["cpu"] and again is not first
    assert benchmarks.check(again) is again          # a checked section passed back: as it is
