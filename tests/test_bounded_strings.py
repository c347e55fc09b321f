"""Bounded strings: a report's free text is cut when the report is loaded
(the lengths of docs/report-contract.md ``## Rules``), and every exporter cuts the labels it
shows alike, so a device name of a million characters costs what a short one does."""

from __future__ import annotations

import json
import re

import pytest

from accelgui import bounds
from accelgui.compare import compare_files
from accelgui.export import FORMATS, render
from accelgui.report import Report, load_report
from report_fixtures import REPORTS, has_qt_gui

HUGE = 1_000_000


def _data(name: str = "rich") -> dict:
    return json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8"))


def _huge_name_data() -> dict:
    data = _data()
    data["devices"][0]["name"] = "A" * HUGE
    return data


def _strings(value, key=None):
    """(key, string) for every string of a JSON value, object keys included."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield None, k
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def _longest_run(text: str, ch: str = "A") -> int:
    return max((len(m) for m in re.findall(f"{re.escape(ch)}+", text)), default=0)


# --------------------------------------------------------------------------- loading

def test_loaded_report_cuts_a_huge_name_with_an_ellipsis():
    report = Report.from_dict(_huge_name_data())
    name = report.devices[0].name
    assert len(name) == bounds.NAME_MAX and name.endswith("\u2026") and name.startswith("AAAA")


def test_loaded_report_cuts_free_text_at_the_text_limit_and_keeps_short_text():
    data = _data()
    data["devices"][0]["readiness_reason"] = "why " * 100_000
    data["routes"][0]["reasons"] = ["because " * 100_000, "short reason"]
    data["devices"][0]["fix"] = "install the driver"
    report = Report.from_dict(data)
    assert len(report.devices[0].readiness_reason) == bounds.TEXT_MAX
    assert report.devices[0].readiness_reason.endswith("\u2026")
    assert len(report.routes[0].reasons[0]) == bounds.TEXT_MAX
    assert report.routes[0].reasons[1] == "short reason"
    assert report.devices[0].fix == "install the driver"


def test_loaded_report_caps_list_lengths():
    data = _data()
    device = data["devices"][0]
    data["devices"] = [dict(device, address=f"{i:08x}") for i in range(bounds.LIST_MAX + 500)]
    data["cpu"]["flags"] = [f"f{i}" for i in range(bounds.ITEMS_MAX + 10)]
    report = Report.from_dict(data)
    assert len(report.devices) == bounds.LIST_MAX
    assert len(report.cpu.flags) == bounds.ITEMS_MAX


def test_cutting_is_idempotent_so_a_saved_cut_report_reads_back_equal():
    report = Report.from_dict(_huge_name_data())
    assert Report.from_dict(json.loads(report.to_json())) == report


def _hostile_long() -> dict:
    """hostile.json with every string made longer than the text limit, long object keys in the
    free-form objects, a million-character device name and, in a free field, nesting deeper
    than the depth limit."""
    def grow(value):
        if isinstance(value, str):
            return (value or "x") * (bounds.TEXT_MAX * 2 // max(len(value), 1) + 1)
        if isinstance(value, dict):
            return {k: grow(v) for k, v in value.items()}
        if isinstance(value, list):
            return [grow(v) for v in value]
        return value
    data = _data("hostile")
    out = {k: grow(v) if k != "benchmarks" else v for k, v in data.items()}
    out["schema_version"] = data["schema_version"]
    out["platform"]["dmi"]["k" * HUGE] = "v" * HUGE
    out["software"]["packages"] = {"p" * HUGE: "1" * HUGE}
    out["devices"][0]["name"] = "\u202e<script>" + "A" * HUGE
    deep: dict = {}
    node = deep
    for _ in range(bounds.DEPTH_MAX + 20):
        node["x"] = {}
        node = node["x"]
    out["devices"][0]["details"] = {"deep": deep, "long": "d" * HUGE, "l" * HUGE: 1}
    return out


def test_a_hostile_report_with_huge_strings_loads_without_raising_and_is_bounded():
    report = Report.from_dict(_hostile_long())
    data = report.to_dict()
    for key, text in _strings(data):
        assert len(text) <= bounds.TEXT_MAX, (key, len(text))
        if key in ("name", "model_name", "vendor", "hostname", "kernel", "os_release"):
            assert len(text) <= bounds.NAME_MAX, (key, len(text))
    assert len(report.devices[0].name) == bounds.NAME_MAX
    for fmt in FORMATS:
        if fmt != "pdf":
            assert render(report, fmt)  # every face renders it


def test_load_report_and_compare_read_a_huge_name_bounded(tmp_path):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(_huge_name_data()), encoding="utf-8")
    report = load_report(str(path))
    assert len(report.devices[0].name) == bounds.NAME_MAX
    out = compare_files(str(REPORTS / "rich.json"), str(path), "text")
    assert _longest_run(out) <= bounds.NAME_MAX and len(out) < 200_000


# --------------------------------------------------------------------------- every face

SLACK = 64 * 1024     # what a 256-character name may add to a face, all its mentions together


def _render(report, fmt):
    out = render(report, fmt)
    return out if isinstance(out, bytes) else out.encode("utf-8")


def _faces():
    return [pytest.param(f, marks=pytest.mark.skipif(f == "pdf" and not has_qt_gui(),
                                                     reason="no Qt GUI library"))
            for f in FORMATS]


@pytest.mark.parametrize("fmt", _faces())
def test_a_loaded_million_character_name_renders_within_a_bound_of_size(fmt):
    short = _render(Report.from_dict(_data()), fmt)
    long = _render(Report.from_dict(_huge_name_data()), fmt)
    assert len(long) <= len(short) + SLACK, f"{fmt}: {len(long)} bytes against {len(short)}"


def _in_memory(name: str) -> Report:
    """A report built in memory (not read from a file), its first device named ``name``."""
    report = Report.from_dict(_data())
    devices = [report.devices[0].replace(name=name)] + list(report.devices[1:])
    return report.replace(devices=devices)


@pytest.mark.parametrize("fmt", _faces())
def test_every_face_cuts_a_million_character_label_of_an_in_memory_report(fmt):
    short = _render(_in_memory("A"), fmt)
    long = _render(_in_memory("A" * HUGE), fmt)
    if fmt == "json":       # JSON stays as loaded: the in-memory report as it is
        assert b"A" * HUGE in long
        return
    assert len(long) <= len(short) + SLACK, f"{fmt}: {len(long)} bytes against {len(short)}"
    if fmt != "pdf":
        assert _longest_run(long.decode("utf-8")) <= bounds.NAME_MAX


def _label_values(text: str) -> list[str]:
    from prometheus_client.parser import text_string_to_metric_families

    return [v for fam in text_string_to_metric_families(text) for s in fam.samples
            for v in s.labels.values()]


@pytest.mark.parametrize("name", ["A" * HUGE, '\\"\n' * (HUGE // 3), "é" * HUGE])
def test_prometheus_label_values_are_capped_and_stay_escaped(name):
    out = render(_in_memory(name).replace(benchmarks=None), "prometheus")   # the inventory names devices
    values = _label_values(out)        # parses: the escapes were not cut in half
    assert values and max(len(v) for v in values) <= bounds.NAME_MAX
    assert any(v.endswith("\u2026") for v in values)
    assert len(out) < 64 * 1024


def test_nfd_labels_of_a_huge_name_are_short_and_valid():
    from accelgui.export import nfd

    report = _in_memory("A" * HUGE).replace(
        cpu=_in_memory("A").cpu.replace(microarchitecture="Z" * HUGE))
    labels = nfd.labels(report)
    assert labels["cpu.microarchitecture"] == "Z" * 63
    assert all(nfd.valid_value(v) for v in labels.values())
