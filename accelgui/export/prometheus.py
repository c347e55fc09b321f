"""Prometheus: the node_exporter textfile-collector format (text exposition format 0.0.4).

Two textfiles with DISJOINT series, so node exporter can load both from one directory (a
series in two files is an error on every scrape, "was collected before with the same name and
label values"):

* the inventory (a report without benchmarks, ``accelgui --probe --format prometheus
  --output /var/lib/prometheus/node-exporter/accelgui.prom``): ``accelgui_build_info``,
  ``accelgui_host_info``, ``accelgui_devices{kind}`` (every known kind, 0 when none),
  ``accelgui_device_info``, ``accelgui_report_timestamp_seconds`` and the other facts below;
* the benchmark textfile (a report with benchmarks, ``accelgui --probe --bench quick --format
  prometheus --output .../accelgui-bench.prom``): only ``accelgui_benchmark_*`` series.

Base units everywhere (bytes per second, FLOP per second, seconds), one unit per family;
device series carry ``device`` (accelgui's id, as the ``--serve-metrics`` endpoint labels it),
``pci_bus_id`` in DCGM's form (``00000000:1B:00.0``) and, for NVIDIA GPUs, DCGM's ``gpu`` and
``UUID``. ``docs/metrics.md`` lists every family (generated: ``python tests/tools/metrics_reference.py
--write``). Every metric is
a gauge named ``accelgui_*`` with HELP and TYPE lines; each family's samples are contiguous;
label values are cleaned of control characters, cut to 256 characters (``accelgui.bounds.NAME_MAX``,
ending with "…"; cut before they are escaped, so an escape is never split) and escaped
(``\\`` ``"`` newline); a series
that would repeat (same name and labels) is written once. No sample timestamps: the
textfile collector does not accept them.
"""

from __future__ import annotations

import math
import re

from accelgui import benchmarks as bench
from accelgui.export import benchmarks as bench_export
from accelgui.export import common

ROUTE_STATUSES = ("ready", "partial", "remote", "unavailable")
PROBE_STATUSES = ("ok", "partial", "absent", "error", "timeout")
#: the device kinds ``accelgui_devices`` always carries (0 when none: "lost every GPU" alerts fire)
KINDS = ("gpu", "npu", "tpu", "fpga", "accelerator")
PARTS = ("inventory", "benchmark")
_BDF = re.compile(r"^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$")
GB, NS = 1e9, 1e-9


def escape_label(value) -> str:
    """A label value: cleaned, cut to 256 characters as every exporter cuts a label
    (``accelgui.export.sanitize.label_text``), then escaped."""
    text = common.label_text(value) if value is not None else ""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    return common.clean(text).replace("\\", "\\\\").replace("\n", "\\n")


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
        self.labels: dict[str, list[str]] = {}     # every family asked for, even one left empty

    def add(self, metric: str, help_text: str, value, /, **labels) -> None:
        """One sample; the first call for a family gives its HELP text and label names (a
        call with the value None declares the family without a sample)."""
        if metric not in self.families:
            self.families[metric] = (help_text, [])
            self.labels[metric] = list(labels)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return
        fam = self.families[metric]
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
        return "\n".join(out) + "\n" if out else ""      # nothing measured: an empty file


def pci_bus_id(address) -> str | None:
    """A PCI address in DCGM's (and NVML's) form: ``0000:1b:00.0`` -> ``00000000:1B:00.0``
    (8 hex digits of domain, upper-case hex), so accelgui's series join DCGM's
    ``pci_bus_id``; None for anything that is not a PCI address."""
    if not isinstance(address, str):
        return None
    m = _BDF.match(address.strip())
    if not m:
        return None
    dom, bus, dev, fn = m.groups()
    return f"{int(dom or '0', 16):08X}:{bus.upper()}:{dev.upper()}.{fn}"


def _details(d) -> dict:
    return d.details if isinstance(getattr(d, "details", None), dict) else {}


def _nvidia_gpu(d) -> bool:
    return d.kind == "gpu" and (d.vendor or "").lower() == "nvidia"


def device_id(d, index: int) -> str:
    """accelgui's id of a device, as the endpoint labels it (``FAMILY:ADDRESS``,
    ``nvidia-gpu:0000:1b:00.0``); the kind and the report's index when it has neither."""
    family = d.family or ("nvidia-gpu" if _nvidia_gpu(d) else None)
    address = common.label_text(d.address) if d.address else None
    return f"{family or d.kind or 'accelerator'}:{address or index}"


def device_labels(d, index: int) -> dict:
    """``device``, ``kind``, ``pci_bus_id`` and, for an NVIDIA GPU, NVML's ``gpu`` index and
    ``UUID`` (as DCGM names them); the same set for every device, empty when unknown."""
    det = _details(d)
    nv = _nvidia_gpu(d)
    gpu = det.get("index") if nv and isinstance(det.get("index"), int) else None
    uuid = det.get("uuid") if nv and isinstance(det.get("uuid"), str) else None
    return {"device": device_id(d, index), "kind": d.kind, "pci_bus_id": pci_bus_id(d.address) or "",
            "gpu": "" if gpu is None else str(gpu), "UUID": uuid or ""}


def part_of(report) -> str:
    """"benchmark" for a report that carries benchmarks, else "inventory"."""
    return "benchmark" if bench_export.section(report) else "inventory"


def render(report, lang: str = "en", part: str | None = None) -> str:
    """The textfile of ``part`` (by default :func:`part_of` the report): the inventory or the
    benchmark figures, never a series of the other (see the module docstring)."""
    return metrics(report, part).text()


def metrics(report, part: str | None = None) -> Metrics:
    part = part or part_of(report)
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; choose one of {', '.join(PARTS)}")
    m = Metrics()
    (_inventory if part == "inventory" else _benchmark)(m, report)
    return m


def _can_run(report) -> str | None:
    """What this machine can run, for the fleet view: the largest model of the estimates that
    decodes at a usable speed, and on which device ("Llama 3.1 8B Q4_K_M on NVIDIA ..."), or
    None without estimates (``--no-advice``) or when nothing runs at that speed."""
    est = report.estimates if isinstance(report.estimates, dict) else {}
    best = None
    for e in est.get("devices") or ():
        pick = e.get("largest_usable") if isinstance(e, dict) else None
        if isinstance(pick, dict) and common.num(pick.get("params_b")) and (
                best is None or pick["params_b"] > best[0]["params_b"]):
            best = (pick, e.get("device"))
    if best is None:
        return None
    return f"{best[0].get('size')} {best[0].get('quant')} on {best[1]}"


def _inventory(m: Metrics, report) -> None:
    from accelgui import __version__

    p, c, mem = report.platform, report.cpu, report.memory
    m.add("accelgui_build_info", "accelgui version (value always 1)", 1,
          version=report.accelgui_version or __version__)
    m.add("accelgui_host_info", "Facts of this machine from the accelgui report (value always 1)", 1,
          cpu_model=c.model_name, arch=c.arch, microarchitecture=c.microarchitecture,
          os=p.os_release or p.os, kernel=p.kernel, virtualization=p.virtualization,
          cpu_vendor=c.vendor, machine=p.machine, container=p.container,
          cloud=(p.cloud or {}).get("provider") if isinstance(p.cloud, dict) else None,
          instance_type=(p.cloud or {}).get("instance_type") if isinstance(p.cloud, dict) else None,
          schema_version=report.schema_version, can_run=_can_run(report))
    ts = common.created_epoch(report.created)
    m.add("accelgui_report_timestamp_seconds", "When the report was created (Unix time)",
          round(ts) if ts is not None else None)

    m.add("accelgui_cpu_logical_cpus", "Logical CPUs (hardware threads)", c.logical_cpus)
    m.add("accelgui_cpu_sockets", "CPU sockets", c.sockets)
    cores = c.sockets * c.cores_per_socket if (c.sockets and c.cores_per_socket) else None
    m.add("accelgui_cpu_cores", "Physical CPU cores over all sockets", cores)
    m.add("accelgui_cpu_max_frequency_hertz", "Maximum CPU clock",
          c.max_mhz * 1e6 if common.num(c.max_mhz) else None)
    m.add("accelgui_cpu_feature", "CPU capability the advisor uses (1 = present)", None, feature="")
    for feat in c.features or []:
        m.add("accelgui_cpu_feature", "", 1, feature=feat)
    m.add("accelgui_numa_nodes", "NUMA nodes", mem.numa_nodes)

    counts = dict.fromkeys(KINDS, 0)
    for d in report.devices:
        kind = common.label_text(d.kind) or "accelerator"
        counts[kind] = counts.get(kind, 0) + 1
    for kind, n in counts.items():
        m.add("accelgui_devices", "Accelerators found, by kind (every known kind, 0 when none)", n, kind=kind)
    m.add("accelgui_device_info", "One accelerator and its state (value always 1)", None,
          **dict.fromkeys(("device", "kind", "vendor", "name", "family", "readiness", "driver",
                           "pci_bus_id", "gpu", "UUID"), ""))
    m.add("accelgui_device_ready", "1 when the device is ready to use (driver and runtime)", None,
          **dict.fromkeys(("device", "kind", "pci_bus_id", "gpu", "UUID"), ""))
    for i, d in enumerate(report.devices):
        ident = device_labels(d, i)
        m.add("accelgui_device_info", "", 1, device=ident["device"], kind=d.kind,
              vendor=d.vendor or "unknown", name=d.name, family=d.family, readiness=d.readiness,
              driver=d.driver, pci_bus_id=ident["pci_bus_id"], gpu=ident["gpu"], UUID=ident["UUID"])
        m.add("accelgui_device_ready", "", 1 if d.readiness == "ready" else 0, **ident)

    m.add("accelgui_route_status", "Learning route verdict for this machine (1 = current status)", None,
          route="", status="")
    for r in report.routes:
        for status in ROUTE_STATUSES:
            m.add("accelgui_route_status", "", 1 if r.status == status else 0, route=r.id, status=status)
    m.add("accelgui_probe_status", "Probe outcome (1 = current status)", None, probe="", status="")
    m.add("accelgui_probe_duration_seconds", "Probe wall time", None, probe="")
    for pr in report.probes:
        for status in PROBE_STATUSES:
            m.add("accelgui_probe_status", "", 1 if pr.status == status else 0, probe=pr.name, status=status)
        m.add("accelgui_probe_duration_seconds", "",
              pr.elapsed_ms / 1000 if common.num(pr.elapsed_ms) is not None else None, probe=pr.name)


def _scaled(value, factor):
    """``value`` in base units, rounded to 12 significant digits (524.8 GB/s is 524800000000.0,
    not 524799999999.99994)."""
    v = common.num(value)
    return None if v is None else float(f"{v * factor:.12g}")


def _sub(d: dict, key: str) -> dict:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, dict) else {}


def _benchmark(m: Metrics, report) -> None:
    b = bench_export.section(report)   # the reader of the benchmark contract (older shapes upgraded)
    ts = common.created_epoch(report.created)
    m.add("accelgui_benchmark_timestamp_seconds", "When the benchmarks were run (Unix time)",
          round(ts) if ts is not None and b else None)
    m.add("accelgui_benchmark_notices", "Notices about the benchmark run (disturbed, noisy, throttled)",
          len(bench_export.notice_texts(report)) if b else None)
    def median(path: str):
        """The figure every face shows: the median of the repeats (docs/benchmarks.md)."""
        q = bench.quantity(b, path)
        return q["value"] if q else None

    cpu = _sub(b, "cpu")
    bw = "accelgui_benchmark_memory_bandwidth_bytes_per_second"
    m.add(bw, "Measured STREAM memory bandwidth per kernel, median of the repeats (bytes per second)", None,
          kernel="", threads="")
    for kern in ("copy", "scale", "add", "triad"):
        for threads, where in (("1", "cpu.stream.single_thread"), ("all", "cpu.stream")):
            m.add(bw, "", _scaled(median(f"{where}.{kern}_gbps"), GB), kernel=kern, threads=threads)
    flops = "accelgui_benchmark_compute_flop_per_second"
    m.add(flops, "Measured CPU compute throughput: FMA loops and BLAS GEMM, median of the repeats "
          "(FLOP per second)", None, precision="", kernel="", threads="")
    for prec in ("fp64", "fp32"):
        for suffix, threads in (("1t", "1"), ("mt", "all")):
            m.add(flops, "", _scaled(median(f"cpu.fma.{prec}_gflops_{suffix}"), GB), precision=prec,
                  kernel="fma", threads=threads)
    for prec, blas in (("fp64", "dgemm"), ("fp32", "sgemm")):
        m.add(flops, "", _scaled(median(f"cpu.gemm.{blas}_gflops"), GB), precision=prec, kernel="gemm",
              threads="all")
    peak = "accelgui_benchmark_compute_peak_flop_per_second"
    m.add(peak, "Theoretical CPU FMA peak (FLOP per second)", None, precision="", kernel="", threads="")
    theory = common.theory_finder(b)
    for prec in ("fp64", "fp32"):
        for suffix, threads in (("1t", "1"), ("mt", "all")):
            m.add(peak, "", _scaled(theory(f"{prec}_gflops_{suffix}")[0], GB), precision=prec, kernel="fma",
                  threads=threads)
    m.add("accelgui_benchmark_latency_seconds", "Measured load-to-use latency per memory level", None,
          level="")
    for level in _sub(cpu, "latency_ns"):
        m.add("accelgui_benchmark_latency_seconds", "", _scaled(median(f"cpu.latency_ns.{level}"), NS), level=level)
    roof = _sub(b, "roofline")
    m.add("accelgui_benchmark_roofline_peak_flop_per_second", "Roofline compute peak (FLOP per second)",
          _scaled(roof.get("peak_gflops"), GB))
    m.add("accelgui_benchmark_roofline_peak_bytes_per_second", "Roofline memory bandwidth peak "
          "(bytes per second)", _scaled(roof.get("peak_gbps"), GB))
    m.add("accelgui_benchmark_roofline_ridge_flop_per_byte", "Roofline ridge point (FLOP per byte)",
          common.num(roof.get("ridge_flops_per_byte")))

    gpu_labels = ("device", "pci_bus_id", "gpu", "UUID", "name")
    empty = dict.fromkeys(gpu_labels, "")
    g_bw = "accelgui_benchmark_gpu_memory_bandwidth_bytes_per_second"
    g_peak = "accelgui_benchmark_gpu_memory_bandwidth_peak_bytes_per_second"
    g_flops = "accelgui_benchmark_gpu_compute_flop_per_second"
    g_xfer = "accelgui_benchmark_gpu_transfer_bytes_per_second"
    m.add(g_bw, "Measured GPU device-memory bandwidth, median of the repeats (bytes per second)", None,
          kernel="", **empty)
    m.add(g_peak, "GPU memory bandwidth peak from the driver (bytes per second)", None, **empty)
    m.add(g_flops, "Measured GPU compute throughput, median of the repeats (FLOP per second)", None,
          precision="", kernel="", **empty)
    m.add(g_xfer, "Measured host<->device copy bandwidth, pinned memory (bytes per second)", None,
          direction="", **empty)
    for e in common.gpu_entries(b):
        ident = _gpu_ident(report, b, e)
        at = f"gpu.{e.get('index')}"
        m.add(g_bw, "", _scaled(median(f"{at}.triad_gbps"), GB), kernel="triad", **ident)
        m.add(g_peak, "", _scaled(common.gpu_value(e, *common.GPU_PEAK_BW), GB), **ident)
        m.add(g_flops, "", _scaled(median(f"{at}.fp32_gflops"), GB), precision="fp32", kernel="fma", **ident)
        for direction in ("h2d", "d2h"):
            m.add(g_xfer, "", _scaled(median(f"{at}.{direction}_gbps"), GB), direction=direction, **ident)


def _gpu_ident(report, b: dict, entry: dict) -> dict:
    """The labels of the GPU a benchmark entry was measured on: the report's device it
    matches (by PCI bus id, else by index and name, as the reports match it), else what the
    entry itself recorded (its CUDA index, which need not be NVML's, is never passed off as
    ``gpu``)."""
    key = str(entry.get("index"))
    for i, d in enumerate(report.devices):
        if d.kind != "gpu":
            continue
        det = _details(d)
        if bench._gpu_key_for(b, d, det.get("index") if "index" in det else None) == key:
            ident = device_labels(d, i)
            ident.pop("kind")
            return {**ident, "name": d.name or entry.get("name") or ""}
    bus = pci_bus_id(entry.get("pci_bus_id"))
    return {"device": f"cuda:{key}", "pci_bus_id": bus or "", "gpu": "", "UUID": "",
            "name": entry.get("name") or ""}
