"""The application state without Qt (accelgui.appstate): which machine is shown, and the
transitions the window sends it (probing, advising, opening a report, benchmarks, history)."""

import subprocess
import sys

import pytest

from accelgui.appstate import AppState, Source, machine_name, source_of
from accelgui.report import Platform, Report

ZH_THIS_COMPUTER = "\u672c\u673a"


def report(hostname=None, dmi=None, benchmarks=None) -> Report:
    return Report(platform=Platform(hostname=hostname, dmi=dmi or {}), benchmarks=benchmarks)


def bench(triad: float) -> dict:
    return {"contract": 2, "mode": "quick", "cpu": {"stream": {"triad_gbps": triad}}}


def watched(state: AppState) -> list:
    seen: list = []
    state.subscribe(seen.append)
    return seen


def test_the_state_module_imports_no_qt():
    code = "import sys, accelgui.appstate; print(any(m.startswith('PySide6') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("rep, name", [
    (report("gpu-node-3"), "gpu-node-3"),
    (report("<redacted>", {"sys_vendor": "LENOVO", "product_name": "21CB"}), "LENOVO 21CB"),
    (report("<host>"), None),                                   # redacted, no DMI: no name
    (report("  \x1b[31m\n"), None),                              # control characters only
    ({"platform": {"hostname": "from-a-dict"}}, "from-a-dict"),
    ({"platform": "not an object"}, None),
    (report("x" * 500), "x" * 63 + "\u2026"),                    # bounded
])
def test_a_machine_is_named_by_its_host_then_its_dmi_product(rep, name):
    assert machine_name(rep) == name


def test_sources_name_the_machine_in_every_kind():
    live = source_of("live", lang="zh")
    assert live == Source("live", ZH_THIS_COMPUTER) and live.is_live and live.title("zh") == ZH_THIS_COMPUTER
    opened = source_of("report", report("<redacted>"), "/tmp/reports/lab.json")
    assert (opened.kind, opened.name, opened.is_live) == ("report", "lab.json", False)
    assert opened.title("en") == "Report: lab.json"
    tree = source_of("sysroot", None, "/srv/trees/jetson-orin/")
    assert tree.name == "jetson-orin" and tree.title("en") == "Recorded: jetson-orin"
    with pytest.raises(ValueError):
        source_of("cloud")


def test_the_shown_source_follows_opening_and_going_back():
    state = AppState()
    seen = watched(state)
    assert state.source.is_live and state.title() == "This computer"
    gen = state.probe_started()
    assert state.probed(gen, report("my-laptop"))
    assert state.title() == "This computer: my-laptop"
    state.opening_started("/r/other.json")
    assert state.opening == "/r/other.json"
    state.report_opened("/r/other.json", report("lab-laptop-07"))
    assert state.opening is None and state.source == Source("report", "lab-laptop-07", "/r/other.json")
    assert state.replacing_needs_consent() and state.report.platform.hostname == "lab-laptop-07"
    state.show_live()
    assert state.source.is_live and not state.replacing_needs_consent()
    assert {"showing_live", "opened_report", "opening"} <= set().union(*seen)


def test_a_failed_opening_ends_the_opening_state():
    state = AppState()
    state.opening_started("/r/a.json")
    state.opening_failed("/r/b.json")           # another file's failure: still opening a.json
    assert state.opening == "/r/a.json"
    state.opening_failed("/r/a.json")
    assert state.opening is None and state.opened_report is None and state.source.is_live


def test_a_recorded_tree_is_never_benchmarked_nor_given_this_computers_history():
    state = AppState(sysroot="/srv/trees/coral")
    assert state.recorded and not state.can_benchmark() and state.source.kind == "sysroot"
    state.probed(state.probe_started(), report("coral-dev"))
    assert not state.attach_history(bench(9.0)) and state.live_report.benchmarks is None


def test_an_older_probe_or_advice_result_is_dropped():
    state = AppState()
    first = state.probe_started()
    second = state.probe_started()
    assert not state.probed(first, report("old"))
    assert state.live_report is None and state.busy == "probing"
    assert state.probed(second, report("new")) and state.busy == "advising"
    old, new = state.advise_started("live"), state.advise_started("live")
    assert not state.advised("live", old, report("stale"))
    assert state.advised("live", new, report("advised"), kb="kb", done={"a"}, error=None)
    assert state.live_report.platform.hostname == "advised" and state.busy is None
    assert state.kb == "kb" and state.done == frozenset({"a"})
    state.probe_failed(state.probe_started(), "boom")
    assert state.probe_error == "boom" and state.busy is None


def test_benchmark_figures_survive_a_new_probe_and_arrive_before_one():
    state = AppState()
    assert not state.benchmark_finished(bench(10.0), at=1.0)      # no report yet: kept
    state.probed(state.probe_started(), report("h"))
    assert state.live_report.benchmarks == bench(10.0)
    state.probed(state.probe_started(), report("h"))               # probing again keeps them
    assert state.live_report.benchmarks == bench(10.0) and state.benchmark_at == 1.0


def test_a_run_clears_the_previous_runs_warnings_and_its_mode():
    state = AppState()
    state.probed(state.probe_started(), report("h"))
    state.benchmark_started("full")
    assert state.bench_mode == "full" and not state.can_benchmark()
    state.benchmark_finished(dict(bench(5.0), warnings=["thermal throttling"]), at=2.0)
    assert state.bench_warnings == ["thermal throttling"] and state.bench_mode is None
    state.benchmark_started("quick")
    assert state.bench_warnings == [] and state.bench_mode == "quick"
    state.benchmark_stopped()
    assert state.bench_mode is None and state.can_benchmark()
    with pytest.raises(ValueError):
        state.benchmark_started("forever")


def test_the_stored_benchmark_is_attached_only_to_a_report_without_one():
    state = AppState()
    state.probed(state.probe_started(), report("h"))
    assert not state.attach_history(None)
    stored = dict(bench(7.3), notices=[{"id": "figures.notice.from_history"}])
    assert state.attach_history(stored) and state.history_entry is stored
    assert state.live_report.benchmarks == stored
    assert not state.attach_history(bench(1.0))                    # it has figures now
    state.benchmark_finished(bench(8.0), at=3.0)                   # a new run replaces them
    assert state.live_report.benchmarks == bench(8.0) and state.history_entry is None


def test_knowledge_and_language():
    state = AppState(lang="zh_CN")
    seen = watched(state)
    assert state.lang == "zh" and state.source.name == ZH_THIS_COMPUTER
    assert state.knowledge_loaded("kb", {"s1"}) and not state.knowledge_loaded("other", {"s1"})
    assert state.kb == "kb" and len(seen) == 1          # nothing new: no redraw asked for
    state.set_done({"s1", "s2"})
    state.set_language("en")
    assert (state.done, state.lang, state.source.name) == (frozenset({"s1", "s2"}), "en", "This computer")
