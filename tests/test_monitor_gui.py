"""The Monitor page: rows of a recorded tree (AMD GPU, Intel NPU, fake-NVML NVIDIA GPU) updating,
sampling only while shown, pause, export, and benchmark stages recorded into the result."""

from __future__ import annotations

import csv
import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from gui_support import cpu_only_report, fake_child_argv
from monitor_support import TelemetryTree, gpu, monitor_nvml

from accelgui.gui.main_window import AppOptions, MainWindow
from accelgui.probes.context import ProbeContext
from accelgui.probes.monitor import Sampler


@pytest.fixture
def window(qtbot, tmp_path):
    tree = TelemetryTree(tmp_path / "root")
    nv = monitor_nvml([gpu(0)])
    made = []

    def make():
        made.append(Sampler(ProbeContext(tree.root), nvml=nv))
        return made[-1]

    w = MainWindow(AppOptions(probe=False, monitor_sampler=make))
    qtbot.addWidget(w)
    w.show()
    w.tree, w.made = tree, made
    return w


def test_rows_of_every_device_update_while_shown(qtbot, window):
    page = window.monitor
    assert not page._thread.isRunning()                 # never shown yet: no thread, no sampler
    window.monitor.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen >= 2, timeout=10000)
    ids = page.row_ids()
    assert ids[:2] == ["cpu", "memory"]
    assert {"nvidia-gpu:0000:1b:00.0", "amd-gpu:0000:03:00.0", "intel-npu:0000:00:0b.0"} <= set(ids)
    assert page.cell_text("amd-gpu:0000:03:00.0", 1) == "87.0"
    assert page.cell_text("nvidia-gpu:0000:1b:00.0", 3) == "60"
    assert page.cell_text("cpu", 5) == "3700"
    window.tree.plug_amd()
    window.tree.write("sys/devices/pci0000:00/0000:03:00.0/gpu_busy_percent", "12")
    qtbot.waitUntil(lambda: page.cell_text("amd-gpu:0000:03:00.0", 1) == "12.0", timeout=10000)


def test_hidden_or_paused_page_takes_no_samples(qtbot, window):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen >= 1, timeout=10000)
    window.show_page("overview")
    qtbot.wait(200)
    seen = page.samples_seen
    qtbot.wait(1200)
    assert page.samples_seen == seen
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen > seen, timeout=10000)
    page.set_paused(True)
    qtbot.wait(200)
    seen = page.samples_seen
    qtbot.wait(1200)
    assert page.samples_seen == seen


def test_export_csv_and_json(qtbot, window, tmp_path):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen >= 2, timeout=10000)
    page.set_paused(True)
    page.export_to(str(tmp_path / "s.csv"), "csv")
    page.export_to(str(tmp_path / "s.json"), "json")
    rows = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert {r["family"] for r in rows} >= {"cpu", "memory", "amd-gpu", "nvidia-gpu", "intel-npu"}
    data = json.load(open(tmp_path / "s.json"))
    assert len(data["samples"]) == len(page.history.snapshot()[0])


def test_benchmark_stages_are_marked_and_recorded(qtbot, window):
    page = window.monitor
    window.show_page("monitor")
    page.bench_started()
    for stage in ("stream", "stream", "fma"):
        page.bench_progress({"stage": stage, "fraction": 0.5})
        qtbot.wait(600)
    telemetry = page.bench_finished()
    stream, fma = telemetry["stages"]
    assert (stream["name"], fma["name"]) == ("stream", "fma")
    assert stream["start_s"] < stream["end_s"] <= fma["start_s"] < fma["end_s"]
    assert stream["cpu_mhz_mean"] == 3700 and stream["temp_c_max"] == 62.0    # the tree's, sampled
    assert [m["name"] for m in page.history.snapshot()[1]] == ["stream", "fma"]
    assert page.bench_finished() is None                # nothing recorded after the run


def test_a_benchmark_run_in_the_app_carries_its_stage_telemetry(qtbot, window):
    window.live_report = cpu_only_report()
    window.benchmark_command = lambda mode: fake_child_argv("ok")
    with qtbot.waitSignal(window.bench.finished, timeout=20000):
        window.run_benchmark("quick")
    telemetry = window.live_report.benchmarks["telemetry"]
    assert [s["name"] for s in telemetry["stages"]] == ["stream", "fma", "cache_sweep"]


def test_stage_marks_are_drawn_on_the_plots(qtbot, window):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    page.bench_started()
    page.bench_progress({"stage": "stream"})
    qtbot.waitUntil(lambda: bool(page._plots["util_pct"][2]), timeout=10000)
    page.bench_progress({"stage": "fma"})
    qtbot.waitUntil(lambda: len(page._plots["util_pct"][2]) == 2, timeout=10000)
    lines = page._plots["clock_mhz"][2]
    assert [ln.stage_key[0] for ln in lines] == ["stream", "fma"]
    assert all(-300 <= ln.value() <= 0 for ln in lines)
    page.bench_finished()
