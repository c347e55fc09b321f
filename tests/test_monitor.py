"""The live monitor without hardware: a telemetry tree rewritten between samples, the fake
NVML, hot-unplug and driver reload, stage telemetry, the headless faces and the exporter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from monitor_support import DriverNotLoaded, FakeClock, GpuIsLost, NotSupported, TelemetryTree, gpu, monitor_nvml

from accelgui import monitor_cli
from accelgui.l10n import render
from accelgui.probes.context import ProbeContext
from accelgui.probes.monitor import Sampler, nvidia, telemetry
from accelgui.probes.monitor.history import History, flat_rows, stage_telemetry, to_csv

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")


@pytest.fixture
def tree(tmp_path):
    return TelemetryTree(tmp_path / "root")


def sampler_for(tree, nv=None, **kw):
    clock = FakeClock()
    return Sampler(ProbeContext(tree.root), nvml=nv, clock=clock, **kw), clock


def step(tree, clock, sampler, seconds=1.0, **kw):
    tree.advance(seconds, **kw)
    clock.now += seconds
    return sampler.sample()


def by_family(sample):
    return {d["family"]: d for d in sample["devices"]}


def test_first_sample_has_no_rates_then_rates_between_samples(tree):
    s, clock = sampler_for(tree)
    first = s.sample()
    assert first["cpu"]["util_pct"] is None and first["cpu"]["package_power_w"] is None
    assert by_family(first)["intel-npu"]["util_pct"] is None
    second = step(tree, clock, s, 2.0, busy=0.25, watts=40.0, npu_busy=0.5, render_busy=0.6)
    cpu = second["cpu"]
    assert cpu["util_pct"] == 25.0 and cpu["per_cpu_util_pct"] == [25.0] * 4
    assert cpu["package_power_w"] == 40 and cpu["ctx_switches_per_s"] == 5000
    assert cpu["per_cpu_freq_mhz"] == [3700.0] * 4 and cpu["load_1m"] == 1.5
    assert cpu["temp_c_max"] == 62.0 and cpu["fans"][0]["rpm"] == 1200
    assert [z["name"] for z in cpu["rapl"]] == ["package-0", "core"]
    mem = second["memory"]
    assert mem["used_bytes"] == mem["total_bytes"] - mem["available_bytes"]
    assert [n["node"] for n in mem["numa_nodes"]] == [0, 1]
    devs = by_family(second)
    assert devs["intel-npu"]["util_pct"] == 50 and devs["intel-npu"]["clock_mhz"] == 1400
    assert devs["intel-gpu"]["util_pct"] == 60.0 and devs["intel-gpu"]["clock_mhz"] == 2050
    proc, = devs["intel-gpu"]["processes"]              # two fds, one DRM client: counted once
    assert proc["name"] == "blender" and proc["engines_pct"]["render"] == 60.0
    assert proc["memory_bytes"] == 2048 * 1024
    amd = devs["amd-gpu"]
    assert (amd["util_pct"], amd["mem_util_pct"], amd["temp_c"], amd["power_w"]) == (87, 35, 71, 245)
    assert (amd["clock_mhz"], amd["mem_clock_mhz"], amd["memory_total_bytes"]) == (2500, 1250, 16 << 30)
    assert devs["rockchip-npu"]["util_pct"] == 40 and devs["rockchip-npu"]["clock_mhz"] == 1000
    json.dumps(second)                                  # plain data


def test_every_device_has_every_field_null_when_unknown(tree):
    s, _ = sampler_for(tree)
    for dev in s.sample()["devices"]:
        assert set(telemetry.DEVICE_FIELDS) <= set(dev)
    assert by_family(s.sample())["intel-npu"]["temp_c"] is None


def test_hot_unplug_and_driver_reload(tree):
    s, clock = sampler_for(tree)
    s.sample()
    step(tree, clock, s)
    tree.unplug("card1")                                # the AMD GPU goes away
    tree.unplug("accel0")
    gone = step(tree, clock, s)
    assert "amd-gpu" not in by_family(gone) and "intel-npu" not in by_family(gone)
    tree.plug_amd()                                     # the driver is loaded again
    tree.plug_npu()
    tree.npu_busy_us = 10                               # its counter starts again from zero
    back = step(tree, clock, s)
    assert by_family(back)["amd-gpu"]["util_pct"] == 87
    assert by_family(back)["intel-npu"]["util_pct"] is None      # a reset counter: no rate once
    assert by_family(step(tree, clock, s, npu_busy=0.3))["intel-npu"]["util_pct"] == 30


def test_rapl_counter_wrap(tree):
    s, clock = sampler_for(tree)
    tree.energy_uj = 262143328850 - 10_000_000
    tree.update()
    s.sample()
    tree.energy_uj = 10_000_000                          # wrapped past max_energy_range_uj
    tree.update()
    clock.now += 1.0
    assert s.sample()["cpu"]["package_power_w"] == 20


def test_nvml_fields_and_per_call_failures(tree):
    gpus = [gpu(i) for i in range(2)]
    nv = monitor_nvml(gpus, failing={"nvmlDeviceGetPowerUsage": NotSupported,
                                     "nvmlDeviceGetTotalEccErrors": NotSupported})
    s, _ = sampler_for(tree, nv)
    first, second = [d for d in s.sample()["devices"] if d["family"] == "nvidia-gpu"]
    assert first["address"] == "0000:1b:00.0" and first["util_pct"] == 50 and second["util_pct"] == 51
    assert first["power_w"] is None and first["ecc_corrected"] is None      # failed alone
    assert first["power_limit_w"] == 700.0 and first["temp_c"] == 60
    assert first["pcie_rx_bytes_per_s"] == 2000 * 1024 and first["processes"][0]["memory_bytes"] == 2 << 30
    gpus[0]["reasons"] = 0x40 | 0x1
    nv.failing.clear()
    first = s.sample()["devices"][0]
    assert first["throttle"] == ["gpu_idle", "hw_thermal_slowdown"] and first["power_w"] == 400.0


def test_nvml_gpu_lost_and_driver_reload(tree, monkeypatch):
    gpus = [gpu(i) for i in range(3)]
    nv = monitor_nvml(gpus)
    s, _ = sampler_for(tree, nv)
    assert len([d for d in s.sample()["devices"] if d["family"] == "nvidia-gpu"]) == 3
    gpus.pop(1)                                         # fell off the bus
    assert [d["address"] for d in s.sample()["devices"][:2]] == ["0000:1b:00.0", "0000:1d:00.0"]
    nv.failing["nvmlDeviceGetUtilizationRates"] = GpuIsLost
    dev = s.sample()["devices"][0]
    assert dev["util_pct"] is None and dev["memory_used_bytes"] is not None
    nv.failing = {"nvmlDeviceGetCount": DriverNotLoaded, "nvmlInit": DriverNotLoaded}
    assert not [d for d in s.sample()["devices"] if d["family"] == "nvidia-gpu"]
    assert nv.shut_down
    nv.failing = {}
    monkeypatch.setattr(nvidia, "RETRY_S", 0.0)
    s.nvml.next_try = 0.0
    assert len([d for d in s.sample()["devices"] if d["family"] == "nvidia-gpu"]) == 2


def test_mig_instances(tree):
    mig = {"name": "NVIDIA H100 80GB HBM3 MIG 1g.10gb", "total": 10 << 30, "used": 1 << 30, "uuid": "MIG-1"}
    nv = monitor_nvml([gpu(0, mig=(1, 1), mig_devices=[mig])])
    s, _ = sampler_for(tree, nv)
    inst, = s.sample()["devices"][0]["mig"]
    assert inst["name"].endswith("1g.10gb") and inst["memory_total_bytes"] == 10 << 30


def test_recorded_trees_without_telemetry_files_give_nulls():
    s = Sampler(ProbeContext(os.path.join(MACHINES, "acc-radeon-desktop")))
    sample = s.sample()
    amd = [d for d in sample["devices"] if d["family"] == "amd-gpu"]
    assert len(amd) == 2 and all(d["util_pct"] is None for d in amd)


def test_parsers():
    assert telemetry.parse_dpm("0: 500Mhz\n1: 1800Mhz *\n") == 1800
    assert telemetry.parse_dpm("0: 500Mhz\n") is None
    assert telemetry.parse_devfreq_load("45@800000000Hz") == 45
    assert telemetry.parse_devfreq_load("garbage") is None
    assert nvidia.throttle_names(0x4) == ["sw_power_cap"] and nvidia.throttle_names(None) is None


def test_stage_telemetry_reports_a_clock_drop_and_thermal_throttle(tree):
    s, clock = sampler_for(tree)
    history = History(capacity=100)
    history.add(s.sample())
    history.mark("stream", clock.now)
    for _ in range(3):
        history.add(step(tree, clock, s))
    history.mark("fma", clock.now + 0.5)
    for mhz in (3700, 3300, 2900):
        tree.mhz = [mhz] * 4
        tree.throttle += 1 if mhz < 3700 else 0
        history.add(step(tree, clock, s))
    history.end_marks(clock.now + 0.1)
    out = stage_telemetry(*history.snapshot())
    stream, fma = out["stages"]
    assert stream["name"] == "stream" and stream["throttle"] == [] and stream["cpu_mhz_min"] == 3700
    assert fma["cpu_mhz_max"] == 3700 and fma["cpu_mhz_min"] == 2900 and fma["throttle"] == ["cpu_thermal"]
    assert fma["power_w_mean"] == 65 and fma["temp_c_max"] >= 62 and fma["start_s"] > stream["start_s"]
    notice, = out["notices"]
    assert render(notice) == ("fma stage: clock fell from 3.7 to 2.9 GHz — thermal limit; "
                              "figures are below this CPU's peak")
    assert "3.7" in render(notice, "zh")


def test_history_is_bounded_and_exports(tree):
    s, clock = sampler_for(tree)
    history = History(capacity=5)
    for _ in range(12):
        history.add(step(tree, clock, s))
    samples, _ = history.snapshot()
    assert len(samples) == 5
    csv_text = to_csv(samples)
    assert csv_text.splitlines()[0].startswith("t,id,family,name")
    assert len(csv_text.splitlines()) == 1 + 5 * len(flat_rows(samples[0]))


def _args(**kw):
    base = dict(sysroot="/", interval=0.1, count=3, format="json", serve_metrics=None)
    base.update(kw)
    return SimpleNamespace(**base)


def test_monitor_count_3_json_prints_three_samples():
    out = subprocess.run([sys.executable, "-m", "accelgui", "--monitor", "--count", "3", "--format", "json",
                          "--interval", "0.2"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3
    samples = [json.loads(line) for line in lines]
    assert all(s["cpu"]["util_pct"] is not None for s in samples)      # a priming sample came first
    assert "PySide6" not in out.stderr


def test_monitor_never_imports_qt_or_numba():
    code = ("import sys; from accelgui import cli; cli.main(['--monitor', '--count', '1', '--interval', '0.1']);"
            "print(any(m.startswith(('PySide6', 'numba', 'pyqtgraph')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr


def test_monitor_text_table_and_bad_options(tree, capsys):
    import io

    buf = io.StringIO()
    assert monitor_cli.cmd_monitor(_args(sysroot=tree.root, count=1, format="text"), out=buf) == 0
    text = buf.getvalue()
    assert "amd-gpu card1" in text and "CPU (4 logical)" in text and "\x1b[" not in text
    from accelgui.cli import UsageError

    with pytest.raises(UsageError):
        monitor_cli.cmd_monitor(_args(interval=0.0))
    with pytest.raises(UsageError):
        monitor_cli.parse_address("localhost:http")
    assert monitor_cli.parse_address("9000") == ("127.0.0.1", 9000)
    assert monitor_cli.parse_address("[::1]:19835") == ("::1", 19835)


def test_serve_metrics_answers_200_concurrent_scrapes_and_stops(tree):
    promtool = shutil.which("promtool")
    stop, ready = threading.Event(), threading.Event()
    where = {}

    def on_ready(address):
        where["address"] = address
        ready.set()

    args = _args(sysroot=tree.root, serve_metrics="127.0.0.1:0", interval=0.1)
    server = threading.Thread(target=monitor_cli.serve_metrics, args=(args,),
                              kwargs={"ready": on_ready, "stop": stop}, daemon=True)
    server.start()
    assert ready.wait(10)
    url = f"http://{where['address']}/metrics"
    try:
        deadline = 50
        while deadline and b"accelgui_device_utilisation_ratio{" not in urllib.request.urlopen(url, timeout=5).read():
            deadline -= 1
            threading.Event().wait(0.1)

        def scrape(_):
            with urllib.request.urlopen(url, timeout=20) as r:
                return r.status, r.read()

        with ThreadPoolExecutor(max_workers=32) as pool:
            results = list(pool.map(scrape, range(200)))
    finally:
        stop.set()
        server.join(10)
    assert not server.is_alive()
    assert all(status == 200 for status, _ in results)
    body = results[-1][1].decode()
    from prometheus_client.parser import text_string_to_metric_families

    util = {s.labels["device"]: (s.labels, s.value) for f in text_string_to_metric_families(body)
            for s in f.samples if s.name == "accelgui_device_utilisation_ratio"}
    assert util["amd-gpu:0000:03:00.0"] == ({"device": "amd-gpu:0000:03:00.0", "kind": "gpu", "family": "amd-gpu",
                                             "pci_bus_id": "00000000:03:00.0", "gpu": "", "UUID": ""}, 0.87)
    assert "accelgui_rapl_energy_joules_total" in body and "accelgui_numa_node_free_bytes" in body
    if promtool is None:
        pytest.skip("promtool is not installed: the exposition was not linted")
    bodies = sorted({b for _, b in results})
    for b in bodies:
        check = subprocess.run([promtool, "check", "metrics"], input=b, capture_output=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr


def test_serve_metrics_stops_on_sigterm(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "accelgui", "--serve-metrics", "127.0.0.1:0",
                             "--sysroot", os.path.join(MACHINES, "acc-radeon-desktop")],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "http://127.0.0.1:" in line
        url = line.split("http://", 1)[1].split()[0]
        assert urllib.request.urlopen(f"http://{url}", timeout=10).status == 200
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_dashboard_in_fleet_md_queries_metrics_the_server_serves(tree):
    import re

    from prometheus_client import CollectorRegistry, generate_latest

    text = open(os.path.join(os.path.dirname(__file__), "..", "docs", "fleet.md")).read()
    dashboard = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    wanted = {name for p in dashboard["panels"] for t in p["targets"]
              for name in re.findall(r"accelgui_\w+", t["expr"])}
    nv = monitor_nvml([gpu(0)])
    s, clock = sampler_for(tree, nv)
    s.sample()
    collector = monitor_cli.MonitorCollector()
    collector.sample = step(tree, clock, s)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    served = set(re.findall(r"^(accelgui_\w+?)(?:\{| )", generate_latest(registry).decode(), re.M))
    wanted.discard("accelgui_device_info")             # from the report, checked below
    assert wanted <= served, wanted - served
    from accelgui.probes.context import ProbeContext as Ctx
    from accelgui.runner import run_probes

    collector.report = run_probes(Ctx(os.path.join(MACHINES, "acc-radeon-desktop")))
    assert "accelgui_device_info{" in generate_latest(registry).decode()


def test_garbage_files_read_as_null(tree):
    s, clock = sampler_for(tree)
    s.sample()
    dev = "sys/devices/pci0000:00/0000:03:00.0"
    tree.write(f"{dev}/gpu_busy_percent", "nan")
    tree.write(f"{dev}/pp_dpm_sclk", "\x00\xff garbage *")
    tree.write(f"{dev}/mem_info_vram_used", "")
    tree.write("proc/stat", "cpu  a b c\nctxt x")
    os.mkfifo(os.path.join(tree.root, f"{dev}/hwmon/hwmon5/power1_average.fifo"))
    clock.now += 1
    sample = s.sample()
    amd = by_family(sample)["amd-gpu"]
    assert amd["util_pct"] is None and amd["clock_mhz"] is None and amd["memory_used_bytes"] is None
    assert sample["cpu"]["util_pct"] is None and sample["cpu"]["ctx_switches_total"] is None
    json.dumps(sample, allow_nan=False)


def test_fdinfo_engine_ns_and_xe_cycles():
    from accelgui.probes.monitor import fdinfo

    def client(ns, cycles, total):
        return fdinfo.parse_fdinfo(f"drm-driver:\txe\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t9\n"
                                   f"drm-engine-capacity-vcs:\t2\ndrm-engine-vcs:\t{ns} ns\n"
                                   f"drm-cycles-rcs:\t{cycles}\ndrm-total-cycles-rcs:\t{total}\n"
                                   "drm-resident-vram0:\t4 MiB\n")

    key = ("0000:03:00.0", "9")
    before = {key: dict(client(0, 1000, 10000), pid=7, name="a")}
    after = {key: dict(client(1_000_000_000, 4000, 20000), pid=7, name="a")}
    dev = fdinfo.usage(after, before, 1.0)["0000:03:00.0"]
    assert dev["engines_pct"] == {"vcs": 50.0, "rcs": 30.0} and dev["util_pct"] == 50.0
    assert dev["processes"][0]["memory_bytes"] == 4 << 20
    assert fdinfo.usage(after, None, 1.0)["0000:03:00.0"]["util_pct"] is None
    assert fdinfo.parse_fdinfo("pos: 0\nflags: 02\n") is None          # not a DRM file
