"""Dated facts (expiry, rule/fact agreement), ``accelgui --facts``, step checks and ``--verify``."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
import subprocess
import sys
from importlib import resources

import pytest

import accelgui.knowledge as knowledge
from accelgui import progress, verify
from accelgui.facts_cli import facts_document, print_facts
from accelgui.knowledge import facts as kfacts
from accelgui.knowledge import load_knowledge

PKG = resources.files("accelgui.knowledge")
# A fixed clock: the day the knowledge base was last reviewed. No test depends on today's date;
# what is past its horizon *today* is a command of its own (accelgui --links --stale).
TODAY = dt.date(2026, 12, 2)


@pytest.fixture(autouse=True)
def _fresh(monkeypatch, tmp_path):
    monkeypatch.delenv("ACCELGUI_KNOWLEDGE_DIR", raising=False)
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    knowledge.clear_cache()
    yield
    knowledge.clear_cache()


def _facts() -> dict:
    return json.loads((PKG / "facts.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- expiry

def test_no_fact_is_past_its_review_horizon_on_the_review_day():
    assert kfacts.expired(TODAY) == []


def test_every_table_and_row_is_dated_sourced_and_has_a_horizon():
    for tid, table in _facts().items():
        for where, obj in [(tid, table)] + [(f"{tid}[{i}]", r) for i, r in enumerate(table["rows"])]:
            assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", obj["as_of"]), where   # the source's date
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", obj["review_by"]), where
            assert obj["review_by"] > obj["as_of"], where
            sources = obj["source"] if isinstance(obj["source"], list) else [obj["source"]]
            assert sources and all(s.startswith("https://") for s in sources), where


def test_a_fact_past_its_horizon_is_reported():
    kb = load_knowledge()
    facts = json.loads(json.dumps(kb.facts))
    facts["npu_tops"]["rows"][0]["review_by"] = "2020-01-01"
    problems = kfacts.expired(TODAY, facts=facts, routes=kb.routes)
    assert problems == ["facts.json npu_tops.rows[0]: past its review horizon (2020-01-01)"]
    routes = json.loads(json.dumps(kb.routes))
    first = routes["gpu"]["facts"][0]
    del first["review_by"]
    assert any(f"{first['id']}: review_by missing" in p
               for p in kfacts.expired(TODAY, facts=kb.facts, routes=routes))
    # and the horizon moves: two years from now, something will be due
    assert kfacts.expired(TODAY + dt.timedelta(days=800))


def test_review_horizon_adds_months():
    assert kfacts.review_horizon("2026-12-01") == "2027-12-01"
    assert kfacts.review_horizon("2025-11", 24) == "2027-11-01"
    with pytest.raises(ValueError):
        kfacts.review_horizon("soon")


# --------------------------------------------------------------------------- rules agree with facts

def _nvidia_cc_floors(rule) -> list[float]:
    """Every NVIDIA compute-capability threshold inside a RULE."""
    out = []
    if isinstance(rule, dict):
        dev = rule.get("device")
        if isinstance(dev, dict) and "nvidia" in (dev.get("vendor") if isinstance(dev.get("vendor"), list)
                                                   else [dev.get("vendor")]):
            cc = (dev.get("min") or {}).get("compute_capability")
            if cc is not None:
                out.append(float(cc))
            if dev.get("supported") is True:     # judged by the support rule, from the CUDA table
                from accelgui import rules

                out.append(rules.cuda_min_compute_capability())
        for value in rule.values():
            if isinstance(value, (dict, list)):
                out += _nvidia_cc_floors(value)
    elif isinstance(rule, list):
        for item in rule:
            out += _nvidia_cc_floors(item)
    return out


def _rows_with_rules():
    for tid, table in _facts().items():
        for row in table["rows"]:
            if row.get("applies_to"):
                yield tid, row


def test_some_facts_name_the_rules_they_govern():
    assert {rid for _, row in _rows_with_rules() for rid in row["applies_to"]} >= {
        "software-acceleration.gpu", "gpu.current-toolkit"}


@pytest.mark.parametrize("tid,row", list(_rows_with_rules()), ids=lambda v: v if isinstance(v, str) else
                         v.get("software") or v.get("toolkit"))
def test_requirement_thresholds_agree_with_the_facts(tid, row):
    kb = load_knowledge()
    for req_id in row["applies_to"]:
        req = kb.requirement(req_id)
        if req is None:
            pytest.skip(f"{req_id} is no longer a requirement; update applies_to in facts.json {tid}")
        floors = _nvidia_cc_floors(req["rule"])
        assert floors, f"{req_id} has no NVIDIA compute-capability threshold to compare"
        assert all(f == row["min_compute_capability"] for f in floors), \
            f"{req_id} uses {floors}, facts.json {tid} says {row['min_compute_capability']}"


def test_the_agreement_check_catches_a_disagreeing_threshold():
    rule = {"any": [{"device": {"kind": "gpu", "vendor": "nvidia", "min": {"compute_capability": 7.0}}}]}
    assert _nvidia_cc_floors(rule) == [7.0] != [7.5]


def test_route_texts_no_longer_carry_the_stale_items():
    text = "\n".join((PKG / "routes" / e.name).read_text(encoding="utf-8")
                     for e in (PKG / "routes").iterdir() if e.name.endswith(".json"))
    # rocm-smi only where the text says it is gone
    for m in re.finditer(r"rocm-smi", text):
        window = text[max(0, m.start() - 80): m.end() + 40]
        assert "no longer ships" in window or "\u4e0d\u518d\u9644\u5e26" in window, window
    assert "compute capability 7.0 or newer" not in text
    assert "ModelOpt AutoCast" in text and "TorchTPU" in text and "archived in October 2025" in text
    ccs = {r["compute_capability"] for r in _facts()["nvidia_compute_capability"]["rows"]}
    assert {10.3, 11.0, 12.1} <= ccs
    assert any("cu130" in r["toolkit"] for r in _facts()["cuda_toolkit_support"]["rows"])


# --------------------------------------------------------------------------- --facts

RTX = {"devices": [{"kind": "gpu", "vendor": "nvidia", "name": "NVIDIA GeForce RTX 4090",
                    "details": {"compute_capability": 8.9}}],
       "cpu": {"model_name": "AMD Ryzen 9 7950X"}}
TPU_VM = {"devices": [{"kind": "tpu", "vendor": "google", "name": "TPU v6e", "pci_id": "1ae0:006f",
                       "details": {}}], "cpu": {}}


def test_facts_document_marks_this_machines_rows():
    doc = facts_document(RTX, "en")
    tables = {t["id"]: t for t in doc["tables"]}
    assert set(tables) >= {"nvidia_compute_capability", "cuda_toolkit_support", "rocm_gfx_targets",
                           "tpu_generations", "npu_tops", "memory_bandwidth"}
    marked = [r["compute_capability"] for r in tables["nvidia_compute_capability"]["rows"] if r["this_machine"]]
    assert marked == [8.9]
    toolkits = {r["toolkit"]: r["this_machine"] for r in tables["cuda_toolkit_support"]["rows"]}
    assert toolkits["CUDA 13.x"] and toolkits["PyTorch 2.11 cu130 wheels"]
    assert not any(r["this_machine"] for r in tables["tpu_generations"]["rows"])
    tpu = {t["id"]: t for t in facts_document(TPU_VM, "en")["tables"]}
    assert [r["generation"] for r in tpu["tpu_generations"]["rows"] if r["this_machine"]] == ["v6e"]
    assert [r["device"] for r in tpu["memory_bandwidth"]["rows"] if r["this_machine"]] == [
        "Cloud TPU v6e (Trillium)"]


def test_facts_text_in_both_languages_is_dated_and_sourced():
    for lang, word in (("en", "as of"), ("zh", "\u622a\u81f3")):
        buf = io.StringIO()
        assert print_facts(RTX, lang, "text", None, buf) == 0
        text = buf.getvalue()
        assert word in text and text.count("https://") > 30
        assert re.search(r"^ \* .*8\.9", text, re.M), "the RTX 4090's row is marked"
    labels = facts_document(RTX, "zh", "nvidia_compute_capability")["tables"][0]["column_labels"]
    assert "\u8ba1\u7b97\u80fd\u529b" in labels     # compute capability


def test_unknown_table_is_an_error():
    with pytest.raises(KeyError):
        facts_document(RTX, "en", "no_such_table")


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True, text=True,
                          encoding="utf-8", timeout=300, env=env)


def test_cli_facts_json_and_usage_errors(tmp_path):
    report = tmp_path / "r.json"
    report.write_text(json.dumps(RTX), encoding="utf-8")
    proc = _cli("--facts", "nvidia_compute_capability", "--format", "json", "--lang", "zh",
                "--report", str(report))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["lang"] == "zh" and [t["id"] for t in doc["tables"]] == ["nvidia_compute_capability"]
    assert [r["compute_capability"] for r in doc["tables"][0]["rows"] if r["this_machine"]] == [8.9]
    proc = _cli("--facts", "bogus")
    assert proc.returncode == 2 and "unknown table" in proc.stderr


# --------------------------------------------------------------------------- checks and --verify

def test_steps_with_checks_are_many_and_well_formed():
    kb = load_knowledge()
    checked = [s for s in kb.steps.values() if verify.has_check(s)]
    assert len(checked) >= 25
    assert {"cpu.know-your-cpu", "cpu.numpy-vectorise", "gpu.setup-check"} <= {s["id"] for s in checked}
    for s in checked:
        assert s["check"]["kind"] in ("python", "command", "file"), s["id"]


def test_every_step_that_rents_hardware_has_a_cost_class():
    rent = re.compile(r"\brent|cloud (VM|instance)|TPU VM|multi-node|multi-host|several nodes", re.I)
    for s in load_knowledge().steps.values():
        if rent.search(s["summary"]["en"] + " " + s["verify"]["en"]) and s["level"] != "beginner":
            assert s.get("cost_class") in ("low", "medium", "high"), s["id"]


def test_python_check_passes_and_records_versions():
    res = verify.run_check({"kind": "python", "packages": ["numpy"], "code": "print('hello ok')",
                            "expect": {"regex": "hello ok"}})
    assert res["status"] == "verified", res
    assert res["versions"]["numpy"] and res["versions"]["python"] and "hello ok" in res["excerpt"]


def test_check_failures_are_named():
    assert verify.run_check({"kind": "python", "code": "print('no')", "expect": {"regex": "yes"}})["status"] == "failed"
    assert verify.run_check({"kind": "python", "code": "raise SystemExit(4)"})["status"] == "failed"
    res = verify.run_check({"kind": "python", "packages": ["surely-not-installed-pkg"], "code": "pass"})
    assert res["status"] == "needs-software" and "surely-not-installed-pkg" in json.dumps(res["reason_msg"])
    assert verify.run_check({"kind": "command", "argv": ["no-such-tool-xyz"]})["status"] == "needs-software"
    assert verify.run_check({"kind": "python", "code": "import time; time.sleep(5)"},
                            timeout_s=1)["status"] == "timeout"


def test_check_needing_absent_hardware_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    res = verify.run_check({"kind": "python", "hardware": {"kind": "gpu", "vendor": "nvidia"},
                            "code": f"open({str(marker)!r}, 'w').write('x')"}, report={"devices": []})
    assert res["status"] == "needs-hardware" and not marker.exists()
    res = verify.run_check({"kind": "python", "hardware": {"kind": "gpu"}, "code": "print(1)"},
                           report=RTX)
    assert res["status"] == "verified"


def test_child_has_no_proxy_and_no_network_when_isolation_works(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    code = ("import os, socket\nprint('proxy', os.environ.get('HTTPS_PROXY'))\n"
            "s = socket.socket()\ns.settimeout(2)\n"
            "try:\n    s.connect(('192.0.2.1', 9))\n    print('net up')\n"
            "except OSError as e:\n    print('net down', e.errno)")
    res = verify.run_check({"kind": "python", "code": code})
    assert "proxy None" in res["excerpt"]
    if res["network_isolated"]:
        assert "net down" in res["excerpt"]


def test_file_check(tmp_path):
    (tmp_path / "model.onnx").write_bytes(b"x")
    assert verify.run_check({"kind": "file", "paths": [str(tmp_path / "*.onnx")]})["status"] == "verified"
    assert verify.run_check({"kind": "file", "paths": [str(tmp_path / "*.plan")]})["status"] == "failed"


def test_verified_evidence_is_stored_with_progress_and_undo_forgets_it():
    kb = load_knowledge()
    res = verify.verify_step("cpu.numpy-vectorise", kb=kb, report={})
    assert res["status"] == "ready", res         # an environment check: ready to start, not done
    stored = progress.load_verified()["cpu.numpy-vectorise"]
    assert stored["versions"]["numpy"] and "allclose True" in stored["excerpt"] and stored["date"]
    assert stored["proves"] == "environment" and "cpu.numpy-vectorise" not in progress.load_done()
    progress.mark_done("cpu.know-your-cpu")        # ticking keeps the evidence of others
    assert "cpu.numpy-vectorise" in progress.load_verified()
    progress.unmark("cpu.numpy-vectorise")
    assert "cpu.numpy-vectorise" not in progress.load_verified()
    assert verify.verify_step("gpu.gpu-arrays", kb=kb, report={})["status"] == "no-check"
    with pytest.raises(KeyError):
        verify.verify_step("gpu.nope", kb=kb)


def test_cli_verify_cpu_first_steps_and_a_gpu_step(tmp_path):
    env = dict(os.environ, ACCELGUI_DATA_DIR=str(tmp_path / "d"))
    args = ["--verify", "cpu.know-your-cpu", "--verify", "cpu.numpy-vectorise",
            "--verify", "gpu.setup-check", "--format", "json"]
    if verify.is_root():
        refused = _cli(*args, env=env)
        assert refused.returncode == 2 and "root" in refused.stderr
        args.append("--allow-root")
    proc = _cli(*args, env=env)
    results = {r["step"]: r for r in json.loads(proc.stdout)["results"]}
    assert results["cpu.know-your-cpu"]["status"] == "ready"          # environment checks:
    assert results["cpu.numpy-vectorise"]["status"] == "ready"        # ready to start, not done
    has_gpu = any(d.get("kind") == "gpu" for d in json.loads(_cli("--probe", "--no-advice", env=env).stdout)["devices"])
    if not has_gpu:
        assert results["gpu.setup-check"]["status"] == "needs-hardware"
        assert proc.returncode == 0, proc.stderr
    saved = json.loads((tmp_path / "d" / "progress.json").read_text(encoding="utf-8"))
    assert set(saved["verified"]) >= {"cpu.know-your-cpu", "cpu.numpy-vectorise"}
    routes = _cli("--routes", env=env).stdout
    assert "[r] " in routes and "[cpu.numpy-vectorise]" in routes and ") [d] " not in routes


# --------------------------------------------------------------------------- coverage and wording

def _all_texts(obj):
    if isinstance(obj, dict):
        if set(obj) == {"en", "zh"} and all(isinstance(v, str) for v in obj.values()):
            yield obj
            return
        for v in obj.values():
            yield from _all_texts(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _all_texts(v)


def test_new_coverage_is_present():
    kb = load_knowledge()
    for sid in ("edge.executorch", "edge.litert-torch", "edge.hailo", "gpu.lora-finetune",
                "software-acceleration.sglang-serving", "software-acceleration.dynamo-disaggregated",
                "cloud.k8s-dra", "fpga.pynq-kria", "fpga.altera-board"):
        assert sid in kb.steps, sid
    for rid, route in kb.routes.items():
        cap = route.get("capstone")
        assert cap and cap["deliverable"]["en"] and cap["deliverable"]["zh"], rid
    resources = [r for route in kb.routes.values() for s in route["steps"] for r in s["resources"]]
    resources += [r for route in kb.routes.values() for r in route["capstone"].get("resources", [])]
    assert sum(r["kind"] in ("course", "book") for r in resources) >= 25
    assert sum(isinstance(r["title"], dict) for r in resources) >= 30
    assert any(r.get("url_zh") for r in resources)
    assert list(kb.routes)[0] == "cpu", "CPU fundamentals come first"


def test_link_dates_are_real_dates_not_one_stamp():
    kb = load_knowledge()
    dates = [r["checked"] for route in kb.routes.values() for s in route["steps"] for r in s["resources"]
             if "checked" in r]
    assert dates and all(d <= TODAY.isoformat() for d in dates)
    unchecked = sum(1 for route in kb.routes.values() for s in route["steps"] for r in s["resources"]
                    if "checked" not in r)
    assert unchecked > 0 and len(set(dates)) >= 2


def test_chinese_terminology():
    kb = load_knowledge()
    for route in kb.routes.values():
        for text in _all_texts(route):
            en, zh = text["en"], text["zh"]
            if "laptop" in en.lower():
                assert "\u7b14\u8bb0\u672c\u7535\u8111" in zh, zh
            elif "notebook" in en.lower():
                assert "\u7b14\u8bb0\u672c" not in zh or "notebook" in zh, zh
            if "eager" in en.lower():
                assert "\u5373\u65f6\u6267\u884c" not in zh, zh
            if "accuracy" in en.lower() and "precision" not in en.lower():
                assert "\u7cbe\u5ea6" not in zh or "\u51c6\u786e\u7387" in zh, zh


def test_npu_rows_match_by_pci_id_and_soc_by_name():
    laptop = {"devices": [{"kind": "npu", "vendor": "intel", "name": "Intel Lunar Lake NPU", "pci_id": "8086:643e",
                           "details": {}}], "cpu": {"model_name": "Intel(R) Core(TM) Ultra 7 258V"}}
    rows = {t["id"]: t for t in facts_document(laptop, "en")["tables"]}["npu_tops"]["rows"]
    assert [r["device"] for r in rows if r["this_machine"]] == ["Intel Core Ultra 200V (Lunar Lake) NPU"]
    board = {"devices": [{"kind": "npu", "vendor": "rockchip", "name": "RK3588 NPU", "details": {}}], "cpu": {}}
    rows = {t["id"]: t for t in facts_document(board, "en")["tables"]}["npu_tops"]["rows"]
    assert [r["device"] for r in rows if r["this_machine"]] == ["Rockchip RK3588 NPU"]
