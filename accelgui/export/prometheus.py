"""Prometheus: the node_exporter textfile-collector format (text exposition format 0.0.4).

Write it atomically into the collector directory (``accelgui --probe --format prometheus
--output /var/lib/prometheus/node-exporter/accelgui.prom``; see docs/fleet.md). Every metric is
a gauge named ``accelgui_*`` with HELP and TYPE lines; each family's samples are contiguous;
label values are cleaned of control characters, cut to 256 characters (``accelgui.bounds.NAME_MAX``,
ending with "…"; cut before they are escaped, so an escape is never split) and escaped
(``\\`` ``"`` newline); a series
that would repeat (same name and labels) is written once. No sample timestamps: the
textfile collector does not accept them.
"""

from __future__ import annotations

import math

from accelgui import benchmarks as B
from accelgui.export import benchmarks as EB
from accelgui.export import common as C

ROUTE_STATUSES = ("ready", "partial", "remote", "unavailable")
PROBE_STATUSES = ("ok", "partial", "absent", "error", "timeout")


def escape_label(value) -> str:
    """A label value: cleaned, cut to 256 characters as every exporter cuts a label
    (``accelgui.export.sanitize.label_text``), then escaped."""
    text = C.label_text(value) if value is not None else ""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    return C.clean(text).replace("\\", "\\\\").replace("\n", "\\n")


def _number(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    return repr(x)


class Metrics:
    """Gauge families in insertion order; duplicate series dropped."""

    def __init__(self) -> None:
        self.families: dict[str, tuple[str, list[tuple[tuple, object]]]] = {}
        self._seen: set[tuple] = set()

    def add(self, metric: str, help_text: str, value, /, **labels) -> None:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return
        fam = self.families.setdefault(metric, (help_text, []))
        key = tuple((k, escape_label(v)) for k, v in labels.items())
        if (metric, tuple(sorted(key))) in self._seen:
            return
        self._seen.add((metric, tuple(sorted(key))))
        fam[1].append((key, value))

    def text(self) -> str:
        out = []
        for name, (help_text, samples) in self.families.items():
            if not samples:
                continue
            out.append(f"# HELP {name} {escape_help(help_text)}")
            out.append(f"# TYPE {name} gauge")
            for key, value in samples:
                labels = ",".join(f'{k}="{v}"' for k, v in key)
                out.append(f"{name}{{{labels}}} {_number(value)}" if labels else f"{name} {_number(value)}")
        return "\n".join(out) + "\n"


def render(report, lang: str = "en") -> str:
    m = Metrics()
    p, c, mem = report.platform, report.cpu, report.memory
    m.add("accelgui_info", "accelgui version and report schema that produced these metrics", 1,
          version=report.accelgui_version, schema_version=report.schema_version)
    ts = C.created_epoch(report.created)
    m.add("accelgui_report_timestamp_seconds", "When the report was created (Unix time)",
          round(ts) if ts is not None else None)
    m.add("accelgui_platform_info", "Operating system, kernel and virtualisation", 1,
          os=p.os, os_release=p.os_release, kernel=p.kernel, machine=p.machine,
          virtualization=p.virtualization, container=p.container,
          cloud=(p.cloud or {}).get("provider") if isinstance(p.cloud, dict) else None,
          instance_type=(p.cloud or {}).get("instance_type") if isinstance(p.cloud, dict) else None)

    m.add("accelgui_cpu_info", "CPU model and microarchitecture", 1, vendor=c.vendor,
          model=c.model_name, arch=c.arch, microarchitecture=c.microarchitecture)
    m.add("accelgui_cpu_logical_cpus", "Logical CPUs (hardware threads)", c.logical_cpus)
    m.add("accelgui_cpu_sockets", "CPU sockets", c.sockets)
    cores = c.sockets * c.cores_per_socket if (c.sockets and c.cores_per_socket) else None
    m.add("accelgui_cpu_cores", "Physical CPU cores over all sockets", cores)
    m.add("accelgui_cpu_max_frequency_hertz", "Maximum CPU clock",
          c.max_mhz * 1e6 if C.num(c.max_mhz) else None)
    for feat in c.features or []:
        m.add("accelgui_cpu_feature", "CPU capability the advisor uses (1 = present)", 1, feature=feat)

    m.add("accelgui_memory_total_bytes", "Installed memory visible to the OS", mem.total_bytes)
    m.add("accelgui_memory_available_bytes", "Memory available when the report was made",
          mem.available_bytes)
    m.add("accelgui_numa_nodes", "NUMA nodes", mem.numa_nodes)

    counts: dict[tuple, int] = {}
    for d in report.devices:
        key = (C.label_text(d.kind), C.label_text(d.vendor) or "unknown")
        counts[key] = counts.get(key, 0) + 1
    for (kind, vendor), n in counts.items():
        m.add("accelgui_devices", "Accelerators found, by kind and vendor", n, kind=kind, vendor=vendor)
    for i, d in enumerate(report.devices):
        ident = dict(index=str(i), kind=d.kind, vendor=d.vendor or "unknown", name=d.name,
                     address=d.address)
        m.add("accelgui_device_info", "One accelerator and its state (value always 1)", 1,
              index=str(i), kind=d.kind, vendor=d.vendor or "unknown", name=d.name, bus=d.bus,
              address=d.address, pci_id=d.pci_id or d.usb_id, driver=d.driver, readiness=d.readiness)
        m.add("accelgui_device_ready", "1 when the device is ready to use (driver and runtime)",
              1 if d.readiness == "ready" else 0, **ident)
        m.add("accelgui_device_memory_bytes", "Device memory", C.device_memory(d), **ident)

    b = EB.section(report)   # the reader of the benchmark contract (older shapes upgraded)
    m.add("accelgui_benchmark_notices", "Notices about the benchmark run (disturbed, noisy, throttled)",
          len(EB.notice_texts(report)) if b else None)
    for row in B.headline(b) if b else []:
        for stat in ("min", "median", "max"):
            m.add("accelgui_benchmark_headline_value", "Headline benchmark figure over its repeats "
                  "(unit label: GB/s, GFLOP/s or ns)", row["spread"].get(stat), figure=row["key"],
                  unit=row["unit"], stat=stat)
    cpu = b.get("cpu") if isinstance(b.get("cpu"), dict) else {}
    stream = cpu.get("stream") if isinstance(cpu.get("stream"), dict) else {}
    st = stream.get("single_thread") if isinstance(stream.get("single_thread"), dict) else {}
    help_triad = "Measured STREAM triad memory bandwidth (GB/s, 10^9 bytes/s)"
    m.add("accelgui_benchmark_stream_triad_gbps", help_triad, C.num(st.get("triad_gbps")), threads="1")
    m.add("accelgui_benchmark_stream_triad_gbps", help_triad, C.num(stream.get("triad_gbps")),
          threads="all")
    for kern in ("copy", "scale", "add", "triad"):
        for threads, src in (("1", st), ("all", stream)):
            m.add("accelgui_benchmark_stream_gbps", "Measured STREAM bandwidth per kernel (GB/s)",
                  C.num(src.get(f"{kern}_gbps")), kernel=kern, threads=threads)
    fma = cpu.get("fma") if isinstance(cpu.get("fma"), dict) else {}
    for prec in ("fp64", "fp32"):
        for suffix, threads in (("1t", "1"), ("mt", "all")):
            m.add("accelgui_benchmark_fma_gflops", "Measured CPU FMA throughput (GFLOP/s)",
                  C.num(fma.get(f"{prec}_gflops_{suffix}")), precision=prec, threads=threads)
    theory = C.theory_finder(b)
    for prec in ("fp64", "fp32"):
        for suffix, threads in (("1t", "1"), ("mt", "all")):
            m.add("accelgui_benchmark_fma_theoretical_gflops", "Theoretical CPU FMA peak (GFLOP/s)",
                  theory(f"{prec}_gflops_{suffix}")[0], precision=prec, threads=threads)
    lat = cpu.get("latency_ns") if isinstance(cpu.get("latency_ns"), dict) else {}
    for level, v in lat.items():
        m.add("accelgui_benchmark_latency_seconds", "Measured load-to-use latency per memory level",
              v * 1e-9 if C.num(v) is not None else None, level=level)
    gemm = cpu.get("gemm") if isinstance(cpu.get("gemm"), dict) else {}
    for prec, blas in (("fp64", "dgemm"), ("fp32", "sgemm")):
        value = C.num(gemm.get(f"{blas}_gflops"))
        m.add("accelgui_benchmark_gemm_gflops", "Measured BLAS GEMM throughput (GFLOP/s)",
              value if value is not None else C.num(gemm.get(f"{prec}_gflops")), precision=prec)
    roof = b.get("roofline") if isinstance(b.get("roofline"), dict) else {}
    m.add("accelgui_benchmark_roofline_peak_gflops", "Roofline compute peak (GFLOP/s)",
          C.num(roof.get("peak_gflops")))
    m.add("accelgui_benchmark_roofline_peak_gbps", "Roofline memory bandwidth peak (GB/s)",
          C.num(roof.get("peak_gbps")))
    m.add("accelgui_benchmark_roofline_ridge_flops_per_byte", "Roofline ridge point (FLOP/byte)",
          C.num(roof.get("ridge_flops_per_byte")))
    for e in C.gpu_entries(b):
        ident = dict(index=str(e.get("index")), name=e.get("name"))
        m.add("accelgui_gpu_triad_gbps", "Measured GPU device-memory triad bandwidth (GB/s)",
              C.gpu_value(e, *C.GPU_TRIAD), **ident)
        m.add("accelgui_gpu_memory_peak_gbps", "GPU memory bandwidth peak from the driver (GB/s)",
              C.gpu_value(e, *C.GPU_PEAK_BW), **ident)
        m.add("accelgui_gpu_fp32_gflops", "Measured GPU FP32 FMA throughput (GFLOP/s)",
              C.gpu_value(e, *C.GPU_FP32), **ident)
        for direction in ("h2d", "d2h"):
            m.add("accelgui_gpu_transfer_gbps", "Measured host<->device copy bandwidth, pinned (GB/s)",
                  C.gpu_value(e, f"{direction}_gbps"), direction=direction, **ident)

    for r in report.routes:
        for status in ROUTE_STATUSES:
            m.add("accelgui_route_status", "Learning route verdict for this machine (1 = current status)",
                  1 if r.status == status else 0, route=r.id, status=status)
    for pr in report.probes:
        for status in PROBE_STATUSES:
            m.add("accelgui_probe_status", "Probe outcome (1 = current status)",
                  1 if pr.status == status else 0, probe=pr.name, status=status)
        m.add("accelgui_probe_duration_seconds", "Probe wall time",
              pr.elapsed_ms / 1000 if C.num(pr.elapsed_ms) is not None else None, probe=pr.name)
    return m.text()
