"""The Report model: round trip, schema, and refusing what is not a report."""

import json
from pathlib import Path

import pytest

from accelgui.report import Cpu, Device, Report, ReportError, load_report, validate


def test_round_trip_keeps_every_field():
    report = Report(cpu=Cpu(model_name="X", logical_cpus=8, caches={"l1d": {"size_bytes": 1, "instances": 1}}),
                    devices=[Device(kind="gpu", vendor="nvidia", name="GPU", bus="pci",
                                    address="0000:01:00.0", pci_id="10de:2330", readiness="ready",
                                    details={"memory_bytes": 80 << 30})])
    again = Report.from_dict(json.loads(report.to_json()))
    assert again == report


def test_empty_report_validates_against_the_shipped_schema():
    validate(Report().to_dict())


def test_schema_rejects_a_zero_for_unknown_and_bad_enums():
    data = Report(devices=[Device(kind="gpu", name="g", bus="pci")]).to_dict()
    data["devices"][0]["readiness"] = "maybe"
    with pytest.raises(Exception):
        validate(data)


def test_unknown_keys_are_ignored_and_other_major_versions_refused(tmp_path):
    data = Report().to_dict()
    data["cpu"]["future_field"] = 1
    assert Report.from_dict(data).cpu.model_name is None
    data["schema_version"] = "2.0"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReportError, match="2.0"):
        load_report(str(path))


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a JSON report"),
    ("[1, 2]", "JSON object"),
    ('{"schema_version": "1.0", "cpu": 5}', "cpu"),
])
def test_broken_report_files_get_a_clear_error(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ReportError, match=message):
        load_report(str(path))


def test_missing_report_file(tmp_path):
    with pytest.raises(ReportError, match="cannot read"):
        load_report(str(tmp_path / "nope.json"))


def _valid() -> dict:
    return json.loads((Path(__file__).parent / "fixtures" / "reports" / "rich.json").read_text())


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(devices={"a": 1}), "devices"),
    (lambda d: d.update(devices=[1, 2]), "devices"),
    (lambda d: d["devices"][0].update(kind=["gpu"]), "devices[0].kind"),
    (lambda d: d["cpu"].update(logical_cpus="many"), "cpu.logical_cpus"),
    (lambda d: d.update(routes=[{"id": "gpu", "status": "maybe"}]), "routes[0]"),
    (lambda d: d.update(probes="all ok"), "probes"),
    (lambda d: d["memory"].update(total_bytes=-5), "memory.total_bytes"),
    (lambda d: d.update(platform=[]), "platform"),
    (lambda d: d["probes"].append({"name": "x", "status": "ok", "warnings": [{"path": 1}]}), "probes["),
])
def test_a_report_of_the_wrong_shape_names_the_file_and_the_field(tmp_path, change, field):
    data = _valid()
    change(data)
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReportError) as err:
        load_report(str(path))
    assert str(path) in str(err.value) and field in str(err.value), str(err.value)


@pytest.mark.parametrize("text, message", [
    ('{"a": ' * 900 + "1" + "}" * 900, "nested"),
    ('{"a": ' * 100000 + "1" + "}" * 100000, "nested"),
    ('{"schema_version": "1.0", "x": NaN}', "NaN"),
    ('{"schema_version": "1.0", "x": Infinity}', "Infinity"),
    ('{"schema_version": "1.0", "x": ' + "9" * 5000 + "}", "5000 digits"),
    ('{"schema_version": "1.0", "x": 1e400}', "out of range"),
])
def test_hostile_json_gets_an_error_naming_the_file(tmp_path, text, message):
    path = tmp_path / "hostile.json"
    path.write_text(text)
    with pytest.raises(ReportError) as err:
        load_report(str(path))
    assert str(path) in str(err.value) and message in str(err.value)


def test_non_utf8_report_is_a_clear_error(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"x": "\xff"}')
    with pytest.raises(ReportError, match="UTF-8"):
        load_report(str(path))


def test_compare_of_wrong_shapes_gives_no_traceback(tmp_path):
    import subprocess
    import sys

    data = _valid()
    data["devices"] = "none"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    good = Path(__file__).parent / "fixtures" / "reports" / "rich.json"
    res = subprocess.run([sys.executable, "-m", "accelgui", "--compare", str(good), str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode != 0
    assert "Traceback" not in res.stderr and str(bad) in res.stderr and "devices" in res.stderr


def test_json_layout_indents_nesting_and_keeps_flat_values_on_one_line():
    """to_json(): the same object as json's own encoder; nested levels indented, flat objects
    and lists (no object or list inside) on one line; indent=None is one line."""
    report = Report(cpu=Cpu(model_name="x \u4e2d", flags=["avx2", "fma"]),
                    benchmarks={"cpu": {"rows": [{"a": 1.5, "b": None}, [True, "y"]]},
                                1: "int key"},
                    estimates={"empty": {}, "none": []})
    text = report.to_json()
    assert json.loads(text) == json.loads(json.dumps(report.to_dict()))
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert '    "flags": ["avx2", "fma"],' in lines
    assert '        {"a": 1.5, "b": null},' in lines           # a flat row: one line
    assert '      "rows": [' in lines                           # a list of rows: indented
    assert '    "1": "int key"' in lines
    assert '    "model_name": "x \u4e2d",' in lines             # UTF-8, not \\u escapes
    assert '    "empty": {},' in lines
    one = report.to_json(indent=None)
    assert "\n" not in one and json.loads(one) == json.loads(text)


def test_json_is_written_by_the_c_encoder_where_python_has_one():
    """The flat parts go through json's C encoder made once (JSONEncoder.encode, which makes
    one per call, is only the fallback), and both write the same text."""
    from json import encoder

    from accelgui import report as report_module

    if encoder.c_make_encoder is None:
        pytest.skip("this Python has no C JSON encoder")
    flat = report_module._flat()
    assert flat.__name__ == "flat_c"
    value = {"a": [1, 2.5, None, True], "b": "x \u4e2d", "c": Cpu(model_name="m")}
    assert flat(value) == json.dumps(value, ensure_ascii=False, default=lambda r: r.__dict__)


# --------------------------------------------------------------------------- bounded strings

def test_a_saved_report_with_huge_strings_is_read_cut_to_the_documented_lengths(tmp_path):
    from accelgui import bounds

    report = Report(devices=[Device(name="N" * 1_000_000, bus="pci", readiness_reason="r" * 100_000,
                                    details={"k" * 1000: "v"})],
                    cpu=Cpu(model_name="M" * 5000, flags=["f"] * 20_000))
    path = tmp_path / "huge.json"
    path.write_text(report.to_json(), encoding="utf-8")
    got = load_report(str(path))
    dev = got.devices[0]
    assert dev.name == "N" * 255 + "\u2026"
    assert len(dev.readiness_reason) == 4096 and dev.readiness_reason.endswith("\u2026")
    assert list(dev.details) == ["k" * 255 + "\u2026"]
    assert got.cpu.model_name == "M" * 255 + "\u2026" and len(got.cpu.flags) == 10_000
    assert (bounds.NAME_MAX, bounds.TEXT_MAX, bounds.LIST_MAX, bounds.ITEMS_MAX) == (256, 4096, 4096, 10_000)


def test_the_contract_states_the_length_limits_the_reader_applies():
    from accelgui import bounds

    rules = (Path(__file__).resolve().parent.parent / "docs" / "report-contract.md").read_text(
        encoding="utf-8").split("## Rules", 1)[1].split("\n## ", 1)[0]
    para = rules[rules.index("**Length limits.**"):]
    for figure in (f"{bounds.NAME_MAX} characters", f"{bounds.TEXT_MAX} characters",
                   f"{bounds.LIST_MAX} entries", f"{bounds.ITEMS_MAX:,}", f"{bounds.DEPTH_MAX} levels"):
        assert figure in para, figure
    assert bounds.ELLIPSIS in para
