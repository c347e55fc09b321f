"""Benchmark history (accelgui/history.py): kept per machine, bounded, safe with bad files."""

from __future__ import annotations

import copy
import json
import os

import pytest

from accelgui import history
from accelgui.atomic import STATE_FILE_MAX_BYTES, UnsafeFileError
from accelgui.benchmarks import BenchmarkError
from accelgui.l10n import render
from accelgui.redact import redact
from accelgui.report import Report
from tests.gui_support import BENCHMARKS, built_rich_report, cpu_only_report


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def _report() -> dict:
    return built_rich_report().to_dict()


def _section(triad: float, mode: str = "quick") -> dict:
    b = copy.deepcopy(BENCHMARKS)
    b["mode"] = mode
    b["cpu"]["stream"]["triad_gbps"] = triad
    b["jit"] = {"compile_s": 3.0, "cache_dir": "/home/alice/.cache/accelgui/numba"}
    b["environment"] = {"llvm_cpu_features": ["avx2"] * 50, "numba_version": "0.62.1"}
    return b


def test_key_is_stable_and_survives_redaction():
    report = _report()
    key = history.machine_key(report)
    assert len(key) == 16 and key.isalnum()
    assert history.machine_key(Report.from_dict(report)) == key
    redacted = redact(Report.from_dict(report)).to_dict()
    assert redacted["platform"]["hostname"] is None
    assert history.machine_key(redacted) == key
    # the host name is not part of the key; the hardware is
    renamed = copy.deepcopy(report)
    renamed["platform"]["hostname"] = "other-name"
    assert history.machine_key(renamed) == key
    assert history.machine_key(cpu_only_report().to_dict()) != key
    more_ram = copy.deepcopy(report)
    more_ram["memory"]["total_bytes"] *= 4
    assert history.machine_key(more_ram) != key
    # what a kernel update does to MemTotal does not make a new machine
    kernel = copy.deepcopy(report)
    kernel["memory"]["total_bytes"] -= 300 * 2 ** 20
    assert history.machine_key(kernel) == key


def test_record_runs_latest_round_trip(data_dir):
    report = _report()
    key = history.machine_key(report)
    assert history.runs(key) == [] and history.latest(key) is None
    first = history.record(report, _section(60.0), when="2026-12-01T10:00:00+00:00")
    history.record(report, _section(66.0, "full"), when="2026-12-01T11:00:00+00:00")
    got = history.runs(key)
    assert [r["when"] for r in got] == ["2026-12-01T10:00:00+00:00", "2026-12-01T11:00:00+00:00"]
    assert [r["mode"] for r in got] == ["quick", "full"]
    assert got[0] == json.loads(json.dumps(first))
    # stored without the build paths and the LLVM feature list; the figures all there
    stored = got[1]["benchmarks"]
    assert "jit" not in stored and "llvm_cpu_features" not in stored["environment"]
    assert stored["cpu"]["stream"]["triad_gbps"] == 66.0
    assert "/home/alice" not in (data_dir / history.FOLDER / f"{key}.json").read_text()
    newest = history.latest(key)
    assert newest["cpu"]["stream"]["triad_gbps"] == 66.0
    note = newest["notices"][-1]
    assert note["id"] == "figures.notice.from_history"
    assert "2026-12-01" in render(note, "en") and "full" in render(note, "en")
    assert "\u5b8c\u6574" in render(note, "zh")          # "full" in Chinese
    # a section that went through latest() and is recorded again gets no second notice
    history.record(report, newest)
    assert [n["id"] for n in history.latest(key)["notices"]].count("figures.notice.from_history") == 1
    # another machine's runs are kept apart
    other = cpu_only_report().to_dict()
    history.record(other, _section(12.0))
    assert len(history.runs(history.machine_key(other))) == 1
    assert len(history.runs(key)) == 3
    st = os.stat(data_dir / history.FOLDER / f"{key}.json")
    assert st.st_mode & 0o777 == 0o600


def test_bounded_to_last_runs_and_under_the_cap(monkeypatch):
    report = _report()
    key = history.machine_key(report)
    monkeypatch.setattr(history, "MAX_RUNS", 5)
    for i in range(8):
        history.record(report, _section(50.0 + i), when=f"2026-12-01T10:0{i}:00+00:00")
    got = history.runs(key)
    assert [r["benchmarks"]["cpu"]["stream"]["triad_gbps"] for r in got] == [53.0, 54.0, 55.0, 56.0, 57.0]


def test_oldest_runs_slimmed_then_dropped_to_fit_the_cap():
    report = _report()
    key = history.machine_key(report)
    kept = [{"when": str(i), "mode": "full", "benchmarks": _section(40.0 + i)} for i in range(30)]
    full = len(history._payload(key, copy.deepcopy(kept)))
    data = history._fit(key, copy.deepcopy(kept), full // 2)
    assert len(data) <= full // 2
    runs_left = json.loads(data)["runs"]
    assert runs_left[-1]["when"] == "29" and "slim" not in runs_left[-1]
    assert runs_left[-1]["benchmarks"]["cpu"]["cache_sweep"]
    assert runs_left[0].get("slim") and "cache_sweep" not in runs_left[0]["benchmarks"]["cpu"]
    assert runs_left[0]["benchmarks"]["cpu"]["stream"]["triad_gbps"] == 40.0   # figures kept
    tiny = json.loads(history._fit(key, copy.deepcopy(kept), 6000))["runs"]
    assert tiny and tiny[-1]["when"] == "29" and len(tiny) < 30
    assert STATE_FILE_MAX_BYTES > 200 * len(json.dumps(_section(1.0))) // 2


def test_section_off_contract_is_refused_and_nothing_written(data_dir):
    report = _report()
    bad = _section(60.0)
    bad["cpu"]["stream"]["triad_gbps"] = "fast"
    with pytest.raises(BenchmarkError):
        history.record(report, bad)
    assert history.runs(history.machine_key(report)) == []


def test_corrupt_file_warns_is_kept_aside_and_replaced(data_dir, capsys):
    report = _report()
    key = history.machine_key(report)
    path = data_dir / history.FOLDER / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"runs": [ {"when": ')
    assert history.runs(key) == []
    assert "ignoring the benchmark history" in capsys.readouterr().err
    history.record(report, _section(61.0))
    assert (path.parent / f"{key}.json.corrupt").read_bytes() == b'{"runs": [ {"when": '
    assert len(history.runs(key)) == 1
    # a second bad file gets the next free name, the first copy untouched
    path.write_bytes(b"[]")
    history.record(report, _section(62.0))
    assert (path.parent / f"{key}.json.corrupt.1").read_bytes() == b"[]"
    assert (path.parent / f"{key}.json.corrupt").read_bytes() == b'{"runs": [ {"when": '


def test_file_of_another_machine_is_not_read_as_this_one(tmp_path, capsys):
    report = _report()
    other = tmp_path / "other.json"
    history.record(cpu_only_report().to_dict(), _section(10.0), path=str(other))
    assert history.runs(history.machine_key(report), path=str(other)) == []
    assert "holds the runs of machine" in capsys.readouterr().err


def test_link_at_the_history_path_is_refused_and_left(data_dir, tmp_path):
    report = _report()
    key = history.machine_key(report)
    folder = data_dir / history.FOLDER
    folder.mkdir(parents=True)
    target = tmp_path / "elsewhere.json"
    target.write_text("keep me")
    (folder / f"{key}.json").symlink_to(target)
    with pytest.raises(UnsafeFileError):
        history.record(report, _section(60.0))
    assert target.read_text() == "keep me"
    assert history.runs(key) == []


def test_bad_key_refused():
    with pytest.raises(ValueError):
        history.history_path("../../etc/passwd")


def test_trend_file_keeps_each_runs_medians_and_is_rebuilt_when_lost(data_dir):
    report = _report()
    key = history.machine_key(report)
    for i, triad in enumerate((60.0, 61.0)):
        b = _section(70.0)
        b["spread"] = {"cpu.stream.triad_gbps": {"min": triad - 5, "median": triad, "max": 70.0, "n": 6}}
        history.record(report, b, when=f"2026-12-0{i + 1}T10:00:00+00:00")
    got = history.trend(key)
    assert [t["figures"]["cpu.stream.triad_gbps"] for t in got] == [60.0, 61.0]   # medians, not best
    assert got[0]["when"] == "2026-12-01T10:00:00+00:00" and got[0]["mode"] == "quick"
    trend_file = data_dir / history.FOLDER / f"{key}.trend.json"
    assert trend_file.stat().st_size < 2048
    trend_file.write_text("not json")
    assert [t["figures"]["cpu.stream.triad_gbps"] for t in history.trend(key)] == [60.0, 61.0]


def test_a_trend_that_cannot_be_written_costs_only_the_shortcut(data_dir):
    report = _report()
    key = history.machine_key(report)
    folder = data_dir / history.FOLDER
    folder.mkdir(parents=True)
    (folder / f"{key}.trend.json").mkdir()          # not a file: the trend write is refused
    history.record(report, _section(64.0), when="2026-12-01T10:00:00+00:00")
    assert len(history.runs(key)) == 1
    assert [t["when"] for t in history.trend(key)] == ["2026-12-01T10:00:00+00:00"]


def test_latest_comes_from_its_small_file_and_from_the_runs_without_it(data_dir):
    report = _report()
    key = history.machine_key(report)
    history.record(report, _section(60.0), when="2026-12-01T10:00:00+00:00")
    history.record(report, _section(66.0), when="2026-12-02T10:00:00+00:00")
    small = data_dir / history.FOLDER / f"{key}.latest.json"
    assert small.stat().st_size < (data_dir / history.FOLDER / f"{key}.json").stat().st_size
    assert history.latest(key)["cpu"]["stream"]["triad_gbps"] == 66.0
    small.write_text('{"machine": "someone-else", "run": {}}')
    assert history.latest_run(key)["when"] == "2026-12-02T10:00:00+00:00"     # from the runs
    small.unlink()
    assert history.latest(key)["cpu"]["stream"]["triad_gbps"] == 66.0


def test_a_missing_trend_is_rebuilt_once_from_the_runs(data_dir):
    report = _report()
    key = history.machine_key(report)
    history.record(report, _section(60.0), when="2026-12-01T10:00:00+00:00")
    trend_file = data_dir / history.FOLDER / f"{key}.trend.json"
    trend_file.unlink()
    assert [t["when"] for t in history.trend(key)] == ["2026-12-01T10:00:00+00:00"]
    assert json.loads(trend_file.read_text())["runs"][0]["when"] == "2026-12-01T10:00:00+00:00"


def test_the_file_holds_one_run_per_line_and_reads_the_same_as_one_document(data_dir):
    report = _report()
    key = history.machine_key(report)
    for i in range(3):
        history.record(report, _section(50.0 + i), when=f"2026-12-01T10:0{i}:00+00:00")
    file = data_dir / history.FOLDER / f"{key}.json"
    raw = file.read_bytes()
    lines = raw.decode().split("\n")
    assert lines[0].endswith('"runs":[') and lines[-2:] == ["]}", ""] and len(lines) == 3 + 3
    whole = json.loads(raw)                 # still one JSON document
    assert history._parse_lines(raw.decode()) == whole
    assert [r["benchmarks"]["cpu"]["stream"]["triad_gbps"] for r in history.runs(key)] == [50.0, 51.0, 52.0]
    # a file in another layout (written compact, or edited by hand) is read the same
    file.write_text(json.dumps(whole, indent=1))
    assert history._parse_lines(file.read_text()) is None
    assert history.runs(key) == whole["runs"]
    history.record(report, _section(53.0))          # and written back one run per line
    assert len(file.read_text().split("\n")) == 3 + 4


@pytest.mark.parametrize("body", [
    '{"version":1,"runs":[\n{"benchmarks":{}},{"benchmarks":{}}\n]}\n',      # two runs on a line
    '{"version":1,"runs":[\n{"benchmarks":{}}\n{"benchmarks":{}}\n]}\n',      # a comma missing
    '{"version":1,"runs":[\n{"benchmarks":{}},\n]}\n',                         # a trailing comma
    '{"version":1,"runs":[\n{"benchmarks":\n]}\n',                             # cut off
])
def test_a_line_laid_out_file_that_is_not_json_is_refused_as_a_whole(body, tmp_path, capsys):
    path = tmp_path / "h.json"
    path.write_text(body)
    try:
        whole = json.loads(body)
    except ValueError:
        whole = None
    got = history.runs("abc", path=str(path))
    if whole is None:
        assert got == [] and "not valid JSON" in capsys.readouterr().err
    else:
        assert got == whole["runs"]
