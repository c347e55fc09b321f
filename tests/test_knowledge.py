"""The knowledge base: shipped route files, the loader, overrides and ``accelgui --routes``."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import accelgui.knowledge as knowledge
from accelgui import rules
from accelgui.knowledge import EXPECTED_ROUTE_IDS, check_route, find_cycle, load_knowledge, tr
from accelgui.routes_cli import print_routes

jsonschema = pytest.importorskip("jsonschema")

PKG = resources.files("accelgui.knowledge")
ROUTE_FILES = sorted((e for e in (PKG / "routes").iterdir() if e.name.endswith(".json")),
                     key=lambda e: e.name)
CJK = re.compile(r"[\u4e00-\u9fff]")
LEVELS = ("beginner", "intermediate", "advanced")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    monkeypatch.delenv("ACCELGUI_KNOWLEDGE_DIR", raising=False)
    knowledge.clear_cache()
    yield
    knowledge.clear_cache()


@pytest.fixture(scope="module")
def schema():
    data = json.loads((PKG / "schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(data)
    return data


@pytest.fixture(scope="module")
def validator(schema):
    return jsonschema.Draft202012Validator(schema)


def _load(entry) -> dict:
    return json.loads(entry.read_text(encoding="utf-8"))


def _shipped() -> dict:
    return {e.name[:-5]: _load(e) for e in ROUTE_FILES}


def _texts(obj, path="$", skip=()):
    """Yield (path, {"en","zh"}) for every bilingual object below obj."""
    if isinstance(obj, dict):
        if set(obj) >= {"en"} and set(obj) <= {"en", "zh"} and all(
                isinstance(v, str) for v in obj.values()):
            yield path, obj
            return
        for k, v in obj.items():
            if k not in skip:
                yield from _texts(v, f"{path}.{k}", skip)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _texts(v, f"{path}[{i}]", skip)


# --------------------------------------------------------------------------- shipped data

def test_schema_is_a_valid_draft_2020_12_schema(schema):
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize("entry", ROUTE_FILES, ids=lambda e: e.name)
def test_shipped_route_file_validates_against_schema(entry, validator):
    data = _load(entry)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(
        f"{entry.name}: {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])
    assert data["id"] == entry.name[:-5], "file name must be <id>.json"


@pytest.mark.parametrize("entry", ROUTE_FILES, ids=lambda e: e.name)
def test_shipped_route_passes_the_loaders_own_check(entry):
    # ids start with the route id, needs name requirements of the route, tools are listed
    assert check_route(_load(entry), entry.name, expected_id=entry.name[:-5]) == []


def test_all_thirteen_routes_are_shipped_and_load():
    kb = load_knowledge()
    assert kb.errors == []
    assert set(EXPECTED_ROUTE_IDS) <= set(kb.routes), \
        f"missing routes: {sorted(set(EXPECTED_ROUTE_IDS) - set(kb.routes))}"
    orders = [r["order"] for r in kb.routes.values()]
    assert orders == sorted(orders), "routes are ordered by 'order'"


@pytest.mark.parametrize("rid", EXPECTED_ROUTE_IDS)
def test_route_has_six_or_more_steps_from_beginner_to_advanced(rid):
    route = load_knowledge().routes.get(rid)
    if route is None:
        pytest.fail(f"route {rid} is missing")
    steps = route["steps"]
    assert len(steps) >= 6
    ranks = [LEVELS.index(s["level"]) for s in steps]
    assert ranks == sorted(ranks), f"{rid}: steps must go from beginner to advanced: {ranks}"
    assert ranks[0] == 0 and ranks[-1] == 2, f"{rid}: starts at beginner and ends at advanced"
    for s in steps:
        assert 1 <= len(s["resources"]) <= 8
        assert all(r["url"].startswith("https://") for r in s["resources"])
        assert len({r["url"] for r in s["resources"]}) == len(s["resources"]), s["id"]


def test_prerequisites_exist_come_earlier_and_have_no_cycles():
    kb = load_knowledge()
    for sid, step in kb.steps.items():
        for pre in step["prerequisites"]:
            assert pre in kb.steps, f"{sid}: unknown prerequisite {pre}"
            assert pre != sid
            if kb.steps[pre]["route"] == step["route"]:
                ids = [s["id"] for s in kb.routes[step["route"]]["steps"]]
                assert ids.index(pre) < ids.index(sid), f"{sid}: prerequisite {pre} comes later"
    assert find_cycle(kb.routes) is None


def test_find_cycle_reports_a_cycle_across_routes():
    routes = {"a": {"steps": [{"id": "a.one", "prerequisites": ["b.one"]}]},
              "b": {"steps": [{"id": "b.one", "prerequisites": ["a.one"]}]}}
    cycle = find_cycle(routes)
    assert cycle is not None and cycle[0] == cycle[-1] and set(cycle) == {"a.one", "b.one"}


@pytest.mark.parametrize("entry", ROUTE_FILES, ids=lambda e: e.name)
def test_every_string_is_in_english_and_simplified_chinese(entry):
    data = _load(entry)
    found = list(_texts(data))
    assert len(found) > 20
    for path, text in found:
        assert text.get("en", "").strip(), f"{entry.name} {path}: en missing"
        assert text.get("zh", "").strip(), f"{entry.name} {path}: zh missing"
        assert CJK.search(text["zh"]), f"{entry.name} {path}: zh has no Chinese: {text['zh']!r}"
        assert not CJK.search(text["en"]), f"{entry.name} {path}: en contains Chinese"


def test_facts_are_dated_and_sourced():
    kb = load_knowledge()
    for _rid, route in kb.routes.items():
        for fact in route["facts"]:
            assert re.match(r"^\d{4}-\d{2}", fact["as_of"]) and fact["source"].startswith("https://")
    facts = json.loads((PKG / "facts.json").read_text(encoding="utf-8"))
    assert kb.facts == facts
    for name in ("nvidia_compute_capability", "rocm_gfx_targets", "tpu_generations",
                 "coral_edge_tpu", "npu_tops"):
        table = facts[name]
        assert re.match(r"^\d{4}-\d{2}(-\d{2})?$", table["as_of"]), name
        sources = table["source"] if isinstance(table["source"], list) else [table["source"]]
        assert sources and all(s.startswith("https://") for s in sources), name
        assert table["rows"], name
    for row in facts["npu_tops"]["rows"]:
        assert row["source"].startswith("https://") and row["peak_int8_tops"] > 0
    gens = [r["generation"] for r in facts["tpu_generations"]["rows"]]
    assert gens == ["v2", "v3", "v4", "v5e", "v5p", "v6e", "tpu7x"]
    ccs = {r["compute_capability"]: r for r in facts["nvidia_compute_capability"]["rows"]}
    assert not ccs[7.0]["cuda13"] and ccs[7.5]["cuda13"] and ccs[8.0]["bf16"] and ccs[8.9]["fp8"]
    usb = {r.get("usb_id") for r in facts["coral_edge_tpu"]["rows"]}
    assert {"1a6e:089a", "18d1:9302"} <= usb


# The errors of the two source articles (docs/knowledge.md) and where their correction lives.
SEED_ERRORS = {
    "SGX": "cpu", "TensorFlow Lite": "tpu", "MKL": "asic",
    "Falcon": None, "TPU-D": None, "OpenFEM": None, "Mistral": None, "A100": None,
    "Pascal": None, "AI-Zap": "software-acceleration",
}


@pytest.mark.parametrize("term,route", sorted(SEED_ERRORS.items()))
def test_seed_error_is_recorded_as_a_correction(term, route):
    kb = load_knowledge()
    where = [rid for rid, r in kb.routes.items()
             if any(term in c["said"]["en"] or term in c["said"]["zh"] for c in r["corrections"])]
    assert where, f"no correction records what the article said about {term}"
    if route:
        assert route in where, f"{term} should be corrected in the {route} route"


@pytest.mark.parametrize("phrase", ["TPU-D", "OpenFEM", "OpenAI Falcon", "SGX", "Edge Compute)",
                                    "TensorFlow Lite for FPGA", "\u79d2\u7ea7\u52a0\u901f", "AI-Zap", "AI-Tech"])
def test_seed_errors_are_not_repeated_outside_corrections(phrase):
    for entry in ROUTE_FILES:
        for path, text in _texts(_load(entry), skip=("corrections",)):
            assert phrase not in text["en"] and phrase not in text["zh"], \
                f"{entry.name} {path} repeats '{phrase}'"


def test_rules_are_understood_by_the_evaluator():
    for _rid, route in load_knowledge().routes.items():
        for req in route["requirements"]:
            rules.validate(req["rule"])  # raises KnowledgeRuleError on an unknown operator


def test_pyproject_ships_the_knowledge_files():
    tomllib = pytest.importorskip("tomllib")
    import fnmatch

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = cfg["tool"]["setuptools"]["package-data"]["accelgui.knowledge"]
    files = ["schema.json", "facts.json"] + [f"routes/{e.name}" for e in ROUTE_FILES]
    for name in files:
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} not in package data"
    assert cfg["tool"]["setuptools"]["package-dir"]["accelgui.knowledge"] == "knowledge"


# --------------------------------------------------------------------------- expert statuses

def _status(route: dict, report: dict) -> str:
    """Route status from its requirements, as the README's "How the advisor decides" defines
    it (independent of advisor.py): hardware missing -> remote/unavailable; the hardware here
    but not usable now, or something to install -> partial ("needs setup"); other hardware
    that only optional steps need (a recommended device) leaves the verdict alone."""
    missing, setup = [], False
    for req in route["requirements"]:
        value, facts = rules.evaluate(req["rule"], report)
        required = req["level"] == "required"
        if value is True:
            setup = setup or (required and bool(rules.unusable_devices(facts)))
        elif value is False:
            installable = any(getattr(f, "setup", False) for f in facts)
            if required and not installable:
                missing.append(req)
            setup = setup or installable
    if missing:
        return "unavailable" if any(r["fallback"] == "none" for r in missing) else "remote"
    return "partial" if setup else "ready"


def _report(arch="x86_64", features=("avx2", "fma"), cpus=8, mem_gib=16, devices=(),
            packages=None, cloud=None, os_name="Linux"):
    return {
        "platform": {"os": os_name, "machine": arch, "cloud": cloud, "container": None},
        "cpu": {"arch": arch, "features": list(features), "flags": [], "logical_cpus": cpus},
        "memory": {"total_bytes": int(mem_gib * 2**30)},
        "devices": [dict(d) for d in devices],
        "software": {"packages": dict(packages or {"numpy": "2.1.0"}), "toolkits": {},
                     "providers": []},
    }


def _dev(kind, vendor, readiness="ready", integrated=False, bus="pci", **details):
    return {"kind": kind, "vendor": vendor, "name": f"{vendor} {kind}", "bus": bus,
            "integrated": integrated, "readiness": readiness, "details": details}


OFFICE_PC = _report(devices=[_dev("gpu", "intel", integrated=True)])
MACHINES = {
    "office-pc": (OFFICE_PC, {"cpu": "ready", "gpu": "remote", "tpu": "remote",
                              "fpga": "remote", "asic": "remote", "edge": "remote",
                              "cloud": "ready"}),
    "rtx4090": (_report(devices=[_dev("gpu", "nvidia", compute_capability=8.9)],
                        packages={"numpy": "2", "torch": "2.9"}), {"gpu": "ready"}),
    "gtx1080-pascal": (_report(devices=[_dev("gpu", "nvidia", compute_capability=6.1)],
                               packages={"numpy": "2", "torch": "2.7"}), {"gpu": "ready"}),
    "k80-kepler": (_report(devices=[_dev("gpu", "nvidia", compute_capability=3.7)]),
                   {"gpu": "remote"}),
    "mi300x-no-driver": (_report(devices=[_dev("gpu", "amd", readiness="driver-missing",
                                               gfx_target="gfx942")]), {"gpu": "partial"}),
    "tpu-vm": (_report(devices=[_dev("tpu", "google")] * 4, packages={"jax": "0.8"},
                       cloud={"provider": "gcp", "instance_type": "ct6e-standard-4t"}),
               {"tpu": "ready", "cloud": "ready", "edge": "remote"}),
    "laptop-coral-usb": (_report(devices=[_dev("tpu", "google", bus="usb")],
                                 packages={"numpy": "2", "tflite-runtime": "2.14"}),
                         {"tpu": "remote", "edge": "ready"}),
    "core-ultra-npu": (_report(devices=[_dev("npu", "intel", integrated=True)],
                               packages={"openvino": "2025.3"}), {"edge": "ready"}),
    "raspberry-pi-5": (_report(arch="aarch64", features=("neon", "asimd"), cpus=4, mem_gib=7.8,
                               packages={"numpy": "2", "onnxruntime": "1.23"}),
                       {"edge": "ready", "cpu": "ready", "asic": "remote", "gpu": "remote"}),
    "jetson-orin": (_report(arch="aarch64", features=("neon",), cpus=6,
                            devices=[_dev("gpu", "nvidia", integrated=True, bus="platform",
                                          compute_capability=8.7)],
                            packages={"torch": "2.5", "onnxruntime-gpu": "1.20"}),
                    {"edge": "ready", "gpu": "ready"}),
    "alveo-server": (_report(mem_gib=64, devices=[_dev("fpga", "xilinx")]), {"fpga": "ready"}),
    "small-vm": (_report(cpus=2, mem_gib=3.8, features=("sse4_2",)),
                 {"cpu": "ready", "asic": "remote", "cloud": "ready"}),
}


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_route_status_is_what_a_mentor_would_say(machine):
    report, expected = MACHINES[machine]
    kb = load_knowledge()
    got = {rid: _status(kb.routes[rid], report) for rid in expected}
    assert got == expected


# --------------------------------------------------------------------------- overrides

def _write(dirpath: Path, name: str, data) -> Path:
    path = dirpath / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False),
                    encoding="utf-8")
    return path


def _new_route(rid="quantum", order=50, prereq="cpu.know-your-cpu") -> dict:
    t = {"en": "Text", "zh": "\u6587\u672c"}
    steps = []
    for i, level in enumerate(["beginner"] * 2 + ["intermediate"] * 2 + ["advanced"] * 2):
        steps.append({
            "id": f"{rid}.s{i}", "level": level, "title": {"en": f"Step {i}", "zh": f"\u7b2c {i} \u6b65"},
            "summary": t, "hours": 2, "prerequisites": [prereq] if i == 0 else [f"{rid}.s{i-1}"],
            "needs": [], "tools": ["Qiskit"], "verify": t,
            "resources": [{"title": "Docs", "url": "https://example.org/docs", "kind": "docs",
                           "checked": "2026-11-29"}]})
    return {"id": rid, "order": order, "title": {"en": "Quantum", "zh": "\u91cf\u5b50\u8ba1\u7b97"},
            "summary": t, "scenarios": [t],
            "tools": [{"name": "Qiskit", "url": "https://example.org", "checked": "2026-11-29"}],
            "requirements": [{"id": f"{rid}.any", "level": "required", "label": t,
                              "rule": {"arch": ["x86_64", "aarch64"]}, "fallback": "cloud",
                              "fix": t}],
            "steps": steps, "corrections": [], "facts": []}


def test_override_adds_a_route(tmp_path):
    _write(tmp_path, "quantum.json", _new_route())
    kb = load_knowledge(tmp_path)
    assert kb.errors == []
    assert "quantum" in kb.routes and list(kb.routes)[-1] == "quantum"
    assert kb.steps["quantum.s0"]["route"] == "quantum"
    assert kb.origins["quantum"] == str(tmp_path / "quantum.json")
    assert set(EXPECTED_ROUTE_IDS) <= set(kb.routes)


def test_override_replaces_a_shipped_route(tmp_path):
    gpu = _shipped()["gpu"]
    gpu["title"]["en"] = "GPU computing (our lab's version)"
    _write(tmp_path, "my-gpu.json", gpu)
    kb = load_knowledge(tmp_path)
    assert kb.errors == []
    assert kb.routes["gpu"]["title"]["en"] == "GPU computing (our lab's version)"
    assert kb.origins["gpu"].endswith("my-gpu.json")


def test_environment_variable_names_the_override_dir(tmp_path, monkeypatch):
    _write(tmp_path, "quantum.json", _new_route())
    monkeypatch.setenv("ACCELGUI_KNOWLEDGE_DIR", str(tmp_path))
    assert "quantum" in load_knowledge().routes
    monkeypatch.delenv("ACCELGUI_KNOWLEDGE_DIR")
    assert "quantum" not in load_knowledge().routes


def test_broken_json_override_is_reported_and_shipped_routes_still_load(tmp_path):
    _write(tmp_path, "gpu.json", '{"id": "gpu", "title": ')
    kb = load_knowledge(tmp_path)
    assert len(kb.errors) == 1
    assert kb.errors[0].startswith("gpu.json: line 1 column")
    assert "invalid JSON" in kb.errors[0]
    assert kb.origins["gpu"] == "shipped"
    assert set(EXPECTED_ROUTE_IDS) <= set(kb.routes)


def test_missing_chinese_text_names_the_file_and_field_and_keeps_the_shipped_route(tmp_path):
    gpu = _shipped()["gpu"]
    shipped_title = gpu["steps"][2]["title"]["en"]
    del gpu["steps"][2]["title"]["zh"]
    gpu["steps"][2]["title"]["en"] = "changed"
    _write(tmp_path, "myroute.json", gpu)
    kb = load_knowledge(tmp_path)
    assert any(e.startswith("myroute.json: steps[2].title.zh: missing") for e in kb.errors), kb.errors
    assert "shipped route 'gpu' kept" in kb.errors[-1]
    assert kb.routes["gpu"]["steps"][2]["title"]["en"] == shipped_title
    assert kb.origins["gpu"] == "shipped"


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d["requirements"][0].__setitem__("rule", {"device": {"colour": "red"}}),
     "requirements[0].rule.device.colour"),
    (lambda d: d["requirements"][0].__setitem__("rule", {"gpu": True}), "requirements[0].rule.gpu"),
    (lambda d: d["steps"][0].__setitem__("id", "other.step"), "steps[0].id"),
    (lambda d: d["steps"][1]["resources"].extend(d["steps"][1]["resources"] * 9),
     "steps[1].resources"),
    (lambda d: d["steps"][3]["resources"][0].__setitem__("checked", "29/11/2026"),
     "steps[3].resources[0].checked"),
    (lambda d: d.__setitem__("steps", d["steps"][:5]), "steps"),
    (lambda d: d["steps"][0].__setitem__("needs", ["gpu.nonexistent"]), "steps[0].needs[0]"),
    (lambda d: d.__setitem__("colour", "red"), "colour"),
    (lambda d: d["steps"][2].__setitem__("goals", ["train", "fly"]), "steps[2].goals[1]"),
    (lambda d: d["steps"][2].__setitem__("goals", ["train", "train"]), "steps[2].goals[1]"),
    (lambda d: d["steps"][2].__setitem__("goals", []), "steps[2].goals"),
    (lambda d: d["steps"][2].__setitem__("goals", "train"), "steps[2].goals"),
    (lambda d: d["steps"][0].__setitem__("sets_up", "yes"), "steps[0].sets_up"),
])
def test_light_check_names_the_field_and_agrees_with_the_schema(mutate, field, validator):
    gpu = _shipped()["gpu"]
    mutate(gpu)
    problems = check_route(gpu, "bad.json")
    assert any(p.startswith(f"bad.json: {field}:") for p in problems), problems
    if field not in ("steps[0].needs[0]", "steps[0].id"):  # cross-references: not in the schema
        assert not validator.is_valid(gpu)


def test_light_check_rejects_what_the_schema_rejects(validator):
    base = _shipped()["cpu"]
    mutations = [
        lambda d: d["title"].pop("zh"), lambda d: d["title"].__setitem__("zh", " "),
        lambda d: d.pop("facts"), lambda d: d["steps"][0].__setitem__("hours", 0),
        lambda d: d["steps"][0].__setitem__("level", "expert"),
        lambda d: d["tools"][0].__setitem__("url", "http://insecure.example"),
        lambda d: d["requirements"][0].__setitem__("fallback", "maybe"),
        lambda d: d["requirements"][0].__setitem__("rule", {"all": []}),
        lambda d: d["requirements"][0].__setitem__("rule", {"metric": "triad", "min": 1}),
        lambda d: d["steps"][0]["resources"][0].__setitem__("kind", "blog"),
        lambda d: d["steps"][0]["resources"].clear(),
        lambda d: d.__setitem__("order", 0),
    ]
    for i, mutate in enumerate(mutations):
        doc = copy.deepcopy(base)
        mutate(doc)
        assert not validator.is_valid(doc), i
        assert check_route(doc, "x.json"), f"mutation {i} passed the light check"


def test_override_with_unknown_prerequisite_or_cycle_is_ignored(tmp_path):
    _write(tmp_path, "a.json", _new_route("aaa", prereq="nowhere.step"))
    cyc = _new_route("bbb")
    cyc["steps"][0]["prerequisites"] = ["bbb.s5"]
    _write(tmp_path, "b.json", cyc)
    kb = load_knowledge(tmp_path)
    assert "aaa" not in kb.routes and "bbb" not in kb.routes
    assert any(e.startswith("a.json: steps[0].prerequisites: unknown step id nowhere.step")
               for e in kb.errors), kb.errors
    assert any(e.startswith("b.json: steps.prerequisites: cycle") for e in kb.errors), kb.errors
    assert find_cycle(kb.routes) is None


def test_missing_override_dir_is_an_error_not_a_crash(tmp_path):
    kb = load_knowledge(tmp_path / "nope")
    assert kb.errors and "not found" in kb.errors[0]
    assert set(EXPECTED_ROUTE_IDS) <= set(kb.routes)


def test_load_is_cached_per_directory(tmp_path):
    assert load_knowledge() is load_knowledge()
    assert load_knowledge(tmp_path) is not load_knowledge()


def test_tr_falls_back_to_english():
    assert tr({"en": "GPU", "zh": "\u56fe\u5f62\u5904\u7406\u5668"}, "zh") == "\u56fe\u5f62\u5904\u7406\u5668"
    assert tr({"en": "GPU"}, "zh") == "GPU"
    assert tr("plain", "zh") == "plain" and tr(None, "en") == ""


# --------------------------------------------------------------------------- --routes

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_print_routes_json_resolves_every_text_to_one_language(lang):
    import io

    buf = io.StringIO()
    assert print_routes(lang, "json", None, buf) == 0
    doc = json.loads(buf.getvalue())
    assert doc["lang"] == lang and doc["errors"] == []
    assert {r["id"] for r in doc["routes"]} >= set(EXPECTED_ROUTE_IDS)
    for route in doc["routes"]:
        assert isinstance(route["title"], str) and isinstance(route["summary"], str)
        assert bool(CJK.search(route["title"])) == (lang == "zh"), route["title"]
        assert len(route["steps"]) >= 6
        for step in route["steps"]:
            assert isinstance(step["title"], str) and isinstance(step["verify"], str)
            assert step["resources"] and all(isinstance(r["title"], str) for r in step["resources"])
        for req in route["requirements"]:
            assert isinstance(req["label"], str) and isinstance(req["rule"], dict)


def test_print_routes_text_lists_routes_and_steps():
    import io

    buf = io.StringIO()
    assert print_routes("zh", "text", None, buf) == 0
    text = buf.getvalue()
    assert "\u5b66\u4e60\u8def\u7ebf" in text and "[gpu.setup-check]" in text and "\u81ea\u68c0" in text
    assert text.count("https://") > 100


def test_print_routes_reports_a_broken_override_but_prints_the_catalogue(tmp_path):
    import io

    _write(tmp_path, "gpu.json", "{ not json")
    buf = io.StringIO()
    assert print_routes("en", "json", str(tmp_path), buf) == 1
    doc = json.loads(buf.getvalue())
    assert doc["errors"] and doc["errors"][0].startswith("gpu.json:")
    assert {r["id"] for r in doc["routes"]} >= set(EXPECTED_ROUTE_IDS)


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=120, env=env)


def test_cli_help_offers_routes():
    proc = _cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert "--routes" in proc.stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_routes_json_in_both_languages(lang):
    proc = _cli("--routes", "--format", "json", "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["lang"] == lang and doc["errors"] == []
    routes = {r["id"]: r for r in doc["routes"]}
    assert set(EXPECTED_ROUTE_IDS) <= set(routes)
    assert all(len(r["steps"]) >= 6 for r in routes.values())
    if lang == "zh":
        assert routes["gpu"]["title"] == "GPU \u8ba1\u7b97"


def test_cli_routes_with_broken_knowledge_dir_names_the_file(tmp_path):
    gpu = _shipped()["gpu"]
    del gpu["summary"]["zh"]
    _write(tmp_path, "lab.json", gpu)
    proc = _cli("--routes", "--format", "json", "--knowledge", str(tmp_path))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert any(e.startswith("lab.json: summary.zh: missing") for e in doc["errors"])
    assert len(doc["routes"]) >= len(EXPECTED_ROUTE_IDS)
