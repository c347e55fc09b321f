"""The desktop app, offscreen (pytest-qt): views render recorded reports, workers stay off the
GUI thread, benchmarks run in a child process that can crash or be cancelled, the language
switches, reports open and compare, progress persists."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLabel

from accelgui import l10n
from accelgui.gui import i18n
from accelgui.gui.main_window import PAGES, AppOptions, MainWindow
from accelgui.gui.views.hardware import probe_label

sys.path.insert(0, os.path.dirname(__file__))
from gui_support import (RICH_JSON, built_rich_report, cpu_only_report,
                         fake_child_argv, rich_report)

pytestmark = pytest.mark.gui
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Progress goes to a temporary directory; the language is English after each test."""
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(tmp_path / "data"))
    yield
    i18n.install("en")


def make_window(qtbot, report=None, **options) -> MainWindow:
    options.setdefault("probe", False)
    window = MainWindow(AppOptions(**options))
    qtbot.addWidget(window)
    window.show()
    if report is not None:
        window.live_report = report
        from accelgui.knowledge import load_knowledge

        window.kb = load_knowledge()
        window.refresh()
    return window


def texts(widget) -> str:
    """Every visible text of a widget tree (labels, buttons, checkboxes), one per line."""
    from PySide6.QtWidgets import QApplication

    for _ in range(4):  # widgets added to a shown layout appear on the next turn
        QApplication.processEvents()
    out = []
    for child in widget.findChildren(QLabel) + widget.findChildren(QAbstractButton):
        if child.isVisibleTo(widget) or child.isVisible():
            out.append(child.text())
    return "\n".join(out)


def wait_for_plots(qtbot, view) -> list:
    """The Benchmarks page builds its plots one per event-loop turn; wait for all of them."""
    import pyqtgraph as pg

    qtbot.waitUntil(lambda: not view.building, timeout=20000)
    return view.findChildren(pg.PlotWidget)


def settle(qtbot, window) -> None:
    """Wait until no worker (advisor, report loader) is still running."""
    qtbot.waitUntil(lambda: not window._tasks, timeout=20000)


def tree_texts(tree) -> str:
    out = []

    def visit(item):
        out.append(f"{item.text(0)}\t{item.text(1)}")
        for i in range(item.childCount()):
            visit(item.child(i))

    for i in range(tree.topLevelItemCount()):
        visit(tree.topLevelItem(i))
    return "\n".join(out)


def show(window, page):
    window.show_page(page)
    return window.views[page]


# -- rendering recorded reports ---------------------------------------------------------------

@pytest.mark.parametrize("make_report", [rich_report, built_rich_report])
def test_every_view_renders_a_rich_report(qtbot, make_report):
    report = make_report()
    window = make_window(qtbot, report)

    overview = texts(show(window, "overview"))
    assert report.cpu.model_name in overview
    assert report.devices[0].name in overview
    assert "No accelerator found" not in overview
    assert "Verdict" in overview and "Next steps" in overview

    hardware = show(window, "hardware")
    tree = hardware.all_text()
    assert "Probes" in tree
    for probe in report.probes:
        assert probe_label(probe.name, "en") in tree
    assert report.cpu.model_name in tree

    bench = show(window, "benchmarks")
    assert len(wait_for_plots(qtbot, bench)) == 3  # cache sweep, roofline, measured vs theoretical
    assert "All figures" in texts(bench)

    routes = show(window, "routes")
    route_text = texts(routes)
    for route in report.routes:
        assert route.id in window.kb.routes, route.id
        assert window.kb.routes[route.id]["title"]["en"] in route_text

    reports = texts(show(window, "reports"))
    assert "Compare two reports" in reports


def test_cpu_only_machine_says_so_and_shows_probe_errors_in_place(qtbot):
    report = cpu_only_report()
    window = make_window(qtbot, report)
    overview = texts(show(window, "overview"))
    assert "No accelerator found" in overview
    assert "on the GCP cloud (n2d-standard-4)" in overview
    assert "Some probes had problems" in overview
    tree = show(window, "hardware").all_text()
    nvidia = next(line for line in tree.splitlines() if line.startswith("NVIDIA (NVML)\t"))
    assert "error" in nvidia and "driver/library version mismatch" in nvidia
    usb = next(line for line in tree.splitlines() if line.startswith("USB bus\t"))
    assert "timeout" in usb
    # no benchmarks in this report: the page invites to run one instead of plotting nothing
    assert "Run benchmark" in texts(show(window, "benchmarks"))


def test_window_appears_before_probing_and_probes_off_the_gui_thread(qtbot, monkeypatch):
    import accelgui.gui.main_window as mw

    seen = {}
    release = threading.Event()
    real = mw.probe_machine

    def probe(sysroot, timeout):
        seen["thread"] = threading.current_thread()
        release.wait(10)
        return real(sysroot, timeout)

    monkeypatch.setattr(mw, "probe_machine", probe)
    machine = os.path.join(FIXTURES, "machines", "cpu-intel-desktop")
    window = make_window(qtbot, sysroot=machine, probe=True)
    window.start()
    qtbot.waitUntil(lambda: "thread" in seen)
    qtbot.waitUntil(lambda: len(window._tasks) == 1, timeout=20000)  # knowledge loaded, probe busy
    # the window is up and says it is probing while the worker is busy
    assert "probing" in window.status_text()
    assert "Probing this machine" in texts(window.overview)
    release.set()
    qtbot.waitUntil(lambda: window.live_report is not None and window.busy is None, timeout=20000)
    assert seen["thread"] is not threading.main_thread()
    assert window.live_report.sysroot == machine
    tree = show(window, "hardware").all_text()
    for probe_result in window.live_report.probes:
        assert probe_label(probe_result.name, "en") in tree
    assert "probes" in window.status_text()


def test_probe_failure_is_shown_in_place(qtbot, monkeypatch):
    import accelgui.gui.main_window as mw

    def broken(sysroot, timeout):
        raise RuntimeError("sysfs is not mounted")

    monkeypatch.setattr(mw, "probe_machine", broken)
    window = make_window(qtbot, probe=True)
    window.start()
    qtbot.waitUntil(lambda: window.probe_error is not None)
    assert "sysfs is not mounted" in texts(window.overview)
    assert window.isVisible()


# -- benchmarks in a child process -----------------------------------------------------------------

def test_benchmark_progress_then_results_in_every_view(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("ok")
    progress = []
    window.bench.progress.connect(progress.append)
    with qtbot.waitSignal(window.bench.finished, timeout=20000):
        window.act_quick.trigger()
        assert window.act_cancel.isEnabled()
    settle(qtbot, window)                   # the run is checked in a worker, then shown
    assert [p["stage"] for p in progress] == ["stream", "fma", "cache_sweep"]
    assert window.benchmarks.progress.value() == 1000
    assert window.live_report.benchmarks["cpu"]["stream"]["triad_gbps"] == 21.5
    assert not window.act_cancel.isEnabled()
    assert "last benchmark just now" in window.status_text()
    from accelgui import history

    # the run is kept once the plots are drawn, then the advice follows and redraws the page
    qtbot.waitUntil(lambda: len(history.runs(history.machine_key(window.live_report.to_dict()))) == 1)
    qtbot.waitUntil(lambda: not window._tasks and not window.busy, timeout=20000)
    window.render_page("benchmarks")
    assert len(wait_for_plots(qtbot, window.benchmarks)) == 2  # the roofline, the history
    shown = texts(window.benchmarks)
    assert "No cache sweep in these results" in shown
    assert "21.5 GB/s measured (no theoretical peak known)" in shown


def test_benchmark_progress_bar_follows_the_child(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("slow")
    with qtbot.waitSignal(window.bench.progress, timeout=20000):
        window.run_benchmark("full")
    assert window.benchmarks.progress.value() == 50  # fraction 0.05 of 1000
    assert "stream" in window.benchmarks.stage.text()
    with qtbot.waitSignal(window.bench.cancelled, timeout=20000):   # bounds a hang only
        window.cancel_benchmark()


def test_plots_are_made_in_the_background_before_the_window_is_idle(qtbot):
    window = make_window(qtbot, cpu_only_report())
    assert not window.idle
    window._preload_plotting()
    qtbot.waitUntil(lambda: window.idle, timeout=30000)
    plots = window.benchmarks._plots
    assert set(plots) == {"cache", "roofline", "bars", "history"}
    assert plots["cache"].getPlotItem().getViewBox().menu is None     # no menu built (none shown)
    assert all(frame.isHidden() for frame in window.benchmarks._frames.values())


def test_the_heap_is_settled_once_the_window_has_started_up(qtbot):
    from accelgui.gui import workers

    window = make_window(qtbot, cpu_only_report())
    window._preload_plotting()
    qtbot.waitUntil(lambda: window.idle, timeout=30000)
    assert workers._settled.is_set() and gc.get_freeze_count() > 0


def test_settle_heap_freezes_once_and_later_cycles_are_still_collected():
    code = textwrap.dedent("""
        import gc, json
        from accelgui.gui import workers
        kept = [{"n": i} for i in range(5000)]
        first, again = workers.settle_heap(), workers.settle_heap()
        frozen = gc.get_freeze_count()
        class Node:
            pass
        for _ in range(100):
            a, b = Node(), Node()
            a.other, b.other = b, a
        del a, b
        print(json.dumps([first, again, frozen >= 5000, gc.collect() >= 200]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [True, False, True, True], out.stderr


def test_benchmark_child_runs_nicer_than_the_window(qtbot):
    from accelgui.gui.workers import CHILD_NICENESS

    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("slow")
    with qtbot.waitSignal(window.bench.progress, timeout=20000):
        window.run_benchmark("full")
    pid = window.bench._proc.processId()
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + CHILD_NICENESS)
    with qtbot.waitSignal(window.bench.cancelled, timeout=20000):
        window.cancel_benchmark()


def test_crashed_benchmark_shows_its_message_and_the_app_stays_usable(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("crash")
    with qtbot.waitSignal(window.bench.failed, timeout=20000) as blocker:
        window.run_benchmark("quick")
    assert "MemoryError: cannot allocate the STREAM arrays" in blocker.args[0]
    assert window.benchmarks.error.isVisibleTo(window.benchmarks)
    assert "MemoryError" in window.benchmarks.error.text()
    assert window.live_report.benchmarks is None
    # usable: another run works and clears the message
    window.benchmark_command = lambda mode: fake_child_argv("ok")
    with qtbot.waitSignal(window.bench.finished, timeout=20000):
        window.run_benchmark("quick")
    assert not window.benchmarks.error.isVisibleTo(window.benchmarks)


def test_benchmark_error_line_is_reported(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("error")
    with qtbot.waitSignal(window.bench.failed, timeout=20000) as blocker:
        window.run_benchmark("quick")
    assert blocker.args[0] == "numba is not installed"


def test_benchmark_that_cannot_start_is_reported(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: ["/nonexistent/accelgui-child", "--mode", mode]
    with qtbot.waitSignal(window.bench.failed, timeout=20000) as blocker:
        window.run_benchmark("quick")
    assert "could not start" in blocker.args[0]
    assert not window.bench.is_running()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_escape_cancels_a_running_benchmark(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("slow")
    with qtbot.waitSignal(window.bench.progress, timeout=20000):
        window.run_benchmark("quick")
    pid = window.bench._proc.processId()
    assert _alive(pid)
    # the timeout only bounds a hang, it is no speed check
    with qtbot.waitSignal(window.bench.cancelled, timeout=20000):
        window.act_cancel.trigger()  # the Esc shortcut's action
    assert window.act_cancel.shortcut().toString() == "Esc"
    assert not window.bench.is_running()
    assert not _alive(pid)
    assert "cancelled" in window.benchmarks.stage.text()


def test_cancel_kills_a_child_that_ignores_sigterm(qtbot):
    window = make_window(qtbot, cpu_only_report())
    stubborn = ("import signal, sys, time, json\n"
                "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                "print(json.dumps({'type': 'progress', 'stage': 'x', 'fraction': 0.1}), flush=True)\n"
                "time.sleep(60)\n")
    window.benchmark_command = lambda mode: [sys.executable, "-c", stubborn]
    with qtbot.waitSignal(window.bench.progress, timeout=20000):
        window.run_benchmark("quick")
    pid = window.bench._proc.processId()
    assert _alive(pid)
    # the timeout only bounds a hang (SIGKILL follows SIGTERM after 1 s), it is no speed check
    with qtbot.waitSignal(window.bench.cancelled, timeout=20000):
        window.cancel_benchmark()
    assert not window.bench.is_running()
    assert not _alive(pid)


def test_closing_the_window_during_a_benchmark_stops_the_child(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("slow")
    with qtbot.waitSignal(window.bench.progress, timeout=20000):
        window.run_benchmark("quick")
    pid = window.bench._proc.processId()
    window.close()
    assert not window.bench.is_running()
    assert not _alive(pid)


# -- language ----------------------------------------------------------------------------------

def test_language_switch_shows_chinese_throughout(qtbot):
    window = make_window(qtbot, built_rich_report())
    window.set_language("zh_CN")
    settle(qtbot, window)
    sidebar = [window.sidebar.item(i).text() for i in range(window.sidebar.count())]
    assert sidebar == ["\u6982\u89c8", "\u786c\u4ef6", "\u57fa\u51c6\u6d4b\u8bd5", "\u76d1\u89c6\u5668", "\u5b66\u4e60\u8def\u7ebf", "\u53c2\u8003\u8d44\u6599", "\u62a5\u544a", "\u96c6\u7fa4"]
    overview = texts(show(window, "overview"))
    assert "\u8fd9\u53f0\u673a\u5668" in overview and "\u7ed3\u8bba" in overview
    assert "GPU \u8ba1\u7b97" in overview            # a route title from the knowledge base, in Chinese
    assert "Verdict" not in overview
    routes = texts(show(window, "routes"))
    assert "\u5b66\u4e60\u8def\u7ebf" in routes
    window.open_route("gpu")
    detail = texts(window.routes)
    assert "\u68c0\u67e5\u9a71\u52a8\u5e76\u5b89\u88c5 GPU \u6846\u67b6" in detail   # step title in Chinese
    assert "\u5b66\u4e60\u8def\u5f84" in detail
    assert window.act_quick.text() == "\u8fd0\u884c\u57fa\u51c6\u6d4b\u8bd5\uff08\u5feb\u901f\uff09(&R)"      # with its mnemonic
    window.set_language("en")
    settle(qtbot, window)
    assert window.sidebar.item(0).text() == "Overview"
    assert "GPU computing" in texts(show(window, "overview"))


def test_chinese_overview_shows_the_devices_fix_in_chinese(qtbot):
    """A GPU with no driver bound (a recorded tree): its reason and fix read in Chinese on the
    Overview and the Hardware page, and in English again after switching back."""
    from accelgui.gui.workers import probe_machine

    report = probe_machine(os.path.join(FIXTURES, "machines", "acc-gpu-no-driver"))
    gpu = next(d for d in report.devices if d.kind == "gpu")
    fix_zh, reason_zh = (l10n.field_text(gpu, f, "zh") for f in ("fix", "readiness_reason"))
    assert gpu.readiness == "driver-missing" and fix_zh and reason_zh
    window = make_window(qtbot, report)
    window.set_language("zh_CN")
    settle(qtbot, window)
    overview = texts(show(window, "overview"))
    assert reason_zh in overview
    assert "\u5b89\u88c5 NVIDIA \u9a71\u52a8" in overview and "\u89e3\u51b3\u529e\u6cd5\uff1a" in overview
    assert gpu.fix not in overview and gpu.readiness_reason not in overview
    hardware = show(window, "hardware").all_text()
    assert fix_zh in hardware and gpu.fix not in hardware
    window.set_language("en")
    settle(qtbot, window)
    overview = texts(show(window, "overview"))
    assert "Install the NVIDIA driver" in overview and "\u5b89\u88c5 NVIDIA \u9a71\u52a8" not in overview


def test_chinese_hardware_page_has_no_raw_field_names_and_reestimates(qtbot):
    """The Hardware page labels every field in the chosen language (no report field name such
    as os_release or threads_per_core shows); probe messages render from their message when
    the probe wrote one; the advisor's estimates are re-made in Chinese."""
    from accelgui.gui.views.common import probe_message
    from accelgui.gui.workers import probe_machine

    report = probe_machine(os.path.join(FIXTURES, "machines", "acc-gpu-no-driver"))
    window = make_window(qtbot, report)
    window.set_language("zh_CN")
    settle(qtbot, window)
    hardware = show(window, "hardware").all_text()
    for raw in ("os_release", "threads_per_core", "vendor_id", "readiness_checks", "memory_bytes",
                "pci_class", "Distribution", "Threads per core"):
        assert raw not in hardware, raw
    assert "\u6bcf\u6838\u7ebf\u7a0b\u6570" in hardware and "\u672a\u68c0\u67e5" in hardware and "✗ \u672a\u901a\u8fc7" in hardware
    probe = {"error": "no USB bus in sysfs", "error_msg": l10n.msg("common.unknown")}
    assert probe_message(probe, "zh") == "\u672a\u77e5" and probe_message({"error": "x"}, "zh") == "x"
    est = window.report.estimates
    assert est["devices"][-1]["device"].startswith("CPU + \u7cfb\u7edf\u5185\u5b58")
    overview = texts(show(window, "overview"))
    assert "CPU + \u7cfb\u7edf\u5185\u5b58" in overview and "CPU + system memory" not in overview
    window.set_language("en")
    settle(qtbot, window)
    hardware = show(window, "hardware").all_text()
    assert "Threads per core" in hardware and "\u6bcf\u6838\u7ebf\u7a0b\u6570" not in hardware
    assert window.report.estimates["devices"][-1]["device"].startswith("CPU + system memory")


def test_hardware_filter_keeps_pages_and_groups_and_sizes_inline(qtbot):
    window = make_window(qtbot, rich_report())
    hardware = show(window, "hardware")
    hardware.filter.setText("cache")
    shown = tree_texts(hardware.tree)
    assert "Processor" in shown and "Caches" in shown
    assert "L1d\t48 KiB × 112" in shown and "kv_cache_bytes" not in shown
    hardware.filter.setText("")
    hardware.show_page("device-0")
    detail = tree_texts(hardware.tree)
    for group in ("Identity", "Bus", "Driver", "Memory", "Readiness, step by step"):
        assert group in detail
    assert "1. Device present" in detail and "0000:18:00.0" in detail


def test_every_ui_string_has_a_chinese_translation():
    """Each literal given to tr()/translate() in accelgui/gui has a finished zh_CN entry."""
    import ast
    import xml.etree.ElementTree as ET
    from importlib.resources import files

    ts = ET.fromstring(files("accelgui.resources").joinpath(
        "translations", "accelgui_zh_CN.ts").read_bytes())
    translated = set()
    for message in ts.iter("message"):
        t = message.find("translation")
        if t is not None and (t.text or "").strip() and t.get("type") not in ("unfinished", "obsolete", "vanished"):
            translated.add(message.findtext("source"))
    gui = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "accelgui", "gui")
    missing = []
    for root, _, names in os.walk(gui):
        for name in names:
            if not name.endswith(".py"):
                continue
            tree = ast.parse(open(os.path.join(root, name), encoding="utf-8").read())
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "l10n":
                    continue            # the message catalogue, checked by test_l10n
                fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                args = node.args
                if fname == "tr" and args and isinstance(args[0], ast.Constant):
                    text = args[0].value
                elif fname in ("translate", "_tr") and len(args) >= 2 and isinstance(args[1], ast.Constant):
                    text = args[1].value
                else:
                    continue
                if isinstance(text, str) and text not in translated:
                    missing.append(f"{name}: {text!r}")
    assert not missing, "untranslated: " + "; ".join(missing[:20])
    # and the compiled catalogue loads
    from PySide6.QtCore import QTranslator

    assert QTranslator().load(files("accelgui.resources").joinpath(
        "translations", "accelgui_zh_CN.qm").read_bytes())


# -- reports: open, compare, export ---------------------------------------------------------------

def _write_report(path, report):
    path.write_text(report.to_json(), encoding="utf-8")
    return str(path)


def test_open_a_saved_report_and_go_back_to_this_machine(qtbot, tmp_path):
    window = make_window(qtbot, cpu_only_report())
    path = _write_report(tmp_path / "other.json", built_rich_report())
    window.open_report_file(path)
    qtbot.waitUntil(lambda: not window.showing_live, timeout=20000)
    overview = texts(show(window, "overview"))
    assert "Report from lab-laptop-07" in overview and "Opened report: other.json" in overview
    assert "NVIDIA GeForce RTX 4070 Laptop GPU" in overview
    assert window.windowTitle() == "Report: lab-laptop-07"        # the machine, not the file
    assert window.source_label.text() == window.windowTitle()
    assert "showing other.json" in window.status_text()
    window.show_live()
    assert "No accelerator found" in texts(show(window, "overview"))


def test_opening_a_broken_report_says_why_without_a_dialog(qtbot, tmp_path):
    window = make_window(qtbot, cpu_only_report())
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    window.open_report_file(str(bad))
    qtbot.waitUntil(lambda: window.notice.isVisible(), timeout=20000)
    assert "bad.json" in window.notice.label.text() and "not a JSON report" in window.notice.label.text()
    assert window.showing_live


def test_compare_two_reports_shows_a_table(qtbot, tmp_path):
    window = make_window(qtbot, cpu_only_report())
    a = _write_report(tmp_path / "a.json", cpu_only_report())
    faster = cpu_only_report().replace(memory=cpu_only_report().memory.__class__(
        total_bytes=32 * 1024 ** 3, available_bytes=30 * 1024 ** 3, numa_nodes=1))
    b = _write_report(tmp_path / "b.json", faster)
    view = show(window, "reports")
    view.path_a.setText(a)
    view.path_b.setText(b)
    assert view.compare()
    cells = [[view.table.item(r, c).text() for c in range(view.table.columnCount())]
             for r in range(view.table.rowCount())]
    row = next(r for r in cells if r[0] == "System memory")       # in words, not total_bytes
    assert row[3] == "\u00d7 2"                        # a doubling reads as a factor
    assert "differences" in view.result_label.text()


def test_compare_in_chinese_shows_device_fixes_in_chinese(qtbot, tmp_path):
    from accelgui.gui.workers import probe_machine

    report = probe_machine(os.path.join(FIXTURES, "machines", "acc-gpu-no-driver"))
    gpu = next(d for d in report.devices if d.kind == "gpu")
    fixed = report.replace(devices=[d.replace(readiness="ready", fix=None, fix_zh=None, fix_msg=None,
                                              readiness_reason=None, readiness_reason_zh=None,
                                                  readiness_reason_msg=None)
                                    if d is gpu else d for d in report.devices])
    window = make_window(qtbot, report)
    window.set_language("zh_CN")
    settle(qtbot, window)
    view = show(window, "reports")
    view.path_a.setText(_write_report(tmp_path / "a.json", report))
    view.path_b.setText(_write_report(tmp_path / "b.json", fixed))
    assert view.compare()
    assert view.all_button.isVisible() and view.table.rowCount() == 1      # readiness first: it matters
    view.all_button.setChecked(True)                                       # then the rest
    cells = [[view.table.item(r, c).text() for c in range(view.table.columnCount())]
             for r in range(view.table.rowCount())]
    from accelgui.export.labels import field_label

    row = next(r for r in cells if r[0].endswith(": " + field_label("fix", "zh")))
    assert row[1] == l10n.field_text(gpu, "fix", "zh") and gpu.fix not in row


def test_compare_with_the_report_shown_now_and_a_bad_file(qtbot, tmp_path):
    window = make_window(qtbot, cpu_only_report())
    view = show(window, "reports")
    view.path_b.setText(_write_report(tmp_path / "rich.json", built_rich_report()))
    assert view.compare()  # A empty = the report shown now
    assert view.table.rowCount() > 0
    view.path_b.setText(str(tmp_path / "missing.json"))
    assert not view.compare()
    assert "missing.json" in view.result_label.text()
    assert view.table.rowCount() == 0


def test_export_dialog_redacts_by_default_and_writes_the_file(qtbot, tmp_path):
    from accelgui.gui.export_dialog import ExportDialog

    report = built_rich_report()
    dialog = ExportDialog(report, fmt="json", directory=str(tmp_path))
    qtbot.addWidget(dialog)
    assert dialog.redact.isChecked()
    assert dialog.path.text().endswith(".json")
    assert dialog.save()
    data = json.loads(open(dialog.written, encoding="utf-8").read())
    assert data["platform"]["hostname"] is None
    assert "GPU-5b7c2e1a" not in json.dumps(data)
    assert data["devices"][0]["name"] == "NVIDIA GeForce RTX 4070 Laptop GPU"


def test_export_dialog_follows_the_format_and_can_keep_details(qtbot, tmp_path):
    from accelgui.gui.export_dialog import ExportDialog

    dialog = ExportDialog(built_rich_report(), fmt="json", directory=str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("markdown"))
    assert dialog.path.text().endswith(".md")
    dialog.redact.setChecked(False)
    assert dialog.save(), dialog.error.text()
    assert "lab-laptop-07" in open(dialog.written, encoding="utf-8").read()


def test_export_dialog_failure_is_clear_and_leaves_nothing(qtbot, tmp_path):
    from accelgui.gui.export_dialog import ExportDialog

    dialog = ExportDialog(built_rich_report(), fmt="json")
    qtbot.addWidget(dialog)
    target = tmp_path / "no-such-dir" / "report.json"
    dialog.path.setText(str(target))
    assert not dialog.save()
    assert dialog.error.isVisibleTo(dialog)
    assert "no-such-dir" in dialog.error.text()
    assert not target.exists()
    assert dialog.result() == 0  # still open


# -- routes and progress ------------------------------------------------------------------------

def test_route_learning_path_checkbox_persists_and_reruns_the_advisor(qtbot, tmp_path):
    from accelgui.progress import load_done

    window = make_window(qtbot, built_rich_report())
    window.open_route("gpu")
    assert window.current_page() == "routes"
    detail = texts(window.routes)
    assert "Learning path" in detail and "Check the driver and install a GPU framework" in detail
    box = window.routes.checkboxes["gpu.setup-check"]
    assert not box.isChecked()
    box.click()
    assert "gpu.setup-check" in load_done()
    qtbot.waitUntil(lambda: window.busy is None and "gpu.setup-check" in window.done, timeout=20000)
    gpu = next(r for r in window.live_report.routes if r.id == "gpu")
    assert "gpu.setup-check" not in gpu.next_steps      # the advisor ran again
    # a new window (a later session) shows it ticked
    again = make_window(qtbot, built_rich_report())
    again.done = load_done()
    again.refresh()
    again.open_route("gpu")
    assert again.routes.checkboxes["gpu.setup-check"].isChecked()
    again.routes.checkboxes["gpu.setup-check"].click()
    assert "gpu.setup-check" not in load_done()


def test_resource_links_open_in_the_browser(qtbot, monkeypatch):
    import accelgui.gui.views.routes as routes

    opened = []
    monkeypatch.setattr(routes, "open_url", opened.append)
    window = make_window(qtbot, built_rich_report())
    window.open_route("gpu")
    label = window.routes.findChild(QLabel, "resources-gpu.setup-check")
    assert label is not None and "https://pytorch.org/get-started/locally/" in label.text()
    label.linkActivated.emit("https://pytorch.org/get-started/locally/")
    assert opened == ["https://pytorch.org/get-started/locally/"]


def test_overview_next_step_opens_its_route(qtbot):
    window = make_window(qtbot, built_rich_report())
    show(window, "overview")
    window.overview.open_route.emit("cpu")
    assert window.current_page() == "routes" and window.routes.current_route == "cpu"
    window.routes.show_list()
    assert window.routes.stack.currentIndex() == 0


# -- window chrome --------------------------------------------------------------------------------

def test_sidebar_keyboard_navigation_and_shortcuts(qtbot):
    window = make_window(qtbot, built_rich_report())
    window.sidebar.setFocus()
    qtbot.keyClick(window.sidebar, Qt.Key.Key_Down)
    assert window.current_page() == "hardware"
    qtbot.keyClick(window.sidebar, Qt.Key.Key_Down)
    assert window.current_page() == "benchmarks"
    shortcuts = {a.shortcut().toString() for a in window.actions()}
    assert {"Ctrl+O", "Ctrl+E", "Ctrl+B", "Esc", "F1"} <= shortcuts
    for i, page in enumerate(PAGES):
        window.act_pages[i].trigger()
        assert window.current_page() == page


def test_about_lists_versions_without_importing_numba(qtbot):
    from importlib import metadata

    from PySide6.QtCore import qVersion

    window = make_window(qtbot)
    text = window.about_text()
    assert qVersion() in text and "PySide6" in text and "Python" in text
    assert "Licence: MIT" in text and 'href="https://github.com/accelgui/accelgui"' in text
    try:
        assert metadata.version("numba") in text
    except metadata.PackageNotFoundError:
        assert "numba" in text
    # in a fresh process: in this one other tests have imported numba already
    code = ("import sys, os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
            "from accelgui.gui.app import create_app\n"
            "app = create_app([])\n"
            "from accelgui.gui.main_window import MainWindow, AppOptions\n"
            "w = MainWindow(AppOptions(probe=False)); text = w.about_text()\n"
            "print('numba' in text, 'numba' in sys.modules, 'llvmlite' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "True False False"


def test_status_bar_counts_probes(qtbot):
    window = make_window(qtbot, cpu_only_report())
    assert window.status_text().startswith("probes 3/5 ok")
    assert "no benchmark yet" in window.status_text()


def test_first_window_does_not_need_pyqtgraph_or_numba():
    code = ("import sys, os; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
            "from accelgui.gui.app import create_app\n"
            "app = create_app([])\n"
            "from accelgui.gui.main_window import MainWindow, AppOptions\n"
            "w = MainWindow(AppOptions(probe=False)); w.show(); app.processEvents()\n"
            "print(sorted(m for m in ('pyqtgraph', 'numba', 'llvmlite') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_run_app_refuses_a_missing_report_clearly(capsys):
    from accelgui.gui.app import run_app

    assert run_app(["--report", "/nonexistent/report.json"]) == 1   # an input not read, as --format
    assert "no such file" in capsys.readouterr().err


def test_application_icon_ships_in_every_size(qtbot):
    from accelgui.gui.app import ICON_SIZES, app_icon

    icon = app_icon()
    assert not icon.isNull()
    sizes = {s.width() for s in icon.availableSizes()}
    assert set(ICON_SIZES) <= sizes


def test_run_app_shows_a_recorded_report(qtbot, monkeypatch):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from accelgui.gui import app as app_module

    seen = {}
    app = QApplication.instance()

    def check_and_quit():
        window = next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)
                       and w.isVisible()), None)
        if window is None or window.showing_live:
            QTimer.singleShot(50, check_and_quit)
            return
        seen["overview"] = texts(window.overview)
        window.close()
        app.exit(0)  # exit(), not quit(): quit() posts an event that would end the next loop

    app.setQuitOnLastWindowClosed(False)
    try:
        QTimer.singleShot(100, check_and_quit)
        assert app_module.run_app(["--report", RICH_JSON, "--lang", "en"]) == 0
    finally:
        app.setQuitOnLastWindowClosed(True)
    assert "Report from" in seen["overview"]


def test_qt_binding_keeps_reference_counts(qapp):
    """PySide6 6.12.0 on Python < 3.12 drops a reference to None on every call of a method
    returning void, and to True on every Signal.emit(): the app then aborts after a few
    thousand UI updates ("Fatal Python error: none_dealloc"). Python 3.12+ makes None and
    True immortal, which hides it; on 3.11 the pin in pyproject.toml must exclude it."""
    from PySide6.QtCore import QObject, Signal
    from PySide6.QtGui import QAction

    class Emitter(QObject):
        ping = Signal()

    action, emitter = QAction(), Emitter()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for i in range(50):
        action.setText(str(i))
        emitter.ping.emit()
    assert sys.getrefcount(None) >= none_before - 5, "None loses a reference per Qt call"
    assert sys.getrefcount(True) >= true_before - 5, "True loses a reference per emit()"


@pytest.mark.skipif(__import__("importlib").util.find_spec("numba") is None,
                    reason="numba is not installed (the benchmark child needs it)")
def test_real_benchmark_child_in_test_mode_fills_the_plots(qtbot, tmp_path, monkeypatch):
    """The real child (python -m accelgui.probes.kernels --mode test) through QProcess."""
    from accelgui.probes.kernels.client import benchmark_command

    # the child inherits this: its JIT cache goes here, never into the user's cache dir
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: benchmark_command("test")
    stages = []
    window.bench.progress.connect(lambda e: stages.append(e.get("stage")))
    with qtbot.waitSignal(window.bench.finished, timeout=240000):
        window.run_benchmark("quick")
    settle(qtbot, window)                   # the run is checked in a worker, then shown
    bench = window.live_report.benchmarks
    assert bench["cpu"]["stream"]["triad_gbps"] > 0
    assert "stream" in stages
    qtbot.waitUntil(lambda: not window._tasks and not window.busy, timeout=60000)   # kept, advised
    window.render_page("benchmarks")
    assert len(wait_for_plots(qtbot, window.benchmarks)) == 4    # with the history of this run


def test_dark_theme_gives_a_dark_palette_and_readable_badges(qtbot, qapp):
    from PySide6.QtGui import QPalette

    from accelgui.gui.app import apply_theme
    from accelgui.gui.views.common import Badge

    try:
        apply_theme(qapp, "dark")
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() < 128
        window = make_window(qtbot, built_rich_report())
        badges = window.overview.findChildren(Badge)
        assert badges and all(b.property("tone") != "none" for b in badges)
        text = window.palette().color(QPalette.ColorRole.Text)
        base = window.palette().color(QPalette.ColorRole.Base)
        assert abs(text.lightness() - base.lightness()) > 128  # text stays readable on cards
    finally:
        apply_theme(qapp, "light")
    assert qapp.palette().color(QPalette.ColorRole.Window).lightness() >= 128


def test_benchmark_outcome_follows_a_language_switch(qtbot):
    """After a failed run, switching to Chinese leaves no English in the run line."""
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("error")
    with qtbot.waitSignal(window.bench.failed, timeout=20000):
        window.run_benchmark("quick")
    view = window.benchmarks
    assert view.progress.format() == "failed" and "did not complete" in view.error.text()
    try:
        window.set_language("zh_CN")
        assert view.progress.format() not in ("failed", "")
        assert "did not complete" not in view.error.text()
        assert "numba is not installed" in view.error.text()   # the child's own message stays
        assert view.error.isVisibleTo(view)
    finally:
        window.set_language("en")
    assert view.progress.format() == "failed"


def test_a_recorded_tree_is_labelled_and_never_benchmarked(qtbot):
    """With --sysroot the pages say "Recorded: <tree>" and Run benchmark is refused with the
    reason instead of measuring this computer under the recorded hardware."""
    from accelgui.gui.workers import probe_machine

    machine = os.path.join(FIXTURES, "machines", "acc-gpu-no-driver")
    window = make_window(qtbot, probe_machine(machine), sysroot=machine)
    started = []
    window.bench.start = lambda *a, **k: started.append(a)
    assert window.windowTitle() == "Recorded: acc-gpu-no-driver"
    assert "Recorded: acc-gpu-no-driver" in texts(show(window, "overview"))
    assert "Recorded: acc-gpu-no-driver" in show(window, "hardware").all_text()
    assert window.status_text().startswith("Recorded: acc-gpu-no-driver")
    assert not window.act_quick.isEnabled() and "--sysroot" in window.act_quick.toolTip()
    window.run_benchmark("quick")
    assert not started
    assert not window.notice.isHidden() and "recorded tree" in window.notice.label.text()


def test_overview_is_not_rebuilt_for_what_it_does_not_show(qtbot):
    """Benchmark figures alone (the page shows none; their estimates come with the advisor)
    leave the overview's widgets as they are; new estimates rebuild the estimates section and
    nothing above it; a language switch rebuilds every section."""
    report = rich_report()
    window = make_window(qtbot, report)
    overview = show(window, "overview")

    def widgets():
        first = {name: (layout.itemAt(0) if layout.count() else None)
                 for name, (_box, layout, _key) in overview._sections.items()}
        return {name: item and (item.widget() or item.layout()) for name, item in first.items()}

    before = widgets()
    assert before["header"] is not None and before["machine"] is not None
    window.live_report = report.replace(benchmarks={"mode": "quick"})
    window.refresh()
    assert widgets() == before
    window.live_report = window.live_report.replace(estimates={"summary": ["x"]})
    window.refresh()
    after = widgets()
    assert after["estimates"] is not before["estimates"]
    assert all(after[n] is before[n] for n in ("header", "machine", "accelerators", "verdict"))
    window.set_language("zh_CN")
    assert all(widgets()[n] is not after[n] for n in ("header", "machine", "estimates"))
    window.set_language("en")


def test_title_names_the_machine_once(qtbot):
    window = make_window(qtbot, rich_report())
    assert "accelgui" not in window.windowTitle()       # Qt appends the application name


def test_settings_remember_language_page_geometry_and_redaction(qtbot, tmp_path, monkeypatch):
    from accelgui.gui import settings

    monkeypatch.setenv("ACCELGUI_CONFIG_DIR", str(tmp_path / "cfg"))
    window = make_window(qtbot, rich_report())
    window.set_language("zh_CN")
    show(window, "routes")
    window.resize(800, 590)          # the offscreen screen is small
    window.redact_shared = False
    window.close()
    assert settings.path().startswith(str(tmp_path / "cfg"))
    assert settings.value("ui/language") == "zh_CN" and settings.value("ui/page") == "routes"
    again = make_window(qtbot)
    assert again.size().height() == 590
    i18n.install("en")


def test_copy_follows_the_redaction_choice(qtbot):
    from PySide6.QtGui import QGuiApplication

    report = rich_report()
    window = make_window(qtbot, report)
    hardware = show(window, "hardware")
    hardware.copy_all()
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied["platform"]["hostname"] is None and "(redacted)" in hardware.copy_button.text()
    window.redact_shared = False
    hardware.copy_all()
    assert json.loads(QGuiApplication.clipboard().text())["platform"]["hostname"] == report.platform.hostname


def test_host_name_markup_is_shown_as_text(qtbot):
    report = rich_report()
    report = report.replace(platform=report.platform.replace(hostname="<h1>BIG</h1><img src=x>"))
    window = make_window(qtbot, report)
    labels = [w for w in window.findChildren(QLabel) if "<h1>BIG" in w.text()]
    assert labels and all(w.textFormat() == Qt.TextFormat.PlainText for w in labels if w.isVisible())


def test_compare_view_follows_language_and_the_shown_report(qtbot, tmp_path):
    report = rich_report()
    other = tmp_path / "other.json"
    other.write_text(report.replace(cpu=report.cpu.replace(logical_cpus=2)).to_json(), encoding="utf-8")
    window = make_window(qtbot, report)
    view = show(window, "reports")
    view.path_b.setText(str(other))
    assert view.compare()
    before = [view.table.item(i, 3).text() for i in range(view.table.rowCount())]
    assert any(t.startswith("-") for t in before)
    window.set_language("zh_CN")
    settle(qtbot, window)
    show(window, "reports")
    assert view._compared[0] == "zh"
    window.live_report = report.replace(cpu=report.cpu.replace(logical_cpus=8))
    window.refresh()
    show(window, "reports")
    assert view._compared[2] is window.live_report
    window.set_language("en")


def test_changes_from_a_doubling_on_read_as_a_factor():
    from accelgui.export.numbers import fmt_change

    assert fmt_change(11100.0) == "\u00d7 112" and fmt_change(12.5) == "+12.5 %"
    assert fmt_change(-40) == "-40.0 %" and fmt_change(None) == ""


def test_worker_errors_name_no_source_location():
    from accelgui.gui.workers import user_message
    from accelgui.report import ReportError

    assert user_message(ReportError("r.json: not a JSON report")) == "r.json: not a JSON report"
    assert user_message(KeyError("x")) == "KeyError: 'x'"


def test_tab_reaches_every_toolbar_button_and_skips_plain_text(qtbot):
    from PySide6.QtWidgets import QToolButton

    window = make_window(qtbot, rich_report())
    show(window, "hardware")
    window.sidebar.setFocus()
    seen = []
    for _ in range(20):
        qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_Tab)
        seen.append(window.focusWidget())
    buttons = {b for b in window.toolbar.findChildren(QToolButton) if b.isEnabled() and b.isVisible()}
    assert buttons and buttons <= set(seen)
    assert not [w for w in seen if isinstance(w, QLabel)]
    assert window.hardware.filter in seen and window.hardware.nav in seen and window.hardware.tree in seen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_hardware_label_is_a_raw_field_name(lang):
    """Every label on the Hardware pages is words: no report field name (snake_case) shows,
    whatever the report holds (the DGX fixture has dozens of detail fields)."""
    from accelgui.gui.views.hardware import hardware_pages

    for report in (rich_report(), built_rich_report(), cpu_only_report()):
        for page in hardware_pages(report, lang):
            for group in page.groups:
                assert "_" not in group.title
                for row in group.rows:
                    if row.key.startswith(("package ", "provider")):
                        continue                         # package names are names, not fields
                    assert "_" not in row.label, (page.title, row.label)


def test_an_unknown_page_is_refused(capsys):
    from accelgui.gui.app import run_app

    assert run_app(["--page", "nowhere"]) == 2
    assert "--page nowhere: not a page" in capsys.readouterr().err


def test_ladder_is_drawn_from_device_ladder_with_the_fix_at_the_first_failing_step():
    from accelgui.gui.views.hardware import ladder, ladder_rows

    dev = {"readiness": "no-access", "readiness_reason": "no access to /dev/accel0",
           "fix": "Add yourself to the render group", "ladder": [
               {"step": "present", "ok": True, "detail": None, "detail_msg": None},
               {"step": "driver", "ok": True, "detail": "intel_vpu", "detail_msg": None},
               {"step": "node", "ok": True, "detail": "/dev/accel/accel0", "detail_msg": None},
               {"step": "access", "ok": False, "detail": "denied",
                "detail_msg": l10n.msg("common.unknown")},
               {"step": "runtime", "ok": None, "detail": None, "detail_msg": None}]}
    rows = ladder_rows(dev, "en")
    labels = [r.label.strip() for r in rows]
    assert labels == ["1. Device present", "2. Driver bound", "3. Device node", "4. Access allowed",
                      "Fix", "5. Runtime found"]
    assert "no access to /dev/accel0" in rows[3].value and rows[4].value == dev["fix"]
    assert "intel_vpu" in rows[1].value and "not checked" in rows[5].value
    # an older report: the ladder follows from readiness and readiness_checks
    old = ladder({"readiness": "runtime-missing", "details": {"readiness_checks": {
        "driver": "ok", "device_node": "ok", "access": "ok", "runtime": "missing"}}})
    assert [s["ok"] for s in old] == [True, True, True, True, False]
    assert [s["ok"] for s in ladder({"readiness": "driver-missing"})] == [True, False, None, None, None]
    zh = ladder_rows(dict(dev, fix_zh="\u628a\u81ea\u5df1\u52a0\u5165 render \u7ec4"), "zh")
    assert zh[4].value == "\u628a\u81ea\u5df1\u52a0\u5165 render \u7ec4"


def test_a_device_page_shows_its_fix_in_full(qtbot):
    from accelgui.gui.workers import probe_machine

    report = probe_machine(os.path.join(FIXTURES, "machines", "acc-gpu-no-driver"))
    window = make_window(qtbot, report)
    hardware = show(window, "hardware")
    hardware.show_page("device-0")
    assert not hardware.fix_panel.isHidden()
    assert hardware.fix_panel.text() == "Fix: " + report.devices[0].fix
    hardware.show_page("summary")
    assert hardware.fix_panel.isHidden()


# -- the learner's goal --------------------------------------------------------------------------

#: a learner who has set up the GPU and trained a first model on it (as in test_goals)
GPU_BASICS = ("cpu.know-your-cpu", "cpu.numpy-vectorise", "gpu.setup-check", "gpu.gpu-arrays",
              "gpu.train-pytorch")


def advised_window(qtbot, report, **options):
    """A window that got its routes from the advisor (with the progress file's steps and goal)."""
    window = make_window(qtbot, report, **options)
    window.advise("live")
    settle(qtbot, window)
    return window


def shown_next_steps(window) -> list[str]:
    """The step titles the Overview's Next steps card shows, in order."""
    import re

    show(window, "overview")
    texts(window.overview)          # let the rebuilt page appear
    out = []
    for label in window.overview.findChildren(QLabel):
        m = re.match(r"\d+\. <a href='route:[^']*'>(.*?)</a>", label.text())
        if m and label.isVisibleTo(window.overview):
            out.append(m.group(1))
    return out


def advisor_next_steps(report, done, goal, n=3) -> list[str]:
    """The titles of the advisor's own overall next steps for this report, progress and goal."""
    from accelgui import advisor
    from accelgui.gui.views.common import html_escape
    from accelgui.gui.views.overview import step_title
    from accelgui.knowledge import load_knowledge

    kb = load_knowledge()
    steps = advisor.overall_next_steps(advisor.assess(report, kb, done, goal=goal), kb, n)
    return [html_escape(step_title(s, kb, "en")) for s in steps]


def test_goal_picker_shows_the_remembered_goal_with_labels_in_both_languages(qtbot):
    from accelgui import advisor, progress

    progress.set_goal("hpc")                    # as `accelgui --goal hpc` leaves it
    window = advised_window(qtbot, built_rich_report())
    show(window, "overview")
    picker = window.overview.goal_picker
    assert picker.goal() == "hpc" and picker.currentText() == advisor.goal_label("hpc", "en")
    assert [picker.itemData(i) for i in range(picker.count())] == ["", *advisor.GOALS]
    assert picker.itemText(0) == "No particular goal"
    assert picker.accessibleName() == "Learning goal"
    assert picker.focusPolicy() & Qt.FocusPolicy.TabFocus
    buddy = [lb for lb in window.overview.findChildren(QLabel) if lb.buddy() is picker]
    assert buddy and buddy[0].text() == "My &goal:"
    window.set_language("zh_CN")
    settle(qtbot, window)
    picker = window.overview.goal_picker
    assert picker.goal() == "hpc"
    assert [picker.itemText(i) for i in range(1, picker.count())] == \
        [advisor.goal_label(g, "zh") for g in advisor.GOALS]
    assert picker.itemText(0) != "No particular goal" and picker.accessibleName() != "Learning goal"
    window.set_language("en")


def test_choosing_a_goal_saves_it_and_reranks_the_next_steps_without_probing(qtbot, monkeypatch):
    import accelgui.gui.main_window as mw
    from accelgui import progress
    from accelgui.gui.views.common import Card

    for sid in GPU_BASICS:
        progress.mark_done(sid)
    monkeypatch.setattr(mw, "probe_machine", lambda *a: pytest.fail("probed again"))
    report = built_rich_report()
    window = advised_window(qtbot, report)
    done = frozenset(GPU_BASICS)
    assert shown_next_steps(window) == advisor_next_steps(report, done, None)

    def choose(goal):
        picker = window.overview.goal_picker
        index = picker.findData(goal)
        picker.setCurrentIndex(index)
        picker.activated.emit(index)            # what a click or an arrow key sends
        settle(qtbot, window)
        return shown_next_steps(window)

    serve = choose("serve-llm")
    assert progress.load_goal() == "serve-llm" and window.overview.goal_picker.goal() == "serve-llm"
    assert serve == advisor_next_steps(report, done, "serve-llm")
    train = choose("train")
    assert progress.load_goal() == "train"
    assert train == advisor_next_steps(report, done, "train")
    assert serve[0] != train[0], (serve, train)
    # the Routes page puts the routes serving the goal first
    routes_text = texts(show(window, "routes"))
    order = [card.property("route_id") for card in window.routes.findChildren(Card, "card")
             if card.isVisibleTo(window.routes)]
    from accelgui.advisor import route_goals

    serving = [rid for rid in order if "train" in route_goals().get(rid, ())]
    assert serving and order[:len(serving)] == serving and len(serving) < len(order)
    assert "The routes for your goal, Train models, come first" in routes_text
    # "No particular goal" forgets it
    none = choose("")
    assert progress.load_goal() is None and window.overview.goal_picker.goal() is None
    assert none == advisor_next_steps(report, done, None)
    assert "routes for your goal" not in texts(show(window, "routes"))


def goal_lines(view) -> list[str]:
    texts(view)
    return [w.text() for w in view.findChildren(QLabel, "goalLine") if w.isVisibleTo(view)]


def test_a_saved_goal_is_shown_on_the_overview_and_routes_page_and_clearable(qtbot):
    from accelgui import progress

    progress.set_goal("hpc")                    # saved by an earlier run: it ranks this one too
    window = advised_window(qtbot, built_rich_report())
    assert window.live_report.advice["goal_source"] == "saved"
    line = ("Goal: Scientific / HPC computing (saved; choose “No particular goal” or run "
            "accelgui --goal none to clear it)")
    assert goal_lines(show(window, "overview")) == [line]
    assert goal_lines(show(window, "routes")) == [line]
    window.set_language("zh_CN")
    settle(qtbot, window)
    zh = goal_lines(show(window, "overview"))
    assert zh and zh[0].startswith("\u76ee\u6807\uff1a") and "--goal none" in zh[0]
    window.set_language("en")
    settle(qtbot, window)
    picker = window.overview.goal_picker
    picker.setCurrentIndex(0)                   # "No particular goal"
    picker.activated.emit(0)
    settle(qtbot, window)
    assert progress.load_goal() is None and window.live_report.advice["goal"] is None
    assert goal_lines(show(window, "overview")) == [] and goal_lines(show(window, "routes")) == []


def test_the_overview_shows_the_reports_own_start_here_with_its_reasons(qtbot):
    """The Overview reads "Start here" from the report (advice.start_here), not from its own
    ranking: a report that says otherwise is shown as it says, reasons included."""
    from accelgui.export.advice import build
    from accelgui.knowledge import load_knowledge

    kb = load_knowledge()
    report = built_rich_report()
    report = report.replace(routes=advisor_assess(report, kb))
    advice = build(report.routes, kb)
    advice["start_here"] = advice["start_here"][::-1]
    advice["start_here"][0]["reason_msg"] = {"en": "because the report says so", "zh": "\u56e0\u4e3a"}
    window = make_window(qtbot, report.replace(advice=advice))
    assert shown_next_steps(window) == [e["title"] for e in advice["start_here"]]
    reasons = [w.text() for w in window.overview.findChildren(QLabel, "startReason")]
    assert reasons[0] == "because the report says so" and len(reasons) == len(advice["start_here"])


def test_the_apps_own_goal_option_saves_and_clears(capsys):
    from accelgui import progress
    from accelgui.gui.app import _parse, _refusal

    assert _refusal(_parse(["--goal", "hpc"])[0]) is None and progress.load_goal() == "hpc"
    assert _refusal(_parse(["--goal", "none"])[0]) is None and progress.load_goal() is None
    assert "Goal cleared" in capsys.readouterr().err
    problem, code = _refusal(_parse(["--goal", "fly"])[0])
    assert "unknown goal 'fly'" in problem and code == 2 and progress.load_goal() is None


def advisor_assess(report, kb):
    from accelgui import advisor

    return advisor.assess(report, kb)


def test_the_goal_picked_in_the_app_is_the_one_the_cli_ranks_for(qtbot):
    from accelgui import progress

    window = advised_window(qtbot, built_rich_report())
    picker = window.overview.goal_picker
    picker.setCurrentIndex(picker.findData("edge"))
    picker.activated.emit(picker.currentIndex())
    settle(qtbot, window)
    assert progress.load_goal() == "edge"
    out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--sysroot",
                          os.path.join(FIXTURES, "machines", "cpu-intel-desktop")],
                         capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert out.returncode == 0, out.stderr
    assert {r.get("goal") for r in json.loads(out.stdout)["routes"]} == {"edge"}


def test_arrow_keys_on_the_goal_picker_keep_the_focus_through_the_rebuild(qtbot):
    from accelgui import progress

    window = advised_window(qtbot, built_rich_report())
    show(window, "overview")
    old = window.overview.goal_picker
    old.setFocus()
    qtbot.waitUntil(old.hasFocus, timeout=5000)
    qtbot.keyClick(old, Qt.Key.Key_Down)        # "No particular goal" -> the first goal
    settle(qtbot, window)
    from accelgui import advisor

    assert progress.load_goal() == advisor.GOALS[0]
    new = window.overview.goal_picker
    assert new is not old and new.goal() == advisor.GOALS[0]
    qtbot.waitUntil(new.hasFocus, timeout=5000)
    # Tab moves on: a later rebuild leaves the focus where the user went
    qtbot.keyClick(new, Qt.Key.Key_Tab)
    assert not new.hasFocus()
    window.set_step_done("cpu.know-your-cpu", True)
    settle(qtbot, window)
    texts(window.overview)
    assert not window.overview.goal_picker.hasFocus()


@pytest.mark.parametrize("machine, first", [("acc-coral-pcie", "edge.device-check"),
                                            ("acc-radeon-desktop", "gpu.setup-check")])
def test_overview_starts_an_accelerator_owner_with_their_device(qtbot, machine, first):
    from accelgui import advisor
    from accelgui.gui.views.overview import step_title
    from accelgui.gui.workers import probe_machine
    from accelgui.knowledge import load_knowledge

    report = probe_machine(os.path.join(FIXTURES, "machines", machine))
    window = advised_window(qtbot, report)
    kb = load_knowledge()
    assert advisor.overall_next_steps(window.live_report.routes, kb, 1) == [first]
    shown = shown_next_steps(window)
    assert shown == advisor_next_steps(report, frozenset(), None)
    assert shown[0] == step_title(first, kb, "en")


def test_overview_next_steps_leave_out_steps_ticked_since_the_advice():
    from accelgui import advisor
    from accelgui.gui.views.overview import top_next_steps
    from accelgui.knowledge import load_knowledge

    kb = load_knowledge()
    report = built_rich_report()
    report = report.replace(routes=advisor.assess(report, kb))     # an older report: no advice
    before = top_next_steps(report, kb)
    assert len(before) == 3 and all(kb.steps[s]["route"] == r for r, s in before)
    assert [s for _, s in before] == advisor.overall_next_steps(report.routes, kb, 3)
    # the report's "Start here" without the ticked step, until the new advice arrives
    after = top_next_steps(report, kb, done={before[0][1]})
    assert after == before[1:]


def test_a_hand_edited_unknown_goal_counts_as_none_in_the_app(qtbot):
    from accelgui import progress

    path = progress.progress_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"version": 1, "done": {}, "goal": "world-domination"}, f)
    window = advised_window(qtbot, built_rich_report())
    assert window.advice_error is None and window.live_report.routes
    assert window.overview.goal_picker.goal() is None
    assert shown_next_steps(window) == advisor_next_steps(built_rich_report(), frozenset(), None)


def test_overview_says_what_runs_at_a_usable_speed_and_what_merely_fits(qtbot):
    """Before any benchmark: the CPU's figure comes from its memory's specification, a card
    whose driver is missing is estimated for once it is installed, and the table shows the
    largest model at a usable speed beside the largest that fits."""
    from accelgui.report import Device, Memory

    GiB = 1 << 30
    card = Device(kind="gpu", vendor="nvidia", name="NVIDIA GeForce RTX 4070", bus="pci",
                  address="0000:01:00.0", pci_id="10de:2786", readiness="driver-missing",
                  details={"memory_bytes": 12 * GiB, "memory_bandwidth_gbps": 504})
    report = cpu_only_report().replace(
        devices=[card], benchmarks=None,
        memory=Memory(total_bytes=64 * GiB, available_bytes=60 * GiB, bandwidth_spec_gbps=89.6,
                      bandwidth_spec_source="smbios"))
    window = make_window(qtbot, report)
    window.advise("live")
    settle(qtbot, window)
    shown = texts(show(window, "overview"))
    assert "Runs at a usable speed (5+ tokens/s)" in shown and "Largest that fits" in shown
    assert "(once its driver is installed)" in shown
    assert shown.count("tokens/s (specification)") >= 2      # the card and the CPU


# -- which machine is shown; replacing it asks first -----------------------------------------------

def test_replacing_an_opened_report_asks_first_and_views_hear_the_source(qtbot, tmp_path):
    window = make_window(qtbot, cpu_only_report())
    heard = []
    window.overview.set_source = heard.append            # any view with set_source hears it
    window.open_report_file(_write_report(tmp_path / "other.json", built_rich_report()))
    qtbot.waitUntil(lambda: not window.showing_live, timeout=20000)
    assert heard[-1].kind == "report" and heard[-1].name == "lab-laptop-07" and not heard[-1].is_live
    asked = []
    window.confirm_replace = lambda: asked.append(1) or False     # "No"
    window.benchmark_command = lambda mode: fake_child_argv("ok")
    window.act_quick.trigger()                                     # Ctrl+B
    window.show_live_and_reprobe()                                 # F5
    assert asked == [1, 1] and not window.showing_live and not window.bench.is_running()
    assert window.windowTitle() == "Report: lab-laptop-07"
    window.confirm_replace = lambda: True                          # "Yes": this computer
    with qtbot.waitSignal(window.bench.finished, timeout=20000):
        window.act_quick.trigger()
    assert window.showing_live and heard[-1].is_live and window.source_label.text().startswith("This computer")


def test_the_toolbar_button_runs_what_ran_last(qtbot):
    window = make_window(qtbot, cpu_only_report())
    window.benchmark_command = lambda mode: fake_child_argv("ok")
    with qtbot.waitSignal(window.bench.finished, timeout=20000):
        window.run_benchmark("full")
    assert window.bench_button.defaultAction() is window.act_full
    assert window.bench_button.text() == window.act_full.text().replace("&", "")
    with qtbot.waitSignal(window.bench.finished, timeout=20000):
        window.run_benchmark("quick")
    assert window.bench_button.defaultAction() is window.act_quick


def test_the_opening_message_ends_when_the_report_is_open_or_failed(qtbot, tmp_path):
    window = make_window(qtbot, cpu_only_report())
    path = _write_report(tmp_path / "other.json", built_rich_report())
    window.open_report_file(path)
    assert window.statusBar().currentMessage().startswith("Opening ")
    qtbot.waitUntil(lambda: not window.showing_live, timeout=20000)
    assert window.statusBar().currentMessage() == "" and window.state.opening is None
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    window.open_report_file(str(bad))
    qtbot.waitUntil(lambda: window.notice.isVisible(), timeout=20000)
    assert window.statusBar().currentMessage() == "" and window.state.opening is None


def test_the_window_is_never_larger_than_the_screen(qtbot):
    from PySide6.QtGui import QGuiApplication

    free = QGuiApplication.primaryScreen().availableGeometry()      # offscreen: 800x600
    window = make_window(qtbot)
    assert window.width() <= free.width() and window.height() <= free.height()
    assert window.minimumWidth() <= free.width() and window.minimumHeight() <= free.height()


def test_a_scale_factor_of_two_opens_a_window_that_fits(tmp_path):
    code = ("import sys\n"
            "from accelgui.gui.app import create_app\n"
            "app = create_app([])\n"
            "from accelgui.gui.main_window import MainWindow, AppOptions\n"
            "w = MainWindow(AppOptions(probe=False)); w.show(); app.processEvents()\n"
            "free = w.screen().availableGeometry()\n"
            "print(w.width() <= free.width(), w.height() <= free.height(), w.width() < 1280)\n")
    env = dict(os.environ, QT_SCALE_FACTOR="2", QT_QPA_PLATFORM="offscreen",
               ACCELGUI_CONFIG_DIR=str(tmp_path), ACCELGUI_DATA_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "True"]


def test_a_live_session_starts_with_the_last_stored_benchmark(qtbot, monkeypatch):
    from accelgui import history
    from accelgui.gui import main_window

    probed = cpu_only_report()
    section = built_rich_report().benchmarks
    history.record(probed.to_dict(), section, when="2026-11-30T10:00:00+00:00")
    monkeypatch.setattr(main_window, "probe_machine", lambda sysroot, timeout: probed)
    report, stored = main_window._probe_job("/", 5.0)
    assert report is probed and stored["cpu"] == history.latest(history.machine_key(probed.to_dict()))["cpu"]
    assert any(n.get("id") == "figures.notice.from_history" for n in stored["notices"] if isinstance(n, dict))
    assert main_window._probe_job("/srv/tree", 5.0)[1] is None       # a recorded tree: never
    window = make_window(qtbot)
    window.options.probe = True
    window.probe()
    qtbot.waitUntil(lambda: window.live_report is not None and bool(window.live_report.benchmarks), timeout=20000)
    assert window.state.history_entry is not None
    assert "last benchmark on 2026-11-30 (kept from an earlier run)" in window.status_text()


def test_every_readiness_value_has_a_colour_and_the_dialog_every_export_format():
    from accelgui.export import EXTENSIONS, FORMATS
    from accelgui.gui import export_dialog
    from accelgui.gui.views.common import READINESS_COLOURS
    from accelgui.report import READINESS

    assert set(READINESS) <= set(READINESS_COLOURS)
    assert export_dialog.FORMATS == tuple(FORMATS) and set(EXTENSIONS) == set(FORMATS)


# -- details: the Reference page's words, the goal in view, every vector feature ------------------

def test_the_reference_page_speaks_the_language_the_app_starts_in(qtbot):
    window = make_window(qtbot, built_rich_report(), lang="zh_CN")
    page = show(window, "reference")
    qtbot.waitUntil(lambda: page.table.rowCount() > 0, timeout=10000)
    assert page.title.text() == l10n.tr("knowledge.reference.title", "zh") != "Reference tables"
    assert page.picker_label.text() == l10n.tr("knowledge.reference.table", "zh")


def test_my_goal_is_in_view_at_1280x800(qtbot):
    from PySide6.QtCore import QPoint

    window = make_window(qtbot, built_rich_report())
    window.resize(1280, 800)
    page = show(window, "overview")
    picker = page.goal_picker
    viewport = page._area.viewport()
    qtbot.waitUntil(lambda: picker.isVisible())
    assert picker.mapTo(viewport, QPoint(0, picker.height())).y() <= viewport.height()
    assert picker.label.isVisible()


def test_the_vector_features_are_never_cut_before_avx512():
    from accelgui.gui.views.overview import feature_summary

    x86 = ["sse", "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "f16c", "fma", "avx2", "bmi2",
           "avx_vnni", "sha", "vaes", "gfni", "avx512f", "avx512dq", "avx512bw", "avx512_vnni",
           "amx_tile", "amx_int8"]
    text = feature_summary(x86)
    assert text.endswith("avx512 (f, dq, bw, vnni), amx (tile, int8)") and "…" not in text
    assert feature_summary(["neon", "sve", "sve2"]) == "neon, sve, sve2"


def test_a_run_that_finishes_before_the_first_probe_is_kept_once_it_lands(qtbot, monkeypatch):
    from accelgui import history
    from accelgui.gui import main_window

    probed = cpu_only_report()
    section = built_rich_report().benchmarks
    monkeypatch.setattr(main_window, "probe_machine", lambda sysroot, timeout: probed)
    window = make_window(qtbot)
    window._bench_finished(dict(section))              # no report yet: nothing to file it under
    qtbot.waitUntil(lambda: not window._tasks, timeout=20000)
    key = history.machine_key(probed.to_dict())
    assert history.runs(key) == []
    window.probe()
    qtbot.waitUntil(lambda: len(history.runs(key)) == 1, timeout=20000)
    assert window.live_report.benchmarks["cpu"] == section["cpu"]
