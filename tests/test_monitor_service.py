"""The monitor as a service an operator leaves running: a bad or hung source does not stop
the samples, the schedule does not drift, JSON is strict, and the HTTP server drops half-sent
requests, answers 404 off /metrics, HEAD, 503 over the in-flight cap, and renders once per
sample. Network tests talk only to servers they start on 127.0.0.1 / ::1."""

from __future__ import annotations

import io
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from monitor_support import FakeClock, TelemetryTree, gpu, monitor_nvml

from accelgui import monitor_cli
from accelgui.probes.context import ProbeContext
from accelgui.probes.monitor import DROP_AFTER, Sampler


@pytest.fixture
def tree(tmp_path):
    return TelemetryTree(tmp_path / "root")


def _args(**kw):
    base = dict(sysroot="/", interval=0.1, count=2, format="json", serve_metrics=None)
    base.update(kw)
    return SimpleNamespace(**base)


def _strict(line: str) -> dict:
    def refuse(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(line, parse_constant=refuse)


# ------------------------------------------------------------------ sampling

def test_monitor_survives_a_short_cpu_line_in_proc_stat(tree):
    tree.write("proc/stat", "cpu  1 2\ncpu0 1 2 3\ncpu1 5 0 5 90 0 0 0 0\nctxt 7")
    buf = io.StringIO()
    assert monitor_cli.cmd_monitor(_args(sysroot=tree.root), out=buf) == 0
    samples = [_strict(line) for line in buf.getvalue().splitlines()]
    assert len(samples) == 2
    assert samples[-1]["cpu"]["util_pct"] is None                  # the short lines are unknown
    assert len(samples[-1]["cpu"]["per_cpu_util_pct"]) == 1         # cpu1 is still read
    assert samples[-1]["cpu"]["ctx_switches_total"] == 7


def test_monitor_json_prints_null_not_infinity_for_a_huge_load_average(tree):
    tree.write("proc/loadavg", "1e999 nan -inf 2/300 4242")
    buf = io.StringIO()
    assert monitor_cli.cmd_monitor(_args(sysroot=tree.root, count=1), out=buf) == 0
    cpu = _strict(buf.getvalue().splitlines()[0])["cpu"]
    assert (cpu["load_1m"], cpu["load_5m"], cpu["load_15m"]) == (None, None, None)


def test_a_raising_source_is_reported_then_dropped_while_the_rest_keep_coming(tree, monkeypatch):
    nv = monitor_nvml([gpu(0)])
    s = Sampler(ProbeContext(tree.root), nvml=nv, clock=FakeClock())
    first = s.sample()
    assert first["sources"]["nvml"]["ok"] and any(d["family"] == "nvidia-gpu" for d in first["devices"])

    def broken():
        raise RuntimeError("driver bug")
    monkeypatch.setattr(s.nvml, "sample", broken)
    seen = []
    for _ in range(DROP_AFTER + 1):
        sample = s.sample()
        seen.append(sum(d["family"] == "nvidia-gpu" for d in sample["devices"]))
        status = sample["sources"]["nvml"]
        assert not status["ok"] and "RuntimeError: driver bug" in status["error"]
        assert sample["sources"]["cpu"]["ok"] and sample["cpu"]["per_cpu_util_pct"]       # the rest go on
        assert any(d["family"] == "amd-gpu" for d in sample["devices"])
    assert seen == [1] * (DROP_AFTER - 1) + [0, 0]        # last values kept, then dropped
    json.dumps(sample, allow_nan=False)


def test_a_hung_source_does_not_stop_the_samples_and_is_not_called_twice(tree):
    nv = monitor_nvml([gpu(0)])
    release, entered = threading.Event(), threading.Event()
    count = nv.nvmlDeviceGetCount

    def wedged():
        entered.set()
        release.wait(10)
        return count()
    s = Sampler(ProbeContext(tree.root), nvml=nv, clock=FakeClock(), deadline_s=0.2)
    s.sample()
    nv.nvmlDeviceGetCount = wedged
    try:
        began = time.monotonic()
        hung = s.sample()
        assert time.monotonic() - began < 2
        assert entered.is_set() and "timed out" in hung["sources"]["nvml"]["error"]
        assert hung["sources"]["cpu"]["ok"] and hung["sources"]["sysfs"]["ok"]
        calls = nv.calls.count("nvmlDeviceGetHandleByIndex")
        for _ in range(DROP_AFTER):
            again = s.sample()
        assert not again["sources"]["nvml"]["ok"] and again["sources"]["nvml"]["failures"] == DROP_AFTER + 1
        assert not any(d["family"] == "nvidia-gpu" for d in again["devices"])     # dropped
        assert threading.active_count() < 20
    finally:
        release.set()
    deadline = time.monotonic() + 5
    while s.sources["nvml"].busy and time.monotonic() < deadline:
        time.sleep(0.01)
    nv.nvmlDeviceGetCount = count
    back = s.sample()
    assert back["sources"]["nvml"]["ok"] and any(d["family"] == "nvidia-gpu" for d in back["devices"])
    assert nv.calls.count("nvmlDeviceGetHandleByIndex") == calls + 2      # the stuck call, then this one
    s.close()


def test_the_schedule_keeps_to_start_plus_k_intervals():
    clock = FakeClock(100.0)
    sched = monitor_cli.Schedule(1.0, clock=clock)
    clock.now += 0.3                        # a sample took 0.3 s
    assert sched.delay() == pytest.approx(0.7)
    clock.now = 101.0 + 0.05                # woke a little late
    assert sched.delay() == pytest.approx(0.95)
    clock.now = 104.5                       # a sample hung for 2.5 s: ticks 3 and 4 are skipped
    assert sched.delay() == pytest.approx(0.5)
    clock.now = 105.0
    assert sched.delay() == pytest.approx(1.0)


def test_the_text_table_names_a_failing_source(tree, monkeypatch):
    def broken(*_):
        raise OSError("sysfs went away")
    monkeypatch.setattr(Sampler, "_sysfs_devices", broken)
    buf = io.StringIO()
    assert monitor_cli.cmd_monitor(_args(sysroot=tree.root, count=1, format="text"), out=buf) == 0
    assert "sysfs: OSError: sysfs went away" in buf.getvalue()


# ------------------------------------------------------------------ the exporter

class Served:
    def __init__(self, tree, **kw):
        self.stop, ready = threading.Event(), threading.Event()
        self.where = {}

        def on_ready(address):
            self.where["address"] = address
            ready.set()
        args = _args(sysroot=tree.root, serve_metrics=kw.pop("address", "127.0.0.1:0"), interval=0.1)
        self.thread = threading.Thread(target=monitor_cli.serve_metrics, args=(args,),
                                       kwargs={"ready": on_ready, "stop": self.stop, **kw}, daemon=True)
        self.thread.start()
        assert ready.wait(10)
        self.url = f"http://{self.where['address']}"

    def metrics(self, until: bytes = b"accelgui_sample_timestamp_seconds") -> str:
        for _ in range(100):
            body = urllib.request.urlopen(self.url + "/metrics", timeout=5).read()
            if until in body:
                return body.decode()
            time.sleep(0.05)
        raise AssertionError(f"{until!r} never served")

    def close(self):
        self.stop.set()
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture
def served(tree):
    srv = Served(tree)
    yield srv
    srv.close()


def test_serve_metrics_survives_a_short_cpu_line_and_serves_the_sample_time(tree):
    tree.write("proc/stat", "cpu  1 2\ncpu0 1")
    srv = Served(tree)
    try:
        body = srv.metrics()
        stamp = float(re.search(r"^accelgui_sample_timestamp_seconds (\S+)$", body, re.M).group(1))
        assert abs(time.time() - stamp) < 30
        assert 'accelgui_scrape_collector_success{collector="cpu"} 1.0' in body
        assert 'accelgui_scrape_collector_success{collector="sysfs"} 1.0' in body
        assert srv.thread.is_alive()
    finally:
        srv.close()


def test_serve_metrics_reports_a_failing_source_as_success_0(tree, monkeypatch):
    def broken(*_):
        raise OSError("gone")
    monkeypatch.setattr(Sampler, "_sysfs_devices", broken)
    srv = Served(tree)
    try:
        body = srv.metrics(b'accelgui_scrape_collector_success{collector="sysfs"} 0.0')
        assert 'accelgui_scrape_collector_success{collector="cpu"} 1.0' in body
        assert "accelgui_device_utilisation_ratio{" not in body
    finally:
        srv.close()


def _raw(url: str, data: bytes, wait: float = 10.0) -> tuple[bytes, float]:
    """Send ``data``, read until the server closes; (what came back, seconds it took)."""
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    sock = socket.create_connection((host.strip("[]"), int(port)), timeout=wait)
    began = time.monotonic()
    try:
        sock.sendall(data)
        got = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return got, time.monotonic() - began
            got += chunk
    finally:
        sock.close()


@pytest.mark.parametrize("half", [b"GET /metrics HTTP/1.1\r\nHost: x\r\n", b"GET /\r\n", b"GE"])
def test_a_half_sent_request_is_dropped(tree, half):
    metrics = monitor_cli.MetricsServer("127.0.0.1", 0, lambda gz: b"x 1\n", "text/plain",
                                        header_timeout_s=0.3).start()
    try:
        got, took = _raw(f"http://127.0.0.1:{metrics.server_address[1]}", half)
        assert took < 3 and (got == b"" or got.startswith(b"HTTP/1.1 408"))
        assert metrics.connections == 0
    finally:
        metrics.stop()


def test_an_idle_keep_alive_connection_is_closed():
    metrics = monitor_cli.MetricsServer("127.0.0.1", 0, lambda gz: b"x 1\n", "text/plain",
                                        idle_timeout_s=0.3).start()
    try:
        got, took = _raw(f"http://127.0.0.1:{metrics.server_address[1]}",
                         b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"x 1\n") and took < 3
    finally:
        metrics.stop()


def test_only_metrics_is_served_and_head_is_answered(served):
    served.metrics()
    for path in ("/favicon.ico", "/../../etc/passwd", "/metricsx"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(served.url + path, timeout=5)
        assert err.value.code == 404
        assert b"accelgui_" not in err.value.read()
    index = urllib.request.urlopen(served.url + "/", timeout=5).read()
    assert b'href="/metrics"' in index and b"accelgui_build_info" not in index
    head = urllib.request.urlopen(urllib.request.Request(served.url + "/metrics", method="HEAD"), timeout=5)
    assert head.status == 200 and head.read() == b"" and int(head.headers["Content-Length"]) > 100
    assert "text/plain" in head.headers["Content-Type"]
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(served.url + "/metrics", data=b"x", method="POST"), timeout=5)
    assert err.value.code == 405
    assert urllib.request.urlopen(served.url + "/metrics?x=1", timeout=5).status == 200


def test_gzip_is_served_when_asked(served):
    import gzip

    served.metrics(b"accelgui_build_info")      # as prometheus_client's server did: kept
    r = urllib.request.urlopen(urllib.request.Request(served.url + "/metrics",
                                                      headers={"Accept-Encoding": "gzip"}), timeout=5)
    assert r.headers["Content-Encoding"] == "gzip"
    assert b"accelgui_build_info" in gzip.decompress(r.read())


def test_requests_over_the_in_flight_cap_get_503_at_once():
    big = b"# filler\n" * (4 << 20)               # 36 MiB: more than the loopback buffers hold
    metrics = monitor_cli.MetricsServer("127.0.0.1", 0, lambda gz: big, "text/plain", max_requests=1).start()
    port = metrics.server_address[1]
    slow = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")    # and never read
        for _ in range(100):
            if metrics.in_flight:
                break
            time.sleep(0.02)
        assert metrics.in_flight == 1
        got, took = _raw(f"http://127.0.0.1:{port}", b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        assert got.startswith(b"HTTP/1.1 503") and took < 2
    finally:
        slow.close()
        metrics.stop()


def test_concurrent_scrapes_are_rendered_once_per_sample(tree, monkeypatch):
    from prometheus_client import exposition

    calls = []
    real = exposition.generate_latest

    def counting(registry):
        calls.append(1)
        return real(registry)
    monkeypatch.setattr(exposition, "generate_latest", counting)
    monkeypatch.setattr("prometheus_client.generate_latest", counting)
    srv = Served(tree)
    try:
        srv.metrics(b"accelgui_memory_total_bytes")
        before = len(calls)

        def scrape(_):
            return urllib.request.urlopen(srv.url + "/metrics", timeout=10).read()
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=16) as pool:
            bodies = list(pool.map(scrape, range(64)))
        samples = (time.monotonic() - began) / 0.1 + 2        # at most one render per sample taken
        assert all(b"accelgui_build_info" in b for b in bodies)
        assert len(calls) - before <= samples
    finally:
        srv.close()


def test_ipv6_loopback_and_port_0(tree):
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    srv = Served(tree, address="[::1]:0")
    try:
        assert srv.where["address"].startswith("[::1]:") and not srv.where["address"].endswith(":0")
        assert "accelgui_build_info" in srv.metrics(b"accelgui_build_info")
    finally:
        srv.close()


def test_an_address_in_use_is_a_clear_error(capsys):
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        port = taken.getsockname()[1]
        args = _args(serve_metrics=f"127.0.0.1:{port}", interval=1.0)
        assert monitor_cli.serve_metrics(args) == 1
        assert "accelgui: error:" in capsys.readouterr().err
    finally:
        taken.close()


# ------------------------------------------------------------------ conventions

MACHINES = __import__("os").path.join(__import__("os").path.dirname(__file__), "fixtures", "machines")
KNOWN_KINDS = ("gpu", "npu", "tpu", "fpga", "accelerator")


def _exposition(ctx, nv=None, report=None, advance=None) -> tuple[dict, str]:
    """The first sample of ``ctx`` and what a scrape serves after the second (``advance()``
    between them)."""
    from prometheus_client import CollectorRegistry, generate_latest

    clock = FakeClock()
    sampler = Sampler(ctx, nvml=nv, clock=clock)
    first = sampler.sample()
    if advance is not None:
        advance()
    clock.now += 1.0
    collector = monitor_cli.MonitorCollector()
    collector.sample = sampler.sample()
    collector.report = report
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return first, generate_latest(registry).decode()


def _series(body: str, name: str) -> list[tuple[dict, float]]:
    from prometheus_client.parser import text_string_to_metric_families

    return [(dict(s.labels), s.value) for fam in text_string_to_metric_families(body)
            for s in fam.samples if s.name == name]


def _cpu_seconds(body: str) -> dict:
    return {(labels["cpu"], labels["mode"]): value for labels, value in _series(body, "accelgui_cpu_seconds_total")}


def test_cpu_time_is_served_as_seconds_total_counters_that_rise(tree):
    from prometheus_client.parser import text_string_to_metric_families

    _, before = _exposition(ProbeContext(tree.root))
    tree.advance(10.0, busy=0.25)               # 2.5 s busy and 7.5 s idle on each CPU
    _, after = _exposition(ProbeContext(tree.root))
    fams = {f.name: f for f in text_string_to_metric_families(after)}
    assert fams["accelgui_cpu_seconds"].type == "counter"
    old, new = _cpu_seconds(before), _cpu_seconds(after)
    assert sorted({cpu for cpu, _ in new}) == ["0", "1", "2", "3"]
    assert {mode for _, mode in new} == {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}
    assert new[("0", "user")] - old[("0", "user")] == pytest.approx(2.5)       # ticks / USER_HZ (100)
    assert new[("3", "idle")] - old[("3", "idle")] == pytest.approx(7.5)
    assert all(new[key] >= old[key] for key in old)
    assert ("0", "user") in old and old[("0", "user")] == 10.0                   # 1000 ticks since boot


def test_devices_is_0_for_every_known_kind_on_a_machine_without_any(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "stat").write_text("cpu  1 0 1 10 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0\n")
    _, body = _exposition(ProbeContext(str(tmp_path)))
    counts = {labels["kind"]: value for labels, value in _series(body, "accelgui_devices")}
    assert counts == {kind: 0 for kind in KNOWN_KINDS}


def test_devices_counts_each_kind_and_drops_to_0_when_every_gpu_is_gone(tree):
    nv = monitor_nvml([gpu(0), gpu(1)])
    _, body = _exposition(ProbeContext(tree.root), nv)
    counts = {labels["kind"]: value for labels, value in _series(body, "accelgui_devices")}
    assert counts == {"gpu": 4, "npu": 2, "tpu": 0, "fpga": 0, "accelerator": 0}
    for node in ("card1", "card2"):
        tree.unplug(node)
    _, body = _exposition(ProbeContext(tree.root), monitor_nvml([]))
    counts = {labels["kind"]: value for labels, value in _series(body, "accelgui_devices")}
    assert counts["gpu"] == 0 and counts["npu"] == 2


def test_device_series_carry_dcgm_labels_pci_bus_id_gpu_and_uuid(tree):
    from accelgui.probes.monitor.nvidia import dcgm_bus_id

    assert dcgm_bus_id("0000:1b:00.0") == "00000000:1B:00.0" == dcgm_bus_id("00000000:1b:00.0")
    assert dcgm_bus_id("fdab0000.npu") is None and dcgm_bus_id(None) is None
    nv = monitor_nvml([gpu(0), gpu(1)])
    _, body = _exposition(ProbeContext(tree.root), nv)
    series = {labels["device"]: labels for labels, _ in _series(body, "accelgui_device_temperature_celsius")}
    nvidia = series["nvidia-gpu:0000:1c:00.0"]
    assert nvidia["pci_bus_id"] == "00000000:1C:00.0" and nvidia["gpu"] == "1"      # as DCGM exporter's
    assert nvidia["UUID"] == "GPU-00000001-aaaa-bbbb-cccc-dddddddddddd" and nvidia["kind"] == "gpu"
    amd = series["amd-gpu:0000:03:00.0"]
    assert amd["pci_bus_id"] == "00000000:03:00.0" and amd["kind"] == "gpu" and amd["gpu"] == amd["UUID"] == ""
    for name in ("accelgui_device_utilisation_ratio", "accelgui_device_memory_used_bytes", "accelgui_device_power_watts",
                 "accelgui_device_clock_hertz", "accelgui_device_processes"):
        labelled = [labels for labels, _ in _series(body, name) if labels["device"].startswith("nvidia-gpu:")]
        assert labelled and all(re.fullmatch(r"[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]", lv["pci_bus_id"])
                                and lv["gpu"] in ("0", "1") and lv["UUID"].startswith("GPU-") for lv in labelled), name


def test_one_build_info_and_one_device_info_label_set(tree):
    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(f"{MACHINES}/acc-radeon-desktop"))
    _, body = _exposition(ProbeContext(tree.root), monitor_nvml([gpu(0)]), report=report)
    builds = [line for line in body.splitlines() if re.match(r"accelgui_\w*build_info\b|accelgui_info\b", line)]
    assert len(builds) == 1 and builds[0].startswith('accelgui_build_info{version="')
    infos = [labels for labels, _ in _series(body, "accelgui_device_info")]
    assert infos and {frozenset(i) for i in infos} == {frozenset(
        ["device", "kind", "vendor", "name", "family", "readiness", "driver", "pci_bus_id", "gpu", "UUID"])}
    amd = next(i for i in infos if i["device"] == "amd-gpu:0000:03:00.0")
    assert amd["pci_bus_id"] == "00000000:03:00.0" and amd["kind"] == "gpu"
    # the info joins the live series on device
    assert any(labels["device"] == amd["device"] for labels, _ in _series(body, "accelgui_device_utilisation_ratio"))


def test_the_whole_exposition_passes_promtool_check_metrics(tree):
    import shutil
    import subprocess

    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(f"{MACHINES}/acc-radeon-desktop"))
    _, body = _exposition(ProbeContext(tree.root), monitor_nvml([gpu(0), gpu(1)]), report=report,
                          advance=lambda: tree.advance(2.0))
    for family in ("accelgui_cpu_seconds_total", "accelgui_devices{", 'pci_bus_id="00000000:1B:00.0"',
                   "accelgui_device_info{", "accelgui_build_info{", "accelgui_sample_timestamp_seconds"):
        assert family in body, family
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian: apt-get install prometheus): the exposition was not linted")
    check = subprocess.run([promtool, "check", "metrics"], input=body.encode(), capture_output=True, timeout=60)
    assert check.returncode == 0 and not check.stdout.strip() and not check.stderr.strip(), check.stdout + check.stderr


def test_the_default_port_collides_with_no_exporter_and_no_common_service():
    import os

    host, port = monitor_cli.parse_address(monitor_cli.DEFAULT_ADDRESS)
    assert host == "127.0.0.1"                             # loopback unless an address is given
    assert port != 9464                                    # OpenTelemetry's Prometheus exporter
    assert not 9100 <= port <= 9999                        # the wiki's allocated exporter range
    assert not 9090 <= port <= 9094 and port != 9400       # Prometheus, Alertmanager, DCGM exporter
    assert 1024 < port < 30000                             # unprivileged, below NodePorts and ephemeral ports
    if os.path.exists("/etc/services"):
        with open("/etc/services") as f:
            assert not re.search(rf"\s{port}/(tcp|udp)\b", f.read())
