"""Headless faces of the live monitor: ``accelgui --monitor`` and ``accelgui --serve-metrics``.

``--monitor`` prints a table refreshing in place on a terminal, JSON lines (one sample a line)
when piped or with ``--format json``. ``--serve-metrics [HOST:PORT]`` (default
``DEFAULT_ADDRESS``, loopback unless an address is given) serves Prometheus metrics through
prometheus_client: the latest sample (taken every ``--interval`` seconds in a thread of its
own, so concurrent scrapes only read it) in base units, and the report's facts as ``_info``
metrics. Label cardinality is bounded: devices, CPUs and sensors are capped, throttle reasons
come from the family data, processes are counted, never labelled. SIGTERM and SIGINT stop it
cleanly.

The series follow node exporter's and DCGM exporter's conventions (the names everyone codes
against): CPU time is ``accelgui_cpu_seconds_total{cpu,mode}`` counters straight from
/proc/stat (``rate()`` is left to the server, so no interval goes unseen), one
``accelgui_build_info``, ``accelgui_devices{kind}`` for every known kind, 0 when there is none
(a "lost every GPU" alert can fire), and every device series carries ``device`` (accelgui's
id), ``kind``, ``family``, ``pci_bus_id`` in DCGM's form (``00000000:1B:00.0``) and, for NVIDIA
GPUs, ``gpu`` (the NVML index) and ``UUID``, as DCGM exporter labels its series, so the two
join (``on(pci_bus_id)`` or ``on(UUID)``). Base units everywhere, one unit per family.

The default port, 19835: the Prometheus wiki's "Default port allocations" page
(https://github.com/prometheus/prometheus/wiki/Default-port-allocations) has had the whole
exporter range 9100-9999 allocated since 2023, so any port in it is some listed exporter's,
and Prometheus's "Writing exporters" guide recommends ports outside that range for exporters
that are not listed; 9464 (the old default) is the OpenTelemetry Prometheus exporter's. 19835
is outside that range, below the Kubernetes NodePort range (30000-32767) and Linux's ephemeral
ports (32768-60999, so an outgoing connection never holds it at start), and no common service's
(not in /etc/services).

Samples follow a monotonic schedule (the k-th at start + k x interval; a late one skips the
ticks it missed, never drifts); a sample that raises is reported on stderr and the schedule
goes on. The exposition is rendered once per sample (``generate_latest``) and served by
:class:`MetricsServer`, an asyncio server in one thread made to be left running: a listen
backlog of 1024, a request head must arrive within ``HEADER_TIMEOUT_S`` and an idle
keep-alive connection is closed after ``IDLE_TIMEOUT_S``, at most ``MAX_REQUESTS`` responses in
flight (beyond: 503 at once, as node exporter's ``--web.max-requests``), open connections
capped, ``/metrics`` only (``/`` is a page with a link, anything else 404), GET and HEAD.

Never imports Qt or Numba (the import contracts in pyproject.toml check it).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import signal
import socket
import sys
import threading
import time

from accelgui import METRICS_ADDRESS
from accelgui.l10n import tr

#: where --serve-metrics listens without an address (cli.py's const; why this port: above)
DEFAULT_ADDRESS = METRICS_ADDRESS
#: device kinds whose ``accelgui_devices{kind}`` is always served, 0 when none is there
KNOWN_KINDS = ("gpu", "npu", "tpu", "fpga", "accelerator")
#: the labels of every device series and of accelgui_device_info (one label set each)
DEVICE_LABELS = ["device", "kind", "family", "pci_bus_id", "gpu", "UUID"]
INFO_LABELS = ["device", "kind", "vendor", "name", "family", "readiness", "driver", "pci_bus_id", "gpu", "UUID"]
MAX_DEVICES, MAX_CPUS, MAX_SENSORS = 64, 1024, 128
#: the HTTP server's limits (see the module docstring)
HEADER_TIMEOUT_S, IDLE_TIMEOUT_S, WRITE_TIMEOUT_S = 5.0, 30.0, 30.0
MAX_REQUESTS, MAX_CONNECTIONS, BACKLOG, MAX_HEAD_BYTES = 40, 4096, 1024, 16384


def _usage(text: str):
    from accelgui.options import UsageError

    return UsageError(text)


def _check(args, lang) -> None:
    if not 0.1 <= args.interval <= 3600:
        raise _usage(tr("monitor.cli.bad_interval", lang))
    if args.count is not None and args.count < 1:
        raise _usage(tr("monitor.cli.bad_count", lang))


def _sampler(args):
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler

    from accelgui.options import check_sysroot
    return Sampler(ProbeContext(root=check_sysroot(args.sysroot)), deadline_s=sample_deadline(args.interval))


def sample_deadline(interval: float) -> float:
    """How long one source may take in one sample: the interval, within 1 to 5 seconds."""
    return max(1.0, min(5.0, interval))


class Schedule:
    """Monotonic ticks ``start + k * interval``: ``delay()`` is the wait until the next one;
    a tick already missed (a slow sample) is skipped, so the schedule never drifts."""

    def __init__(self, interval: float, clock=time.monotonic):
        self.interval, self.clock = interval, clock
        self.start = clock()
        self.k = 0

    def delay(self) -> float:
        now = self.clock()
        self.k = max(self.k + 1, math.floor((now - self.start) / self.interval) + 1)
        return max(0.0, self.start + self.k * self.interval - now)


def _take(sampler, lang: str, said: set):
    """One sample, or None when the sampler raised (said once on stderr per kind of error)."""
    try:
        return sampler.sample()
    except Exception as exc:  # noqa: BLE001 - one bad sample must not stop a long-running monitor
        text = f"{type(exc).__name__}: {exc}"[:300]
        if text not in said and len(said) < 100:
            said.add(text)
            sys.stderr.write(f"accelgui: warning: a sample failed: {text}\n")
        return None


def _sources_line(sample: dict) -> str | None:
    bad = [f"{name}: {st['error']}" for name, st in (sample.get("sources") or {}).items() if not st.get("ok")]
    return ("! " + "; ".join(bad)) if bad else None


def _fmt(value, digits=0) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def _gib(used, total) -> str:
    if used is None and total is None:
        return "-"
    gib = [_fmt(None if v is None else v / 2 ** 30, 1) for v in (used, total)]
    return f"{gib[0]}/{gib[1]} GiB"


def table_rows(sample: dict, lang: str = "en") -> list[list[str]]:
    """Rows of the monitor table: CPU, memory, then each device."""
    cpu, mem = sample["cpu"], sample["memory"]
    rows = [[tr("monitor.row.cpu", lang, n=len(cpu["per_cpu_util_pct"])), _fmt(cpu["util_pct"], 1), "-",
             _fmt(cpu["temp_c_max"]), _fmt(cpu["package_power_w"], 1), _fmt(cpu["freq_mhz_mean"])],
            [tr("monitor.row.memory", lang), "-", _gib(mem["used_bytes"], mem["total_bytes"]), "-", "-", "-"]]
    for d in sample["devices"]:
        rows.append([f"{d['name']} [{d['address']}]", _fmt(d["util_pct"], 1),
                     _gib(d["memory_used_bytes"], d["memory_total_bytes"]), _fmt(d["temp_c"]),
                     _fmt(d["power_w"], 1), _fmt(d["clock_mhz"])])
    return rows


def render_table(sample: dict, lang: str = "en") -> str:
    head = [tr(f"monitor.col.{c}", lang) for c in ("device", "util", "memory", "temp", "power", "clock")]
    rows = [head] + table_rows(sample, lang)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    stamp = time.strftime("%H:%M:%S", time.localtime(sample["t"]))
    lines = [stamp] + ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                       for r in rows]
    failed = _sources_line(sample)
    return "\n".join(lines + ([failed] if failed else []))


def cmd_monitor(args, lang: str = "en", out=None) -> int:
    out = out or sys.stdout
    _check(args, lang)
    tty = out.isatty()
    fmt = args.format or ("text" if tty else "json")
    if fmt not in ("text", "json"):
        raise _usage("--monitor prints --format text or json")
    sampler = _sampler(args)
    said: set = set()
    try:
        _take(sampler, lang, said)              # rates need a previous sample
        time.sleep(min(args.interval, 0.25))
        n = 0
        schedule = Schedule(args.interval)
        while True:
            sample = _take(sampler, lang, said)
            if sample is not None:
                if fmt == "json":
                    out.write(json.dumps(sample, separators=(",", ":"), allow_nan=False) + "\n")
                elif tty:
                    out.write("\x1b[H\x1b[J" + render_table(sample, lang) + "\n")
                else:
                    out.write(render_table(sample, lang) + "\n\n")
                out.flush()
                n += 1
                if args.count is not None and n >= args.count:
                    return 0
            time.sleep(schedule.delay())
    except KeyboardInterrupt:
        if tty:
            sys.stderr.write(tr("monitor.cli.interrupted", lang) + "\n")
        return 0
    finally:
        sampler.close()


def parse_address(text: str, lang: str = "en") -> tuple[str, int]:
    """"HOST:PORT", "[v6]:PORT" or "PORT" (on 127.0.0.1); port 0 picks a free one."""
    value = text.strip()
    host, port = "127.0.0.1", value
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif ":" in value:
        host, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) < 65536 or not host:     # 0: an ephemeral port
        raise _usage(tr("monitor.cli.bad_address", lang, value=text))
    return host, int(port)


class MonitorCollector:
    """A prometheus_client collector over the latest sample and the report's facts."""

    def __init__(self):
        self.sample: dict | None = None
        self.serial = 0                 # samples taken: what the rendered exposition is keyed by
        self.report = None

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily

        from accelgui import __version__

        fams = []

        def gauge(name, doc, labels=()):
            fam = GaugeMetricFamily(name, doc, labels=list(labels))
            fams.append(fam)
            return fam

        build = _info("accelgui_build", "accelgui version", {"version": __version__})
        fams.append(build)
        sample = self.sample
        if sample is not None:
            fams += sample_families(sample, gauge)
        if self.report is not None:
            fams += report_families(self.report, sample)
        return fams


def _info(name, doc, labels: dict, fam=None):
    from prometheus_client.core import InfoMetricFamily

    fam = fam or InfoMetricFamily(name, doc, labels=list(labels))
    fam.add_metric([], {k: "" if v is None else str(v)[:200] for k, v in labels.items()})
    return fam


def sample_families(sample: dict, gauge) -> list:
    from prometheus_client.core import CounterMetricFamily

    extra = []
    gauge("accelgui_sample_timestamp_seconds",
          "when the sample served was taken (unix seconds): alert when it falls behind").add_metric([], sample["t"])
    sources = sample.get("sources") or {}
    ok = gauge("accelgui_scrape_collector_success", "1 when a source answered in the last sample", ["collector"])
    took = gauge("accelgui_scrape_collector_duration_seconds", "time a source took in the last sample",
                 ["collector"])
    for name, st in sources.items():
        ok.add_metric([name], 1 if st.get("ok") else 0)
        if st.get("seconds") is not None:
            took.add_metric([name], st["seconds"])
    cpu, mem = sample["cpu"], sample["memory"]
    seconds = CounterMetricFamily("accelgui_cpu_seconds", "time each CPU spent in each mode since boot "
                                  "(/proc/stat, as node_cpu_seconds_total)", labels=["cpu", "mode"])
    for i, modes in enumerate((cpu.get("per_cpu_seconds") or [])[:MAX_CPUS]):
        for mode, value in modes.items():
            if value is not None:
                seconds.add_metric([str(i), mode], value)
    extra.append(seconds)
    util = gauge("accelgui_cpu_utilisation_ratio", "CPU busy fraction over the last sampling interval "
                 "(for graphs over any window: rate(accelgui_cpu_seconds_total))", ["cpu"])
    if cpu["util_pct"] is not None:
        util.add_metric(["all"], cpu["util_pct"] / 100)
    for i, pct in enumerate(cpu["per_cpu_util_pct"][:MAX_CPUS]):
        if pct is not None:
            util.add_metric([str(i)], pct / 100)
    freq = gauge("accelgui_cpu_frequency_hertz", "current CPU clock", ["cpu"])
    for i, mhz in enumerate(cpu["per_cpu_freq_mhz"][:MAX_CPUS]):
        if mhz is not None:
            freq.add_metric([str(i)], mhz * 1e6)
    load = gauge("accelgui_cpu_load_average", "run-queue load average", ["window"])
    for key, window in (("load_1m", "1m"), ("load_5m", "5m"), ("load_15m", "15m")):
        if cpu[key] is not None:
            load.add_metric([window], cpu[key])
    if cpu["ctx_switches_total"] is not None:
        ctxt = CounterMetricFamily("accelgui_cpu_context_switches", "context switches since boot")
        ctxt.add_metric([], cpu["ctx_switches_total"])
        extra.append(ctxt)
    if cpu["thermal_throttle_total"] is not None:
        thr = CounterMetricFamily("accelgui_cpu_thermal_throttle_events", "CPU package thermal throttle events")
        thr.add_metric([], cpu["thermal_throttle_total"])
        extra.append(thr)
    if cpu["rapl"]:
        energy = CounterMetricFamily("accelgui_rapl_energy_joules", "RAPL energy counter", labels=["zone", "name"])
        power = gauge("accelgui_rapl_power_watts", "RAPL power over the last interval", ["zone", "name"])
        for z in cpu["rapl"][:MAX_SENSORS]:
            energy.add_metric([z["zone"], z["name"]], z["energy_j"])
            if z["power_w"] is not None:
                power.add_metric([z["zone"], z["name"]], z["power_w"])
        extra.append(energy)
    temp = gauge("accelgui_hwmon_temperature_celsius", "hwmon temperature", ["chip", "sensor"])
    for t in cpu["temps"][:MAX_SENSORS]:
        temp.add_metric([t["chip"], t["label"]], t["temp_c"])
    fan = gauge("accelgui_hwmon_fan_rpm", "hwmon fan speed (revolutions per minute)", ["chip", "sensor"])
    for f in cpu["fans"][:MAX_SENSORS]:
        fan.add_metric([f["chip"], f["label"]], f["rpm"])
    for key, doc in (("total_bytes", "memory size"), ("available_bytes", "memory available"),
                     ("used_bytes", "memory in use"), ("swap_total_bytes", "swap size"),
                     ("swap_used_bytes", "swap in use")):
        if mem[key] is not None:
            gauge(f"accelgui_memory_{key}", doc).add_metric([], mem[key])
    if mem["numa_nodes"]:
        node = gauge("accelgui_numa_node_free_bytes", "free memory of a NUMA node", ["node"])
        for n in mem["numa_nodes"][:MAX_SENSORS]:
            if n["free_bytes"] is not None:
                node.add_metric([str(n["node"])], n["free_bytes"])
    extra += _device_families(sample["devices"][:MAX_DEVICES], gauge)
    return extra


_DEVICE_METRICS = (
    ("util_pct", "accelgui_device_utilisation_ratio", "device busy fraction", 0.01),
    ("mem_util_pct", "accelgui_device_memory_utilisation_ratio", "device memory controller busy fraction", 0.01),
    ("memory_used_bytes", "accelgui_device_memory_used_bytes", "device memory in use", 1),
    ("memory_total_bytes", "accelgui_device_memory_total_bytes", "device memory size", 1),
    ("temp_c", "accelgui_device_temperature_celsius", "device temperature", 1),
    ("power_w", "accelgui_device_power_watts", "device power draw", 1),
    ("power_limit_w", "accelgui_device_power_limit_watts", "device power limit", 1),
    ("clock_mhz", "accelgui_device_clock_hertz", "device core clock", 1e6),
    ("mem_clock_mhz", "accelgui_device_memory_clock_hertz", "device memory clock", 1e6),
    ("pcie_rx_bytes_per_s", "accelgui_device_pcie_rx_bytes_per_second", "PCIe receive throughput", 1),
    ("pcie_tx_bytes_per_s", "accelgui_device_pcie_tx_bytes_per_second", "PCIe transmit throughput", 1),
)


def device_kind(family: str | None) -> str:
    """The kind (gpu, npu, ...) of a device family, from the family data."""
    from accelgui.probes.families import family as family_entry

    return (family_entry(family) or {}).get("kind") or "accelerator"


def _text(value) -> str:
    return "" if value is None else str(value)[:200]


def device_labels(d: dict) -> list[str]:
    """The label values of a sampled device's series (``DEVICE_LABELS``)."""
    return [_text(d["id"]), device_kind(d.get("family")), _text(d.get("family")), _text(d.get("pci_bus_id")),
            _text(d.get("index")), _text(d.get("uuid"))]


def _device_families(devices: list[dict], gauge) -> list:
    from prometheus_client.core import CounterMetricFamily

    from accelgui.probes.monitor import family_telemetry

    labels = DEVICE_LABELS
    count = gauge("accelgui_devices", "accelerators seen in the latest sample, by kind (0 when none)", ["kind"])
    kinds = dict.fromkeys(KNOWN_KINDS, 0)
    for d in devices:
        kind = device_kind(d.get("family"))
        kinds[kind] = kinds.get(kind, 0) + 1
    for kind, n in kinds.items():
        count.add_metric([kind], n)
    for key, name, doc, scale in _DEVICE_METRICS:
        fam = gauge(name, doc, labels)
        for d in devices:
            if d.get(key) is not None:
                fam.add_metric(device_labels(d), d[key] * scale)
    procs = gauge("accelgui_device_processes", "processes using the device", labels)
    known = list((family_telemetry("nvidia-gpu") or {}).get("throttle_bits", {}))
    throttle = gauge("accelgui_device_throttle_active", "1 while a clock throttle reason is active",
                     labels + ["reason"])
    ecc = CounterMetricFamily("accelgui_device_ecc_errors", "volatile ECC errors", labels=labels + ["type"])
    for d in devices:
        lv = device_labels(d)
        if d.get("processes") is not None:
            procs.add_metric(lv, len(d["processes"]))
        if d.get("throttle") is not None:
            for reason in known:
                throttle.add_metric(lv + [reason], 1 if reason in d["throttle"] else 0)
        for kind in ("corrected", "uncorrected"):
            if d.get(f"ecc_{kind}") is not None:
                ecc.add_metric(lv + [kind], d[f"ecc_{kind}"])
    return [ecc]


def report_families(report, sample: dict | None = None) -> list:
    """The report's facts: ``accelgui_host_info`` and one ``accelgui_device_info`` per device
    (``INFO_LABELS``, one label set; ``gpu`` and ``UUID`` from the latest sample's device of the
    same id when the report lacks them)."""
    from accelgui.probes.monitor.nvidia import dcgm_bus_id

    c, p = report.cpu, report.platform
    fams = [_info("accelgui_host", "facts of this machine from the accelgui report",
                  {"cpu_model": c.model_name, "arch": c.arch, "microarchitecture": c.microarchitecture,
                   "os": p.os_release or p.os, "kernel": p.kernel, "virtualization": p.virtualization})]
    from prometheus_client.core import InfoMetricFamily

    seen = {d["id"]: d for d in (sample or {}).get("devices", [])}
    dev = InfoMetricFamily("accelgui_device", "accelerators found by the accelgui report", labels=INFO_LABELS)
    for d in report.devices[:MAX_DEVICES]:
        family = getattr(d, "family", None)
        details = getattr(d, "details", None) or {}
        ident = f"{family or d.kind or 'device'}:{d.address or d.name or ''}"
        live = seen.get(ident, {})
        index = live.get("index", details.get("index"))
        values = {"device": ident, "kind": d.kind, "vendor": d.vendor, "name": d.name, "family": family,
                  "readiness": d.readiness, "driver": d.driver,
                  "pci_bus_id": live.get("pci_bus_id") or dcgm_bus_id(d.address),
                  "gpu": index, "UUID": live.get("uuid") or details.get("uuid")}
        dev.add_metric([], {k: _text(v) for k, v in values.items()})
    fams.append(dev)
    return fams


class MetricsCache:
    """The exposition rendered once per sample (and once more when the report's facts
    arrive): every scrape in between is served the same bytes, so concurrent scrapes cost
    the same as one. The gzip form is made on the first scrape that asks for it."""

    def __init__(self, registry):
        self.registry = registry
        self.lock = threading.Lock()
        self.key = None
        self.body = b""
        self._gzip: bytes | None = None

    def refresh(self, key) -> None:
        from prometheus_client import generate_latest

        with self.lock:
            if key == self.key and self.body:
                return
            body = generate_latest(self.registry)
            self.key, self.body, self._gzip = key, body, None

    def get(self, gzipped: bool = False) -> bytes:
        body = self.body
        if not gzipped:
            return body
        with self.lock:
            if self._gzip is None or self._gzip[0] is not body:
                self._gzip = (body, gzip.compress(body, compresslevel=5))
            return self._gzip[1]


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
            431: "Request Header Fields Too Large", 503: "Service Unavailable", 505: "HTTP Version Not Supported"}
_INDEX = (b"<!doctype html><html><head><title>accelgui exporter</title></head><body>"
          b"<h1>accelgui exporter</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n")


class MetricsServer:
    """The /metrics endpoint (see the module docstring) in a thread of its own.

    ``body(gzipped)`` gives the bytes to serve. The socket is bound in the constructor (it
    raises OSError when the address cannot be had); ``start()`` serves, ``stop()`` closes
    every connection and joins the thread."""

    def __init__(self, host: str, port: int, body, content_type: str, *, max_requests: int = MAX_REQUESTS,
                 max_connections: int | None = None, header_timeout_s: float = HEADER_TIMEOUT_S,
                 idle_timeout_s: float = IDLE_TIMEOUT_S, write_timeout_s: float = WRITE_TIMEOUT_S,
                 backlog: int = BACKLOG):
        self.body, self.content_type = body, content_type.encode()
        self.max_requests = max_requests
        self.max_connections = max_connections or _connection_cap()
        self.header_timeout_s, self.idle_timeout_s, self.write_timeout_s = \
            header_timeout_s, idle_timeout_s, write_timeout_s
        self.backlog = backlog
        self.in_flight = 0
        self.connections = 0
        self.served = {"ok": 0, "busy": 0, "dropped": 0}
        self.sock = _listen(host, port, backlog)
        self.server_address = self.sock.getsockname()[:2]
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="metrics-http")
        self._writers: set = set()

    def start(self) -> MetricsServer:
        self.thread.start()
        self._started.wait(10)
        return self

    def stop(self) -> None:
        if self.loop is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self._stopped.set)
            self.thread.join(timeout=5)
        else:
            self.sock.close()

    def _run(self) -> None:
        loop = self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve())
        finally:
            pending = asyncio.all_tasks(loop)           # connections still open: ended quietly
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=5))
            loop.close()

    async def _serve(self) -> None:
        self._stopped = asyncio.Event()
        server = await asyncio.start_server(self._client, sock=self.sock, backlog=self.backlog, limit=MAX_HEAD_BYTES)
        self._started.set()
        try:
            await self._stopped.wait()
        finally:
            server.close()
            for w in list(self._writers):
                w.transport.abort()
            await server.wait_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.connections >= self.max_connections:     # over the cap: closed at once
            self.served["dropped"] += 1
            writer.transport.abort()
            return
        self.connections += 1
        self._writers.add(writer)
        loop = asyncio.get_running_loop()
        try:
            buf = b""
            while True:
                idle_by, head_by = loop.time() + self.idle_timeout_s, None
                while b"\r\n\r\n" not in buf:
                    if len(buf) > MAX_HEAD_BYTES:
                        await self._answer(writer, 431, b"request head too large\n", close=True)
                        return
                    if buf and head_by is None:         # a request began: its head has a deadline
                        head_by = loop.time() + self.header_timeout_s
                    try:
                        chunk = await asyncio.wait_for(reader.read(4096),
                                                       max(0.0, (head_by or idle_by) - loop.time()))
                    except asyncio.TimeoutError:
                        if buf:                          # half a request: dropped
                            self.served["dropped"] += 1
                            await self._answer(writer, 408, b"request timeout\n", close=True)
                        return                           # idle: closed
                    if not chunk:
                        return
                    buf += chunk
                head, _, buf = buf.partition(b"\r\n\r\n")
                if not await self._request(writer, head):
                    return
        except (ConnectionError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return
        finally:
            self.connections -= 1
            self._writers.discard(writer)
            writer.close()

    async def _request(self, writer, head: bytes) -> bool:
        """Answer one request; False when the connection is to be closed."""
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            await self._answer(writer, 400 if len(parts) != 3 else 505, b"bad request\n", close=True)
            return False
        method, target, version = parts
        headers = {}
        for line in lines[1:]:
            key, sep, value = line.partition(":")
            if sep:
                headers[key.strip().lower()] = value.strip().lower()
        conn = headers.get("connection", "")
        close = "close" in conn or (version == "HTTP/1.0" and "keep-alive" not in conn)
        if "content-length" in headers or "transfer-encoding" in headers:
            close = True                         # a body we will not read: the stream ends here
        path = target.split("?", 1)[0]
        if method not in ("GET", "HEAD"):
            await self._answer(writer, 405, b"GET or HEAD only\n", close=close, extra=b"Allow: GET, HEAD\r\n")
        elif path == "/metrics":
            if self.in_flight >= self.max_requests:
                self.served["busy"] += 1
                await self._answer(writer, 503, b"too many requests in flight\n", close=True,
                                   extra=b"Retry-After: 1\r\n")
                return False
            gzipped = "gzip" in headers.get("accept-encoding", "")
            body = self.body(gzipped)
            self.served["ok"] += 1
            await self._answer(writer, 200, body, close=close, head=method == "HEAD", ctype=self.content_type,
                               extra=b"Content-Encoding: gzip\r\n" if gzipped else b"")
        elif path == "/":
            await self._answer(writer, 200, _INDEX, close=close, head=method == "HEAD",
                               ctype=b"text/html; charset=utf-8")
        else:
            await self._answer(writer, 404, b"not found: the metrics are at /metrics\n", close=close,
                               head=method == "HEAD")
        return not close

    async def _answer(self, writer, status: int, body: bytes, *, close: bool, head: bool = False,
                      ctype: bytes = b"text/plain; charset=utf-8", extra: bytes = b"") -> None:
        writer.write(b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s%s\r\n"
                     % (status, _REASONS[status].encode(), ctype, len(body), extra,
                        b"Connection: close\r\n" if close else b"Connection: keep-alive\r\n"))
        if not head:
            writer.write(body)
        if not writer.transport.get_write_buffer_size():
            return                  # all of it with the kernel already: nothing of ours in flight
        self.in_flight += 1         # a reader slower than the response: its bytes wait here
        try:
            await asyncio.wait_for(writer.drain(), self.write_timeout_s)
        finally:
            self.in_flight -= 1


def _connection_cap() -> int:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 256
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - 64))      # leave descriptors for the sampler


def _listen(host: str, port: int, backlog: int) -> socket.socket:
    """A listening TCP socket on ``host`` (name, IPv4 or IPv6 address) and ``port`` (0: any)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    error: OSError | None = None
    for family, kind, proto, _, addr in sorted(infos, key=lambda i: i[0] != socket.AF_INET):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)    # "[::]" keeps the system's
            sock.bind(addr)
            sock.listen(backlog)
            sock.setblocking(False)
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error or OSError("no address to listen on")


def serve_metrics(args, lang: str = "en", ready=None, stop: threading.Event | None = None,
                  max_requests: int = MAX_REQUESTS) -> int:
    """Serve until SIGTERM/SIGINT (or ``stop`` is set). ``ready(address)`` is called once
    listening (tests use it to learn an ephemeral port)."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry

    _check(args, lang)
    host, port = parse_address(args.serve_metrics, lang)
    collector = MonitorCollector()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    cache = MetricsCache(registry)
    cache.refresh(("start",))
    try:
        httpd = MetricsServer(host, port, cache.get, CONTENT_TYPE_LATEST, max_requests=max_requests)
    except OSError as exc:
        text = tr("monitor.cli.cannot_listen", lang, address=f"{host}:{port}", reason=exc.strerror or exc)
        sys.stderr.write(f"accelgui: error: {text}\n")
        return 1
    httpd.start()
    stop = stop or threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    bound = httpd.server_address
    address = f"[{bound[0]}]:{bound[1]}" if ":" in bound[0] else f"{bound[0]}:{bound[1]}"
    sys.stderr.write(tr("monitor.cli.serving", lang, address=address) + "\n")
    sampler = _sampler(args)

    def facts():
        _probe_facts(collector, sampler.ctx)
        cache.refresh((collector.serial, "report"))

    threading.Thread(target=facts, daemon=True, name="metrics-report").start()
    if ready is not None:
        ready(address)
    said: set = set()
    try:
        _take(sampler, lang, said)              # rates need a previous sample
        if not stop.wait(min(args.interval, 0.25)):
            schedule = Schedule(args.interval)
            while True:
                sample = _take(sampler, lang, said)
                if sample is not None:
                    collector.sample = sample
                    collector.serial += 1
                    cache.refresh((collector.serial, collector.report is not None))
                if stop.wait(schedule.delay()):
                    break
    finally:
        httpd.stop()
        sampler.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sys.stderr.write(tr("monitor.cli.stopped", lang) + "\n")
    return 0


def _probe_facts(collector: MonitorCollector, ctx) -> None:
    from accelgui.runner import run_probes

    try:
        collector.report = run_probes(ctx)
    except Exception:  # noqa: BLE001 - without the facts the live metrics are still served
        collector.report = None

