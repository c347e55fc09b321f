"""The benchmark contract: one reader (accelgui.benchmarks) over every report shape the app
supports, refusal naming the field, notices of a disturbed run, the memory cap under cgroup
and RLIMIT_AS limits, and plots that let the page scroll."""

from __future__ import annotations

import copy
import glob
import json
import os

import pytest

from accelgui import benchmarks as bench
from accelgui.l10n import render
from accelgui.probes.context import ProbeContext
from accelgui.probes.kernels import peaks
from accelgui.report import Report, ReportError

HERE = os.path.dirname(os.path.abspath(__file__))
REPORTS = sorted(glob.glob(os.path.join(HERE, "fixtures", "reports", "*.json")))


def fixture(name: str) -> dict:
    with open(os.path.join(HERE, "fixtures", "reports", f"{name}.json"), encoding="utf-8") as f:
        return json.load(f)


def child_section() -> dict:
    """A section as the current child writes it (contract 2: spreads, limits, notices)."""
    b = copy.deepcopy(fixture("rich")["benchmarks"])
    b["contract"] = 2
    b["spread"] = {
        "cpu.stream.triad_gbps": {"min": 500.0, "median": 510.0, "max": 524.8, "n": 6, "rel": 0.049},
        "cpu.fma.fp64_gflops_mt": {"min": 3000.0, "median": 6000.0, "max": 7012.5, "n": 10, "rel": 0.669},
        "gpu.0.triad_gbps": {"min": 2990.0, "median": 3005.0, "max": 3012.4, "n": 3, "rel": 0.0075},
    }
    b["memory_cap_limits"] = {"meminfo_available_bytes": 1 << 40, "cgroup_limit_bytes": None,
                              "cgroup_available_bytes": None, "rlimit_as_bytes": None,
                              "rlimit_as_available_bytes": None}
    return b


# ---------------------------------------------------------------- the reader on every shape

@pytest.mark.parametrize("path", REPORTS, ids=os.path.basename)
def test_reader_on_every_fixture_report(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    b = bench.read(data)
    if not isinstance(data.get("benchmarks"), dict):
        assert b is None and bench.headline(data) == [] and bench.memory_bandwidth(data) is None
        return
    assert b["contract"] >= 1 and isinstance(b["spread"], dict)
    rows = {r["key"]: r for r in bench.headline(data)}
    assert rows["cpu.stream.triad_gbps"]["unit"] == "GB/s"
    assert rows["cpu.stream.triad_gbps"]["value"] == data["benchmarks"]["cpu"]["stream"]["triad_gbps"]
    fp64 = rows["cpu.fma.fp64_gflops_mt"]
    assert fp64["pct_of_peak"] == pytest.approx(100 * 7012.5 / 7526.4, abs=0.05)
    assert bench.memory_bandwidth(data)["median_gbps"] == 524.8
    assert bench.gpu_devices(data)[0]["index"] == 0


def test_older_shapes_are_upgraded_in_the_reader():
    old = fixture("rich")
    b = old["benchmarks"]
    b["cpu"]["gemm"]["fp64_gflops"] = b["cpu"]["gemm"].pop("dgemm_gflops")
    b["cpu"]["stream"]["median"] = {"triad_gbps": 500.0}
    b["cpu"]["stream"]["spread"] = {"triad": 0.1}
    b["cpu"]["stream"]["ntimes"] = 7
    devices = []
    for _, e in sorted(b["gpu"].items()):
        e["peak_gbps"] = e.pop("memory_peak_gbps")          # names before b908f49
        e["theoretical_fp32_gflops"] = 66908.0
        e["device_triad_gbps"] = e.pop("triad_gbps")
        devices.append(e)
    b["gpu"] = {"devices": devices}                          # the list container of older reports
    up = bench.read(old)
    assert up["cpu"]["gemm"]["dgemm_gflops"] == 5812.3 and "fp64_gflops" not in up["cpu"]["gemm"]
    assert up["cpu"]["gemm"]["blas"] == {"internal_api": "mkl"}
    assert up["environment"]["threading_layer"] == "omp"
    g0 = up["gpu"]["0"]
    assert g0["memory_peak_gbps"] == 3352.3 and g0["triad_gbps"] == 3012.4
    assert g0["fp32_peak_gflops"] == 66908.0 and "peak_gbps" not in g0
    # best 524.8, median 500, time spread 10 %: the slowest is 1 / (1/524.8 + 0.1/500)
    s = up["spread"]["cpu.stream.triad_gbps"]
    assert s["median"] == 500.0 and s["max"] == 524.8
    assert s["min"] == pytest.approx(1 / (1 / 524.8 + 0.1 / 500), abs=0.01) and s["n"] == 7
    rows = {r["key"]: r for r in bench.headline(old)}
    assert rows["gpu.0.fp32_gflops"]["pct_of_peak"] == pytest.approx(100 * 59812 / 66908, abs=0.05)
    stored = Report.from_dict(old).benchmarks      # the report keeps the upgraded section
    assert stored == bench.read(old) and stored["gpu"]["0"]["triad_gbps"] == 3012.4


def test_the_current_child_shape_fits_the_shipped_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from accelgui.report import schema

    s = schema()
    data = fixture("rich")
    data["benchmarks"] = child_section()
    jsonschema.validate(data, {"$defs": s["$defs"], "type": "object",
                               "properties": {"benchmarks": s["properties"]["benchmarks"]}})
    assert bench.read(data)["spread"]["gpu.0.triad_gbps"]["n"] == 3


@pytest.mark.parametrize("mutate,field", [
    (lambda b: b["cpu"]["stream"].__setitem__("triad_gbps", "fast"), "benchmarks.cpu.stream.triad_gbps"),
    (lambda b: b["cpu"]["stream"].__setitem__("triad_gflops", 1.0), "benchmarks.cpu.stream.triad_gflops"),
    (lambda b: b["gpu"]["0"].__setitem__("fp32_gflops", [1]), "benchmarks.gpu.0.fp32_gflops"),
    (lambda b: b["gpu"].__setitem__("first", {}), "benchmarks.gpu.first"),
    (lambda b: b["spread"].__setitem__("cpu.x", {"median": 1}), "benchmarks.spread.cpu.x.min"),
    (lambda b: b.__setitem__("telemetry", {"stages": [{"start_s": 0}]}), "benchmarks.telemetry.stages[0].name"),
    (lambda b: b["roofline"]["measured_points"].append({"name": "x", "gflops": True}),
     "benchmarks.roofline.measured_points[3].gflops"),
    (lambda b: b.__setitem__("warnings", "slow"), None),   # a lone string is upgraded, not refused
])
def test_a_section_off_the_contract_is_refused_naming_the_field(mutate, field):
    data = fixture("rich")
    data["benchmarks"] = child_section()
    mutate(data["benchmarks"])
    if field is None:
        assert bench.read(data)["warnings"] == ["slow"]
        Report.from_dict(data)
        return
    with pytest.raises(bench.BenchmarkError) as exc:
        bench.read(data)
    assert exc.value.path == field
    with pytest.raises(ReportError, match=field.replace("[", r"\[").replace("]", r"\]")):
        Report.from_dict(data)


# ---------------------------------------------------------------- notices

def messages(data, lang="en") -> list[str]:
    return [render(m, lang) for m in bench.notices(data)]


def test_a_clean_run_has_no_notice():
    data = fixture("rich")
    assert messages(data) == []


def test_disturbed_noisy_flat_and_throttled_runs_say_so():
    data = fixture("rich")
    b = data["benchmarks"] = child_section()
    b["warnings"] = ["measured twice, best kept (the first try looked slowed by another process): "
                     "fp64 FMA (all threads)"]
    b["cpu"]["fma"]["fp64_gflops_mt"] = 120.0              # 112 cores, no faster than one
    b["telemetry"] = {"stages": [{"name": "fma", "start_s": 1.0, "end_s": 2.0, "cpu_mhz_min": 2900,
                                  "cpu_mhz_max": 3700, "cpu_mhz_mean": 3100, "temp_c_max": 96,
                                  "power_w_mean": 180, "throttle": ["thermal limit"]}],
                      "notices": [{"id": "bench.notice.warning", "params": {"text": "from the monitor"}}]}
    text = messages(data)
    assert any(t.startswith("Disturbed run") and "fp64 FMA" in t for t in text)
    assert any("FP64 FMA, all cores varied by 67 %" in t for t in text)      # spread > 20 %
    assert not any("STREAM triad, all threads varied" in t for t in text)   # 5 %: fine
    assert any(t.startswith("Suspicious: FP64 FMA on all 112 cores") for t in text)
    assert any("fma stage: thermal limit" in t for t in text)
    assert any("clock fell from 3.7 to 2.9 GHz" in t for t in text)
    assert "Benchmark warning: from the monitor" in text
    assert all(render(m, "zh") for m in bench.notices(data))
    noisy = {r["key"] for r in bench.headline(data) if r["noisy"]}
    assert noisy == {"cpu.fma.fp64_gflops_mt"}


def test_notices_reach_every_report_format():
    from accelgui.export import render as export

    data = fixture("rich")
    data["benchmarks"] = child_section()
    report = Report.from_dict(data)
    for fmt in ("text", "markdown", "html"):
        out = export(report, fmt)
        assert "FP64 FMA, all cores varied by 67" in out, fmt
    assert "accelgui_benchmark_notices 1" in export(report, "prometheus")


def test_memory_bandwidth_gives_the_median_and_the_spread():
    data = fixture("rich")
    data["benchmarks"] = child_section()
    mb = bench.memory_bandwidth(data)
    assert mb == {"median_gbps": 510.0, "min_gbps": 500.0, "max_gbps": 524.8, "rel_spread": 0.049,
                  "source": "measured", "figure": "cpu.stream.triad_gbps"}
    dev = {"name": "NVIDIA H100 80GB HBM3", "vendor": "nvidia", "address": "0000:18:00.0"}
    assert bench.memory_bandwidth(data, dev, index=0)["median_gbps"] == 3005.0
    assert bench.memory_bandwidth(data, dict(dev, name="AMD Instinct MI300X"), index=0) is None
    data["benchmarks"]["gpu"]["0"]["pci_bus_id"] = "00000000:3b:00.0"
    assert bench.memory_bandwidth(data, dev, index=0) is None       # measured on another bus


def test_reference_classes_are_dated_and_sourced():
    table = bench.reference_table()
    for row in table["memory"] + table["fma_core"]:
        assert row["typical_low"] < row["typical_high"]
        assert row["as_of"] <= "2026-12-01" < row["review_by"]
        assert str(row["source"]).startswith("https://")
        assert render({"id": f"bench.class.{row['class']}", "params": {"sockets": 2}}, "zh")


@pytest.mark.parametrize("cpu,platform,klass", [
    ({"model_name": "Intel(R) Xeon(R) Platinum 8480+", "microarchitecture": "sapphirerapids",
      "sockets": 2}, {}, "server-ddr5-8ch"),
    ({"model_name": "AMD EPYC 9654 96-Core Processor", "microarchitecture": "zen4", "sockets": 1},
     {}, "server-ddr5-12ch"),
    ({"model_name": "AMD EPYC 7763 64-Core Processor", "microarchitecture": "zen3", "sockets": 2},
     {}, "server-ddr4-8ch"),
    ({"model_name": "AMD EPYC 7B13", "microarchitecture": "zen3", "sockets": 1, "logical_cpus": 2},
     {"virtualization": "kvm"}, "cloud-vcpu"),
    ({"model_name": "Apple M2", "microarchitecture": "m2"}, {}, "apple-unified"),
    ({"model_name": "13th Gen Intel(R) Core(TM) i7-1360P", "microarchitecture": "raptorlake"},
     {"dmi": {"chassis_type": "10"}}, "laptop-lpddr5"),
    ({"model_name": "AMD Ryzen 7 5800X", "microarchitecture": "zen3"}, {}, "desktop-ddr4-2ch"),
    ({"model_name": "AMD Ryzen 9 7950X", "microarchitecture": "zen4"}, {}, "desktop-ddr5-2ch"),
])
def test_memory_class_of_a_machine(cpu, platform, klass):
    assert bench.memory_class({"schema_version": "1.0", "cpu": cpu, "platform": platform})[0] == klass


# ---------------------------------------------------------------- memory cap: cgroup, rlimit

def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


MEMINFO = "MemTotal:       65536000 kB\nMemFree:  1000 kB\nMemAvailable:   32768000 kB\n"


def test_cgroup_v2_limit_of_the_process_cgroup_and_its_ancestors(tmp_path):
    root = str(tmp_path)
    write(root, "proc/meminfo", MEMINFO)
    write(root, "proc/self/cgroup", "0::/user.slice/job.scope\n")
    write(root, "sys/fs/cgroup/user.slice/job.scope/memory.max", "max\n")
    write(root, "sys/fs/cgroup/user.slice/job.scope/memory.current", "100\n")
    write(root, "sys/fs/cgroup/user.slice/memory.max", str(2 << 30) + "\n")     # the ancestor limits
    write(root, "sys/fs/cgroup/user.slice/memory.current", str(1 << 30) + "\n")
    cg = peaks.cgroup_memory(ProbeContext(root))
    assert cg == {"limit_bytes": 2 << 30, "available_bytes": 1 << 30, "version": "v2"}
    from accelgui.probes.kernels.__main__ import memory_cap

    cap, why, avail, limits = memory_cap(ProbeContext(root), None)
    assert cap == (1 << 30) // 4 and "cgroup v2" in why
    assert avail == 32768000 * 1024 and limits["cgroup_limit_bytes"] == 2 << 30


def test_cgroup_v1_limit_and_unlimited_values(tmp_path):
    root = str(tmp_path)
    write(root, "proc/meminfo", MEMINFO)
    write(root, "proc/self/cgroup", "12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n")
    base = "sys/fs/cgroup/memory/docker/abc"
    write(root, f"{base}/memory.limit_in_bytes", str(4 << 30) + "\n")
    write(root, f"{base}/memory.usage_in_bytes", str(3 << 30) + "\n")
    write(root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")   # no limit
    cg = peaks.cgroup_memory(ProbeContext(root))
    assert cg == {"limit_bytes": 4 << 30, "available_bytes": 1 << 30, "version": "v1"}
    write(root, f"{base}/memory.limit_in_bytes", "9223372036854771712\n")
    assert peaks.cgroup_memory(ProbeContext(root))["limit_bytes"] is None


def test_no_cgroup_file_means_no_cgroup_bound(tmp_path):
    root = str(tmp_path)
    write(root, "proc/meminfo", MEMINFO)
    from accelgui.probes.kernels.__main__ import memory_cap

    cap, why, _, limits = memory_cap(ProbeContext(root), None)
    assert cap == 32768000 * 1024 // 4 and why == "25% of what available memory leaves"
    assert limits["cgroup_available_bytes"] is None


def test_rlimit_as_bounds_the_cap(tmp_path):
    root = str(tmp_path)
    write(root, "proc/meminfo", MEMINFO)
    write(root, "proc/self/status", "Name:\tpython\nVmSize:\t  1048576 kB\n")
    from accelgui.probes.kernels.__main__ import memory_cap

    cap, why, _, limits = memory_cap(ProbeContext(root), None, rlimit_as=3 << 30)
    assert limits["rlimit_as_available_bytes"] == 2 << 30      # 3 GiB minus the 1 GiB mapped
    assert cap == (2 << 30) // 4 and why == "25% of what RLIMIT_AS leaves"
    cap, why, _, _ = memory_cap(ProbeContext(root), 1 << 20, rlimit_as=3 << 30)
    assert cap == 1 << 20 and why == "--mem-cap-bytes"


# ---------------------------------------------------------------- plots in a scrolling page

def test_the_wheel_over_a_plot_scrolls_the_page_and_leaves_the_axes(qtbot):
    pytest.importorskip("pytestqt")
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from accelgui.gui.views.benchmarks import BenchmarksView
    from accelgui.gui.views.common import ViewState

    data = fixture("rich")
    data["benchmarks"] = child_section()
    view = BenchmarksView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.render(ViewState(report=Report.from_dict(data)))
    qtbot.waitUntil(lambda: not view.building, timeout=20000)
    assert "FP64 FMA, all cores varied by 67 %" in view.notices_text()
    assert view.rerun_button.isVisibleTo(view)
    with qtbot.waitSignal(view.run_requested, timeout=2000) as sig:
        view.rerun_button.click()
    assert sig.args == ["quick"]

    for key in ("cache", "roofline"):
        plot = view._plots[key]
        view._area.ensureWidgetVisible(plot, 0, 0)
        view._area.verticalScrollBar().setValue(0)
        QApplication.processEvents()
        vb = plot.getPlotItem().getViewBox()
        before = [list(r) for r in vb.viewRange()]
        bar = view._area.verticalScrollBar()
        start = bar.value()
        centre = QPointF(plot.viewport().rect().center())
        glob_pos = QPointF(plot.viewport().mapToGlobal(centre.toPoint()))
        ev = QWheelEvent(centre, glob_pos, QPoint(0, 0), QPoint(0, -240), Qt.MouseButton.NoButton,
                         Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(plot.viewport(), ev)
        QApplication.processEvents()
        assert [list(r) for r in vb.viewRange()] == before, key      # axes unchanged
        assert bar.value() > start, key                               # the page moved

        # zoom mode: the same wheel zooms the plot, within the data's limits; Reset restores
        view._frames[key].zoom.setChecked(True)
        ev = QWheelEvent(centre, glob_pos, QPoint(0, 0), QPoint(0, -2400), Qt.MouseButton.NoButton,
                         Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(plot.viewport(), ev)
        QApplication.processEvents()
        limits = vb.state["limits"]
        (x0, x1), (y0, y1) = vb.viewRange()
        assert limits["xLimits"][0] - 1e-9 <= x0 and x1 <= limits["xLimits"][1] + 1e-9
        assert limits["yLimits"][0] - 1e-9 <= y0 and y1 <= limits["yLimits"][1] + 1e-9
        view._frames[key].zoom.setChecked(False)
        view._frames[key].reset.click()
        QApplication.processEvents()


def test_roofline_legend_gives_stream_in_gb_per_s():
    from accelgui.export.benchmarks import point_text, roofline_data

    points = {p["id"]: p for p in roofline_data(child_section())["points"]}
    assert point_text(points["stream_triad"]) == "STREAM triad (memory): 510 GB/s (median of 6)"
    assert point_text(points["fma_fp64"]).endswith(": 6,000 GFLOP/s (median of 10)")
