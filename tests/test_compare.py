"""accelgui --compare A.json B.json: what changed between two saved reports."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from report_fixtures import REPORTS

from accelgui.compare import compare, compare_files
from accelgui.report import Report, ReportError, load_report

RICH = REPORTS / "rich.json"


def rich_dict() -> dict:
    return json.loads(RICH.read_text(encoding="utf-8"))


def write(tmp_path: Path, name: str, data: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "accelgui", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


def changed_rich(tmp_path) -> str:
    """The H100 server a month later: a GPU gone, one lost its driver, a new card, newer
    torch, slower memory, a route verdict changed."""
    d = rich_dict()
    d["devices"] = [x for x in d["devices"] if x["address"] != "0000:db:00.0"]
    d["devices"][0]["readiness"] = "driver-missing"
    d["devices"][0]["driver"] = None
    d["devices"].append({"kind": "fpga", "vendor": "xilinx", "name": "Alveo U55C", "bus": "pci",
                         "address": "0000:e1:00.0", "pci_id": "10ee:505c", "usb_id": None,
                         "driver": "xclmgmt", "integrated": False, "readiness": "ready",
                         "readiness_reason": None, "fix": None, "details": {}})
    d["software"]["packages"]["torch"] = "2.6.0+cu126"
    d["software"]["packages"]["vllm"] = "0.7.3"
    del d["software"]["packages"]["jax"]
    d["benchmarks"]["cpu"]["stream"]["triad_gbps"] = 472.32       # -10 %
    d["benchmarks"]["gpu"]["3"]["triad_gbps"] = 3161.235          # +5 %
    d["routes"] = [dict(r, status="ready") if r["id"] == "fpga" else r for r in d["routes"]]
    d["platform"]["kernel"] = "6.8.0-45-generic"
    d["memory"]["total_bytes"] = d["memory"]["total_bytes"] // 2
    return write(tmp_path, "b.json", d)


def by(changes, section):
    return [c for c in changes if c["section"] == section]


def test_identical_reports_have_no_differences():
    assert compare(load_report(str(RICH)), load_report(str(RICH))) == []
    for fmt, needle in (("text", "no differences"), ("markdown", "no differences"),
                        ("html", "no differences")):
        assert needle in compare_files(str(RICH), str(RICH), fmt)
    data = json.loads(compare_files(str(RICH), str(RICH), "json"))
    assert data["identical"] is True and data["differences"] == []


def test_devices_added_removed_and_readiness_changes(tmp_path):
    changes = compare(load_report(str(RICH)), load_report(changed_rich(tmp_path)))
    devs = by(changes, "devices")
    added = [c for c in devs if c["change"] == "added"]
    removed = [c for c in devs if c["change"] == "removed" and c["key"] != "driver"]
    assert [c["item"] for c in added] == ["Alveo U55C @ 0000:e1:00.0"]
    assert [c["item"] for c in removed] == ["NVIDIA H100 80GB HBM3 @ 0000:db:00.0"]
    readiness = [c for c in devs if c["key"] == "readiness"]
    assert len(readiness) == 1
    assert readiness[0]["item"].startswith("NVIDIA H100 80GB HBM3 @ 0000:18:00.0")
    assert (readiness[0]["a"], readiness[0]["b"]) == ("ready", "driver-missing")


def test_benchmark_figures_with_percent_change(tmp_path):
    changes = compare(load_report(str(RICH)), load_report(changed_rich(tmp_path)))
    bench = {c["item"]: c for c in by(changes, "benchmarks")}
    assert bench["cpu.stream.triad_gbps"]["pct_change"] == -10.0
    assert bench["gpu.3.triad_gbps"]["pct_change"] == 5.0
    assert len(bench) == 2
    text = compare_files(str(RICH), str(tmp_path / "b.json"), "text")
    line = next(ln for ln in text.splitlines() if "STREAM triad, all threads" in ln)
    assert line.split()[-6:] == ["524.8", "GB/s", "472.3", "GB/s", "-10.0", "%"]


def test_software_routes_platform_memory(tmp_path):
    changes = compare(load_report(str(RICH)), load_report(changed_rich(tmp_path)))
    sw = {c["item"]: c for c in by(changes, "software")}
    assert sw["packages: torch"]["change"] == "changed" and sw["packages: torch"]["b"] == "2.6.0+cu126"
    assert sw["packages: vllm"]["change"] == "added"
    assert sw["packages: jax"]["change"] == "removed"
    routes = by(changes, "routes")
    assert [(c["item"], c["a"], c["b"]) for c in routes] == [("fpga", "remote", "ready")]
    assert [c["item"] for c in by(changes, "platform")] == ["kernel"]
    mem = by(changes, "memory")[0]
    assert mem["item"] == "total_bytes" and mem["pct_change"] == -50.0


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_every_compare_format(tmp_path, fmt):
    out = compare_files(str(RICH), changed_rich(tmp_path), fmt)
    if fmt == "json":
        data = json.loads(out)
        assert data["identical"] is False and data["a"]["file"] == str(RICH)
        assert {"section", "item", "change", "a", "b", "pct_change"} <= set(data["differences"][0])
    elif fmt == "markdown":
        assert "| What | A | B | Change |" in out and "| -10.0 % |" in out
        assert "<details>" in out and "Python package torch" in out        # the rest, folded
    elif fmt == "html":
        assert "<script" not in out and "Content-Security-Policy" in out
        assert "driver missing" in out
    else:
        lines = out.splitlines()
        assert any("Alveo U55C @ 0000:e1:00.0" in ln and ln.endswith("only in B") for ln in lines)
        assert any("NVIDIA H100 80GB HBM3 @ 0000:db:00.0" in ln and ln.endswith("only in A") for ln in lines)


def test_a_report_that_breaks_the_schema_is_refused_naming_the_field():
    with pytest.raises(ReportError) as err:
        compare_files(str(RICH), str(REPORTS / "hostile.json"))
    assert "hostile.json" in str(err.value) and "routes[" in str(err.value)


def _schema_valid_hostile(tmp_path) -> str:
    """hostile.json with its ids and enums made valid: hostile text where the schema allows
    any text."""
    jsonschema = pytest.importorskip("jsonschema")
    from accelgui.report import schema

    data = json.loads((REPORTS / "hostile.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema())
    for n in range(200):
        errors = list(validator.iter_errors(data))
        if not errors:
            break
        for err in errors:
            err = min([err, *(err.context or [])], key=lambda e: -len(e.absolute_path))
            *parents, last = err.absolute_path
            target = data
            for part in parents:
                target = target[part]
            if err.validator == "enum":
                target[last] = err.validator_value[0]
            elif last in ("pci_id", "usb_id"):
                target[last] = "0000:0000"
            else:
                target[last] = f"hostile-{n}"
            break
    path = tmp_path / "hostile-valid.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_hostile_strings_in_compare_stay_inert(tmp_path):
    hostile = _schema_valid_hostile(tmp_path)
    out = compare_files(str(RICH), hostile, "html")

    class Tags(HTMLParser):
        tags: list = []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

    parser = Tags()
    parser.feed(out)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert "&lt;script&gt;" in out
    md = compare_files(str(RICH), hostile, "markdown")
    assert "<script>" not in md and "\\<script\\>" in md
    text = compare_files(str(RICH), hostile, "text")
    assert "\x1b" not in text and "\x07" not in text


def test_another_major_schema_version_is_refused():
    old = str(REPORTS / "old-schema.json")
    with pytest.raises(ReportError) as err:
        compare_files(str(RICH), old)
    assert old in str(err.value) and "0.3" in str(err.value)
    res = cli("--compare", str(RICH), old)
    assert res.returncode == 1
    assert res.stderr.startswith("accelgui: error: ") and "old-schema.json" in res.stderr
    assert "schema version 0.3" in res.stderr and "Traceback" not in res.stderr
    assert res.stdout == ""


def test_a_newer_minor_version_is_compared(tmp_path):
    d = rich_dict()
    d["schema_version"] = "1.7"
    d["a_field_from_the_future"] = {"x": 1}
    changes = compare(load_report(str(RICH)), load_report(write(tmp_path, "new.json", d)))
    assert [(c["item"], c["a"], c["b"]) for c in changes] == [("schema_version", "1.0", "1.7")]


def test_not_a_report_is_refused_clearly(tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text("not json")
    res = cli("--compare", str(RICH), str(bad))
    assert res.returncode == 1 and "notes.json" in res.stderr and "not a JSON report" in res.stderr
    res = cli("--compare", str(RICH), str(tmp_path / "missing.json"))
    assert res.returncode == 1 and "missing.json" in res.stderr


def test_cli_compare_formats(tmp_path):
    b = changed_rich(tmp_path)
    res = cli("--compare", str(RICH), b, "--format", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["identical"] is False
    res = cli("--compare", str(RICH), str(RICH))
    assert res.returncode == 0 and "no differences" in res.stdout


def test_devices_without_address_are_matched_by_name():
    a = Report.from_dict(dict(rich_dict(), devices=[
        {"kind": "npu", "vendor": "intel", "name": "Intel NPU", "bus": "platform", "address": None,
         "readiness": "runtime-missing"}]))
    b = Report.from_dict(dict(rich_dict(), devices=[
        {"kind": "npu", "vendor": "intel", "name": "Intel NPU", "bus": "platform", "address": None,
         "readiness": "ready"}]))
    changes = compare(a, b)
    assert [(c["item"], c["a"], c["b"]) for c in by(changes, "devices")] == \
        [("Intel NPU: readiness", "runtime-missing", "ready")]


def test_compare_works_on_deep_copies_without_mutating():
    a = load_report(str(RICH))
    before = copy.deepcopy(a.to_dict())
    compare(a, a)
    assert a.to_dict() == before


def test_what_matters_comes_first_and_the_rest_is_folded(tmp_path):
    """Devices, readiness, memory, headline figures and verdicts first; kernel and package
    versions folded in text (listed with all_rows); every row named in words, in each language."""
    changes = compare(load_report(str(RICH)), load_report(changed_rich(tmp_path)))
    major = {c["item"] for c in changes if c["major"]}
    assert "total_bytes" in major and "fpga" in major and "cpu.stream.triad_gbps" in major
    assert "kernel" not in major and "packages: torch" not in major
    b = str(tmp_path / "b.json")
    short = compare_files(str(RICH), b, "text")
    assert "System memory" in short and "5.15.0-105-generic" not in short and "--all" in short
    full = compare_files(str(RICH), b, "text", all_rows=True)
    assert "Python package torch" in full and "Other differences (4)" in full
    for lang in ("en", "zh"):
        out = compare_files(str(RICH), b, "text", lang=lang, all_rows=True)
        for raw in ("total_bytes", "cpu.stream", "packages:", "triad_gbps", "readiness", "os_release"):
            assert raw not in out, (lang, raw)
    assert "\u7cfb\u7edf\u5185\u5b58" in compare_files(str(RICH), b, "text", lang="zh")     # system memory


def test_a_small_benchmark_wobble_is_not_a_difference_that_matters(tmp_path):
    d = rich_dict()
    d["benchmarks"]["cpu"]["stream"]["triad_gbps"] *= 1.02          # +2 %: run-to-run noise
    changes = compare(load_report(str(RICH)), load_report(write(tmp_path, "b.json", d)))
    assert [(c["item"], c["major"]) for c in changes] == [("cpu.stream.triad_gbps", False)]


def test_figures_beyond_the_headline_are_compared_in_words(tmp_path):
    d = rich_dict()
    d["benchmarks"]["cpu"]["stream"]["copy_gbps"] *= 0.8
    d["benchmarks"]["cpu"]["latency_ns"]["l2"] = 9.0
    changes = compare(load_report(str(RICH)), load_report(write(tmp_path, "b.json", d)))
    assert {c["item"]: c["major"] for c in changes} == {"cpu.stream.copy_gbps": False, "cpu.latency_ns.l2": False}
    labels = {c["label"] for c in changes}
    assert "Copy bandwidth, all threads" in labels and not any("_" in x for x in labels)
