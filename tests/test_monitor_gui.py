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
    qtbot.waitUntil(lambda: page.samples_seen >= 2 and page._plots is not None, timeout=10000)
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
    qtbot.waitUntil(lambda: page.samples_seen >= 2 and page._plots is not None, timeout=10000)
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
    qtbot.waitUntil(lambda: not window._tasks, timeout=20000)      # checked in a worker, then kept
    telemetry = window.live_report.benchmarks["telemetry"]
    assert [s["name"] for s in telemetry["stages"]] == ["stream", "fma", "cache_sweep"]


def test_stage_marks_are_drawn_on_the_plots(qtbot, window):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page._plots is not None, timeout=10000)
    page.bench_started()
    page.bench_progress({"stage": "stream"})
    qtbot.waitUntil(lambda: bool(page._plots["util_pct"]["marks"].marks), timeout=10000)
    page.bench_progress({"stage": "fma"})
    qtbot.waitUntil(lambda: len(page._plots["util_pct"]["marks"].marks) == 2, timeout=10000)
    marks = page._plots["clock_mhz"]["marks"].marks
    assert [name for _, name in marks] == ["stream", "fma"]
    assert all(-300 <= x <= 0 for x, _ in marks)
    page.set_paused(True)                       # nothing moves while the two images are taken
    qtbot.wait(100)
    plots = page.plot_widget
    with_marks = plots.grab().toImage()
    for entry in page._plots.values():
        entry["marks"].set_marks([])
    assert plots.grab().toImage() != with_marks  # the marks are painted
    page.bench_finished()


def _threads() -> set:
    import threading

    return {t.name for t in threading.enumerate()}


def test_one_sampler_serves_the_page_and_the_benchmark_telemetry(qtbot, window):
    """During a benchmark the page's sampler is the only one, shown or hidden; a hidden page
    records the samples without drawing them, and draws the last one when it is shown."""
    page = window.monitor
    window.show_page("overview")
    page.bench_started()
    assert page.sampling and not page.isVisible()
    page.bench_progress({"stage": "stream"})
    qtbot.waitUntil(lambda: page.samples_seen >= 3, timeout=10000)    # every 0.5 s, hidden
    assert "bench-telemetry" not in _threads()  # no StageWatch thread of its own
    assert len(window.made) == 1
    assert page.row_ids() == []                 # recorded, not drawn
    window.show_page("monitor")
    assert "amd-gpu:0000:03:00.0" in page.row_ids()     # drawn at once, from the last sample
    assert page.cell_text("cpu", 5) == "3700"
    qtbot.waitUntil(lambda: page.samples_seen >= 5, timeout=10000)
    window.show_page("overview")
    telemetry = page.bench_finished()
    assert len(window.made) == 1
    (stream,) = telemetry["stages"]
    assert stream["cpu_mhz_mean"] == 3700 and stream["temp_c_max"] == 62.0
    qtbot.wait(200)
    seen = page.samples_seen
    qtbot.wait(1200)
    assert page.samples_seen == seen            # hidden again and no benchmark: no sampling


def test_paused_page_still_records_the_benchmark_telemetry(qtbot, window):
    page = window.monitor
    window.show_page("monitor")
    page.set_paused(True)
    page.bench_started()
    page.bench_progress({"stage": "fma"})
    qtbot.wait(1300)
    telemetry = page.bench_finished()
    assert page.samples_seen == 0               # the page stays as it was
    assert telemetry["stages"][0]["cpu_mhz_mean"] == 3700


def test_series_ring_buffers_keep_the_last_samples_in_order():
    from accelgui.gui.views.monitor import PLOTS, Series

    series = Series(4)
    assert series.last_t is None
    for t in range(6):
        rows = {"cpu": {"util_pct": 10.0 * t, "temp_c": None}}
        if t != 4:
            rows["gpu"] = {"util_pct": 1.0 * t}
        series.add(float(t), rows)
    times, columns = series.window("cpu", since=0.0)
    assert list(times) == [2.0, 3.0, 4.0, 5.0] and series.last_t == 5.0
    assert list(columns[0]) == [20.0, 30.0, 40.0, 50.0]
    assert len(columns) == len(PLOTS) and all(v != v for v in columns[1])   # unknown: NaN
    times, columns = series.window("gpu", since=3.5)
    assert list(times) == [4.0, 5.0]
    assert columns[0][0] != columns[0][0] and columns[0][1] == 5.0         # absent at t=4: a gap
    times, columns = series.window("npu", since=0.0)
    assert len(times) == 0 and all(len(c) == 0 for c in columns)


def _rows_text(table) -> list[list[str]]:
    return [[(table.item(r, c).text() if table.item(r, c) else "") for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def test_the_plots_are_made_over_several_event_loop_turns(qtbot, window):
    """Made in one go, the four plots held the loop for 60-130 ms on the page's first show."""
    page = window.monitor
    window.show_page("monitor")
    assert page._plots is None                  # the page is shown first, the plots follow
    qtbot.waitUntil(lambda: page._plots is not None, timeout=10000)
    assert set(page._plots) == {"util_pct", "temp_c", "power_w", "clock_mhz"}
    assert page.plot_widget.parent() is not None and page._plot_steps is None


def test_devices_are_named_for_people_and_plots_say_whose_they_are(qtbot, window):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen >= 2 and page._plots is not None, timeout=10000)
    names = [page.table.item(i, 0).text() for i in range(page.table.rowCount())]
    assert any(n.startswith("AMD GPU (card") for n in names), names          # not "amd-gpu card1"
    assert not any(n.startswith(("amd-gpu", "intel-npu")) for n in names)
    row = page.row_ids().index("amd-gpu:0000:03:00.0")
    page.table.selectRow(row)
    qtbot.waitUntil(lambda: "AMD GPU" in page._plots["util_pct"]["plot"].titleLabel.text, timeout=5000)
    legend = page.legend_names()
    assert len(legend) == 1 and legend[0].startswith("AMD GPU")
    low, high = page._plots["util_pct"]["plot"].getViewBox().viewRange()[1]
    assert low <= 0 and 99 <= high <= 103                                   # utilisation: the whole scale
    page.overlay.setChecked(True)                                            # every device, one colour each
    legend = page.legend_names()
    assert len(legend) >= 3 and page._plots["util_pct"]["plot"].titleLabel.text.endswith("every device")


def test_a_device_without_a_sensor_says_so_instead_of_bare_axes(qtbot, window):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen >= 2 and page._plots is not None, timeout=10000)
    page.table.selectRow(page.row_ids().index("memory"))                      # memory has no clock
    qtbot.waitUntil(lambda: page._plots["clock_mhz"]["note"].textItem.toPlainText() != "", timeout=5000)
    assert page._plots["clock_mhz"]["note"].textItem.toPlainText() == "Not reported by this device"
    low, high = page._plots["clock_mhz"]["plot"].getViewBox().viewRange()[1]
    assert low <= 0 and high >= 1000                                          # not a 0.2-0.8 axis


def test_sensors_and_processes_are_listed(qtbot, window):
    page = window.monitor
    page.set_interval(0.5)
    window.show_page("monitor")
    qtbot.waitUntil(lambda: page.samples_seen >= 2 and page._plots is not None, timeout=10000)
    page.tabs.setCurrentIndex(1)
    sensors = _rows_text(page.sensors)
    assert any(r[0] == "Package id 0" and r[1].endswith("°C") for r in sensors), sensors
    assert any(r[1].endswith("rpm") for r in sensors)
    page.tabs.setCurrentIndex(2)
    procs = _rows_text(page.processes)
    assert any(r[1] == "1000" and r[3] == "2048 MiB" for r in procs), procs   # the fake NVML process


def test_the_page_says_it_shows_this_computer_when_the_window_shows_another(qtbot, window):
    from accelgui.appstate import Source

    page = window.monitor
    page.set_source(Source("report", "dgx-h100-07", "/tmp/r.json"))
    window.show_page("monitor")
    assert page.source_note.isVisible() and "dgx-h100-07" in page.source_note.text()
    assert "this computer" in page.title.text()
    page.set_source(Source("live", "This computer"))
    assert not page.source_note.isVisible()


def test_the_cpu_strip_has_a_caption_and_a_scale(qtbot, window):
    page = window.monitor
    window.show_page("monitor")
    assert "0–100 %" in page.cpu_caption.text()
    page.cpu_bars.resize(400, page.cpu_bars.height())
    page.cpu_bars.set_values([10.0, 90.0, None, 50.0])
    blank = page.cpu_bars.grab().toImage()
    page.cpu_bars.set_values([])
    assert page.cpu_bars.grab().toImage() != blank


def test_a_hostile_device_name_is_shown_as_text_in_the_legend(qtbot, window):
    from accelgui.gui.views.monitor import COLOURS

    page = window.monitor
    page._legend([("<b>x</b><img src=y>", COLOURS[0])])
    assert "<img" not in page.legend.text() and "&lt;img" in page.legend.text()
