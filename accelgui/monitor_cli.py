"""Headless faces of the live monitor: ``accelgui --monitor`` and ``accelgui --serve-metrics``.

``--monitor`` prints a table refreshing in place on a terminal, JSON lines (one sample a line)
when piped or with ``--format json``. ``--serve-metrics [HOST:PORT]`` (default 127.0.0.1:9464,
loopback unless an address is given) serves Prometheus metrics through prometheus_client:
the latest sample (taken every ``--interval`` seconds in a thread of its own, so concurrent
scrapes only read it) in base units, and the report's facts as ``_info`` metrics. Label
cardinality is bounded: devices, CPUs and sensors are capped, throttle reasons come from the
family data, processes are counted, never labelled. SIGTERM and SIGINT stop it cleanly.

Never imports Qt or Numba (the import contracts in pyproject.toml check it).
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time

from accelgui.l10n import tr

DEFAULT_ADDRESS = "127.0.0.1:9464"      # the const of --serve-metrics in cli.py
MAX_DEVICES, MAX_CPUS, MAX_SENSORS = 64, 1024, 128


def _usage(text: str):
    from accelgui.cli import UsageError

    return UsageError(text)


def _check(args, lang) -> None:
    if not 0.1 <= args.interval <= 3600:
        raise _usage(tr("monitor.cli.bad_interval", lang))
    if args.count is not None and args.count < 1:
        raise _usage(tr("monitor.cli.bad_count", lang))


def _sampler(args):
    from accelgui.probes.context import ProbeContext
    from accelgui.probes.monitor import Sampler

    from accelgui.cli import _check_sysroot
    return Sampler(ProbeContext(root=_check_sysroot(args.sysroot)))


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
    return "\n".join(lines)


def cmd_monitor(args, lang: str = "en", out=None) -> int:
    out = out or sys.stdout
    _check(args, lang)
    tty = out.isatty()
    fmt = args.format or ("text" if tty else "json")
    if fmt not in ("text", "json"):
        raise _usage("--monitor prints --format text or json")
    sampler = _sampler(args)
    try:
        sampler.sample()                        # rates need a previous sample
        time.sleep(min(args.interval, 0.25))
        n = 0
        while True:
            sample = sampler.sample()
            if fmt == "json":
                out.write(json.dumps(sample, separators=(",", ":")) + "\n")
            elif tty:
                out.write("\x1b[H\x1b[J" + render_table(sample, lang) + "\n")
            else:
                out.write(render_table(sample, lang) + "\n\n")
            out.flush()
            n += 1
            if args.count is not None and n >= args.count:
                return 0
            time.sleep(args.interval)
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
            fams += report_families(self.report)
        return fams


def _info(name, doc, labels: dict, fam=None):
    from prometheus_client.core import InfoMetricFamily

    fam = fam or InfoMetricFamily(name, doc, labels=list(labels))
    fam.add_metric([], {k: "" if v is None else str(v)[:200] for k, v in labels.items()})
    return fam


def sample_families(sample: dict, gauge) -> list:
    from prometheus_client.core import CounterMetricFamily

    extra = []
    cpu, mem = sample["cpu"], sample["memory"]
    util = gauge("accelgui_cpu_utilisation_ratio", "CPU busy fraction since the previous sample", ["cpu"])
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


def _device_families(devices: list[dict], gauge) -> list:
    from prometheus_client.core import CounterMetricFamily

    from accelgui.probes.monitor import family_telemetry

    labels = ["device", "family"]
    for key, name, doc, scale in _DEVICE_METRICS:
        fam = gauge(name, doc, labels)
        for d in devices:
            if d.get(key) is not None:
                fam.add_metric([d["id"], d["family"]], d[key] * scale)
    procs = gauge("accelgui_device_processes", "processes using the device", labels)
    known = list((family_telemetry("nvidia-gpu") or {}).get("throttle_bits", {}))
    throttle = gauge("accelgui_device_throttle_active", "1 while a clock throttle reason is active",
                     labels + ["reason"])
    ecc = CounterMetricFamily("accelgui_device_ecc_errors", "volatile ECC errors", labels=labels + ["type"])
    for d in devices:
        lv = [d["id"], d["family"]]
        if d.get("processes") is not None:
            procs.add_metric(lv, len(d["processes"]))
        if d.get("throttle") is not None:
            for reason in known:
                throttle.add_metric(lv + [reason], 1 if reason in d["throttle"] else 0)
        for kind in ("corrected", "uncorrected"):
            if d.get(f"ecc_{kind}") is not None:
                ecc.add_metric(lv + [kind], d[f"ecc_{kind}"])
    return [ecc]


def report_families(report) -> list:
    c, p = report.cpu, report.platform
    fams = [_info("accelgui_host", "facts of this machine from the accelgui report",
                  {"cpu_model": c.model_name, "arch": c.arch, "microarchitecture": c.microarchitecture,
                   "os": p.os_release or p.os, "kernel": p.kernel, "virtualization": p.virtualization})]
    from prometheus_client.core import InfoMetricFamily

    dev = InfoMetricFamily("accelgui_device", "accelerators found by the accelgui report",
                           labels=["address", "kind", "vendor", "name", "driver", "readiness", "family"])
    for d in report.devices[:MAX_DEVICES]:
        family = d.get("family") if isinstance(d, dict) else getattr(d, "family", None)
        dev.add_metric([], {"address": d.address or "", "kind": d.kind or "", "vendor": d.vendor or "",
                            "name": d.name or "", "driver": d.driver or "", "readiness": d.readiness or "",
                            "family": family or ""})
    fams.append(dev)
    return fams


def serve_metrics(args, lang: str = "en", ready=None, stop: threading.Event | None = None) -> int:
    """Serve until SIGTERM/SIGINT (or ``stop`` is set). ``ready(address)`` is called once
    listening (tests use it to learn an ephemeral port)."""
    from prometheus_client import CollectorRegistry, start_http_server

    _check(args, lang)
    host, port = parse_address(args.serve_metrics, lang)
    collector = MonitorCollector()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    try:
        httpd, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        text = tr("monitor.cli.cannot_listen", lang, address=f"{host}:{port}", reason=exc.strerror or exc)
        sys.stderr.write(f"accelgui: error: {text}\n")
        return 1
    stop = stop or threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    bound = httpd.server_address
    address = f"[{bound[0]}]:{bound[1]}" if ":" in bound[0] else f"{bound[0]}:{bound[1]}"
    sys.stderr.write(tr("monitor.cli.serving", lang, address=address) + "\n")
    sampler = _sampler(args)
    threading.Thread(target=_probe_facts, args=(collector, sampler.ctx), daemon=True, name="metrics-report").start()
    if ready is not None:
        ready(address)
    try:
        sampler.sample()
        while not stop.wait(min(args.interval, 0.25) if collector.sample is None else args.interval):
            collector.sample = sampler.sample()
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
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

