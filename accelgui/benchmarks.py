"""The benchmark contract: what the benchmark child writes, and the one reader of it.

The child (``accelgui/probes/kernels``) writes the report's ``benchmarks`` object; its shape is
described in ``report.schema.json`` (``$defs/bench*``) and in ``docs/report-contract.md``.
Every consumer (the app's Benchmarks page, the exports, the advisor's estimates, compare) reads
it through this module, never by walking the dict itself:

    read(report)              -> the upgraded, validated section, or None
    headline(report)          -> the few figures people read, each with unit, peak, repeat spread
                                 and the typical range of its class of machine
    memory_bandwidth(report, device=None) -> measured bandwidth (median, min, max) or None
    notices(report)           -> messages for a disturbed, noisy or throttled run

Older report shapes are upgraded here, in :func:`upgrade`, and nowhere else. A section that
does not fit the schema once upgraded raises :class:`BenchmarkError` naming the field (checked
by accelgui.validation against ``report.schema.json``; the last few sections checked are
remembered, so a face that reads the same section again pays a copy, not a check).

``report`` may be a :class:`accelgui.report.Report`, a report dict, or the benchmarks dict
itself. Qt-free, Numba-free; sits between the probes and the report layer.
"""

from __future__ import annotations

import math
import re
from typing import Any

from accelgui import BENCHMARK_CONTRACT
from accelgui.l10n import msg

JSON = dict[str, Any]

#: current contract version written by the child (``benchmarks.contract``)
CONTRACT = BENCHMARK_CONTRACT
#: a figure whose repeats differ by more than this share of the median is noisy
NOISY_REL_SPREAD = 0.20
#: an all-core FP64 figure below this multiple of one core's is suspicious (when cores >= 2)
FLAT_SCALING = 1.2


class BenchmarkError(ValueError):
    """A benchmark section that does not fit the contract; ``path`` names the field."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


# --------------------------------------------------------------------------- small helpers

def _num(x: Any) -> float | None:
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def _dict(x: Any) -> JSON:
    return x if isinstance(x, dict) else {}


def _section(report: Any) -> Any:
    """The raw benchmarks dict of a Report, a report dict or the section itself."""
    if report is None:
        return None
    if hasattr(report, "benchmarks") and not isinstance(report, dict):
        return report.benchmarks
    if isinstance(report, dict):
        if "schema_version" in report or "platform" in report or "probes" in report:
            return report.get("benchmarks")
        return report
    return None


def _facts(report: Any, part: str) -> JSON:
    """report.cpu / report.platform / ... as a dict, for a Report or a report dict."""
    if isinstance(report, dict):
        return _dict(report.get(part))
    value = getattr(report, part, None)
    if value is None:
        return {}
    return value if isinstance(value, dict) else dict(getattr(value, "__dict__", {}))


# --------------------------------------------------------------------------- upgrade

# names older children wrote per GPU, mapped to the current ones (git history of
# probes/kernels/gpu_kernels.py and the readers that followed it)
_GPU_RENAMES = {"device_triad_gbps": "triad_gbps", "bandwidth_gbps": "triad_gbps",
                "device_gbps": "triad_gbps", "dram_gbps": "triad_gbps",
                "fma_fp32_gflops": "fp32_gflops", "peak_fp32_gflops_measured": "fp32_gflops",
                "peak_gbps": "memory_peak_gbps", "theoretical_gbps": "memory_peak_gbps",
                "nvml_peak_gbps": "memory_peak_gbps",
                "theoretical_fp32_gflops": "fp32_peak_gflops", "peak_fp32_gflops": "fp32_peak_gflops"}
_ENV_RENAMES = {"numba_threading_layer": "threading_layer", "llvm_cpu": "llvm_cpu_name"}
_STREAM_OPS = ("copy", "scale", "add", "triad")


def _spread_from_best(best: Any, median: Any, rel_time_spread: Any, n: Any = None) -> JSON | None:
    """A spread {min, median, max} of a rate from what children before contract 2 kept: the
    best rate, the median rate and (max - min) / median of the times. The slowest rate is
    1 / (1/best + spread/median), exactly, since rate = work / time."""
    best, median = _num(best), _num(median)
    if not best or not median:
        return None
    rel = _num(rel_time_spread)
    low = 1.0 / (1.0 / best + rel / median) if rel is not None else None
    return _spread(low if low is not None else None, median, best, n)


def _spread(low: Any, median: Any, high: Any, n: Any = None) -> JSON:
    rel = (high - low) / median if None not in (low, high) and median else None
    return {"min": _round(low), "median": _round(median), "max": _round(high), "n": n,
            "rel": round(rel, 4) if rel is not None else None}


def _round(x: Any) -> float | None:
    return None if x is None else round(float(x), 3)


def upgrade(section: JSON) -> JSON:
    """A copy of ``section`` in the current contract's shape (older shapes, one place)."""
    import copy     # only for a report that has a benchmark section

    b = copy.deepcopy(section)
    b.setdefault("contract", 1)
    if not isinstance(b.get("warnings"), list):
        b["warnings"] = [str(b["warnings"])] if isinstance(b.get("warnings"), str) else []
    b.setdefault("notices", [])
    spread = b.setdefault("spread", {})
    if isinstance(b.get("environment"), dict):
        _upgrade_environment(b["environment"])
    if isinstance(b.get("cpu"), dict):
        _upgrade_cpu(b["cpu"], spread)
    gpu = b.get("gpu")
    if isinstance(gpu, list) or (isinstance(gpu, dict) and isinstance(gpu.get("devices"), list)):
        b["gpu"] = _gpu_by_index(gpu)
    if isinstance(b.get("gpu"), dict):
        _upgrade_gpu(b["gpu"], spread)
    for s in spread.values():
        if isinstance(s, dict) and "rel" not in s:
            lo, med, hi = _num(s.get("min")), _num(s.get("median")), _num(s.get("max"))
            s["rel"] = round((hi - lo) / med, 4) if lo is not None and hi is not None and med else None
    return b


def _upgrade_environment(env: JSON) -> None:
    for old, new in _ENV_RENAMES.items():
        if old in env and new not in env:
            env[new] = env.pop(old)
    if isinstance(env.get("blas"), str):
        env["blas"] = {"internal_api": env["blas"]}


def _upgrade_cpu(cpu: JSON, spread: JSON) -> None:
    """GEMM names and BLAS of the first children; the repeat spread of STREAM and FMA figures
    from the best/median/time-spread triples children before contract 2 kept."""
    gemm = cpu.get("gemm")
    if isinstance(gemm, dict):
        if "dgemm_gflops" not in gemm and _num(gemm.get("fp64_gflops")) is not None:
            gemm["dgemm_gflops"] = gemm.pop("fp64_gflops")
        if "sgemm_gflops" not in gemm and _num(gemm.get("fp32_gflops")) is not None:
            gemm["sgemm_gflops"] = gemm.pop("fp32_gflops")
        if isinstance(gemm.get("blas"), str):
            gemm["blas"] = {"internal_api": gemm["blas"]}
    stream = _dict(cpu.get("stream"))
    for op in _STREAM_OPS:
        key = f"{op}_gbps"
        single = _dict(stream.get("single_thread"))
        for path, best, med, rel in (
                (f"cpu.stream.{key}", stream.get(key), _dict(stream.get("median")).get(key),
                 _dict(stream.get("spread")).get(op)),
                (f"cpu.stream.single_thread.{key}", single.get(key),
                 _dict(stream.get("single_thread_median")).get(key),
                 _dict(stream.get("single_thread_spread")).get(op))):
            _add_spread(spread, path, best, med, rel, stream.get("ntimes"))
    fma = _dict(cpu.get("fma"))
    for key, m in _dict(fma.get("median")).items():
        prec_t = key.split("_")
        figure_key = f"{prec_t[0]}_gflops_{prec_t[-1]}"
        if isinstance(m, dict):
            _add_spread(spread, f"cpu.fma.{figure_key}", fma.get(figure_key), m.get("median_gflops"),
                        m.get("spread"))


def _add_spread(spread: JSON, path: str, best: Any, median: Any, rel: Any, n: Any = None) -> None:
    if path not in spread:
        s = _spread_from_best(best, median, rel, n)
        if s:
            spread[path] = s


def _gpu_by_index(gpu: Any) -> JSON:
    """The per-GPU list of the first children (bare, or under ``devices``) as the current map
    keyed by device index, the section's other keys kept."""
    items = gpu if isinstance(gpu, list) else gpu["devices"]
    new = {k: v for k, v in (gpu.items() if isinstance(gpu, dict) else ()) if k != "devices"}
    for pos, e in enumerate(items):
        if isinstance(e, dict):
            new[str(e.get("index", pos))] = e
    return new


def _upgrade_gpu(gpu: JSON, spread: JSON) -> None:
    for key, e in gpu.items():
        if not isinstance(e, dict):
            continue
        for old, new_name in _GPU_RENAMES.items():
            if old in e:
                value = e.pop(old)
                e.setdefault(new_name, value)
        e.setdefault("index", int(key) if str(key).isdigit() else key)
        for fig, s in _dict(e.pop("spread", None)).items():   # per device -> one map
            spread.setdefault(f"gpu.{key}.{fig}", s)


# --------------------------------------------------------------------------- schema check

def _package_json(name: str) -> JSON:
    """A JSON data file of the accelgui package, parsed once."""
    from accelgui.data import json_file

    table: JSON = json_file("accelgui", name)
    return table


def _describe(value: Any) -> str:
    from accelgui.validation import describe

    return describe(value)


_CHECKED: list[tuple[str, JSON]] = []  # [(JSON text of a section as given, its checked form kept here)], newest first
_HANDED: list[JSON] = []                # checked sections handed out, newest first
_CHECKED_KEEP = 8


def _copied(value: Any) -> Any:
    """A copy of a JSON value: its objects and lists new, its leaves shared."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def check(section: Any) -> JSON | None:
    """The upgraded ``section``, or BenchmarkError naming the first field off the contract.

    A section checked before (the same content, or a result of an earlier check passed back)
    is not checked again. Each caller gets a section of its own (a result passed back is
    returned as it is): one that changes it (the history drops the build paths) changes
    nothing for the next reader."""
    if section is None:
        return None
    if not isinstance(section, dict):
        raise BenchmarkError("benchmarks", f"expected an object, got {_describe(section)}")
    if any(section is handed for handed in _HANDED):
        return section
    import json

    key = json.dumps(section, sort_keys=True, default=repr)
    kept = next((checked for given, checked in _CHECKED if given == key), None)
    if kept is None:
        from accelgui import validation

        b = upgrade(section)
        problem = validation.first_problem("accelgui", "report.schema.json", b, definition="bench",
                                           root="benchmarks", unknown="field not in the benchmark contract")
        if problem is not None:
            raise BenchmarkError(*problem)
        _CHECKED.insert(0, (key, _copied(b)))
        del _CHECKED[_CHECKED_KEEP:]
    else:
        b = _copied(kept)
    _HANDED.insert(0, b)
    del _HANDED[2 * _CHECKED_KEEP:]
    return b


# --------------------------------------------------------------------------- the reader

def read(report: Any) -> JSON | None:
    """The upgraded, validated benchmark section of ``report``, or None when it has none.

    Raises BenchmarkError (a ValueError naming the field) for a section off the contract;
    reports are checked when they are loaded (accelgui.report), so a face never sees one."""
    return check(_section(report))


def gpu_devices(report: Any) -> list[JSON]:
    """The per-GPU entries of the section (each with its ``index``), in index order."""
    return _gpu_devices(read(report) or {})


def checked_gpu_devices(b: JSON) -> list[JSON]:
    """:func:`gpu_devices` of a section already checked (a stored run): not checked again, a
    check costing some 7 ms, and a history holding up to 200 runs."""
    return _gpu_devices(b if isinstance(b, dict) else {})


def _gpu_devices(b: JSON) -> list[JSON]:
    gpu = _dict(b.get("gpu"))
    items = [(k, e) for k, e in gpu.items() if str(k).isdigit() and isinstance(e, dict)]
    return [e for _, e in sorted(items, key=lambda kv: int(kv[0]))]


def gpu_status(report: Any) -> str | None:
    """Why no GPU was measured (``skipped`` / ``error`` text), or None."""
    gpu = _dict((read(report) or {}).get("gpu"))
    why = gpu.get("skipped") or gpu.get("error") or gpu.get("reason")
    return why if isinstance(why, str) else None


def figure(b: JSON, path: str) -> float | None:
    """The number at dotted ``path`` of an upgraded section (``cpu.stream.triad_gbps``)."""
    obj: Any = b
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return _num(obj)


def spread_of(b: JSON, path: str) -> JSON:
    """{min, median, max, rel, n} of the figure at ``path``; median alone (the figure) when
    the run kept no repeats."""
    s = _dict(_dict(b.get("spread")).get(path))
    if _num(s.get("median")) is not None:
        return {k: s.get(k) for k in ("min", "median", "max", "rel", "n")}
    value = figure(b, path)
    return {"min": None, "median": value, "max": None, "rel": None, "n": None}


# headline figures: (key = dotted path, label id, unit, peak path or None, reference kind)
_CPU_HEADLINE = (
    ("cpu.stream.triad_gbps", "bench.fig.triad_mt", "GB/s", None, "memory"),
    ("cpu.stream.single_thread.triad_gbps", "bench.fig.triad_1t", "GB/s", None, None),
    ("cpu.fma.fp64_gflops_1t", "bench.fig.fp64_1t", "GFLOP/s", "cpu.theoretical.fp64_gflops_1t", "fma_core"),
    ("cpu.fma.fp64_gflops_mt", "bench.fig.fp64_mt", "GFLOP/s", "cpu.theoretical.fp64_gflops_mt", None),
    ("cpu.fma.fp32_gflops_mt", "bench.fig.fp32_mt", "GFLOP/s", "cpu.theoretical.fp32_gflops_mt", None),
    ("cpu.gemm.dgemm_gflops", "bench.fig.dgemm", "GFLOP/s", "cpu.theoretical.fp64_gflops_mt", None),
    ("cpu.latency_ns.dram", "bench.fig.latency_dram", "ns", None, None),
)
_GPU_HEADLINE = (
    ("triad_gbps", "bench.fig.gpu_triad", "GB/s", "memory_peak_gbps"),
    ("fp32_gflops", "bench.fig.gpu_fp32", "GFLOP/s", "fp32_peak_gflops"),
    ("h2d_gbps", "bench.fig.gpu_h2d", "GB/s", None),
    ("d2h_gbps", "bench.fig.gpu_d2h", "GB/s", None),
)


def _row(b: JSON, key: str, label: JSON, unit: str, peak: Any, reference: Any) -> JSON | None:
    s = spread_of(b, key)
    value = s["median"]
    if value is None:
        return None
    peak = _num(peak)
    rel = s.get("rel")
    return {"key": key, "label": label, "value": value, "unit": unit, "peak": peak,
            "pct_of_peak": round(100.0 * value / peak, 1) if peak else None,
            "spread": s, "reference": reference,
            "noisy": bool(rel is not None and rel > NOISY_REL_SPREAD)}


def headline(report: Any, section: JSON | None = None) -> list[JSON]:
    """The headline figures, median of the repeats first: rows of ``key``, ``label`` (message),
    ``value``, ``unit``, ``peak``, ``pct_of_peak``, ``spread`` {min, median, max, rel, n},
    ``reference`` (typical range of the machine's class, or None) and ``noisy``.

    ``section``: ``read(report)`` when the caller has it already (it is not read again)."""
    b = section if section is not None else read(report)
    return _headline(b, report) if b else []


def _headline(b: JSON, report: Any) -> list[JSON]:
    rows = []
    for key, label_id, unit, peak_path, ref_kind in _CPU_HEADLINE:
        ref = reference(report, ref_kind, b) if ref_kind else None
        row = _row(b, key, msg(label_id), unit, figure(b, peak_path) if peak_path else None, ref)
        if row:
            rows.append(row)
    for e in _gpu_devices(b):
        idx = e.get("index")
        for fig, label_id, unit, peak_key in _GPU_HEADLINE:
            row = _row(b, f"gpu.{idx}.{fig}", msg(label_id, index=idx), unit,
                       e.get(peak_key) if peak_key else None, None)
            if row:
                rows.append(row)
    return rows


def memory_bandwidth(report: Any, device: Any = None, index: Any = None) -> JSON | None:
    """Measured memory bandwidth: of the CPU (``device`` None) or of one GPU (a Device or
    device dict, matched by PCI bus id, else by ``index`` with a name check).

    -> {"median_gbps", "min_gbps", "max_gbps", "rel_spread", "source": "measured",
        "figure": dotted path} or None when nothing was measured."""
    b = read(report)
    if not b:
        return None
    if device is None and index is None:
        path = "cpu.stream.triad_gbps"
    else:
        key = _gpu_key_for(b, device, index)
        if key is None:
            return None
        path = f"gpu.{key}.triad_gbps"
    s = spread_of(b, path)
    if not s["median"]:
        return None
    return {"median_gbps": s["median"], "min_gbps": s["min"], "max_gbps": s["max"],
            "rel_spread": s["rel"], "source": "measured", "figure": path}


def gpu_figures(report: Any, device: Any, index: Any = None) -> tuple[str | None, JSON]:
    """(key, the upgraded ``benchmarks.gpu`` entry) measured on ``device``, matched as
    :func:`memory_bandwidth` matches it; (None, {}) when none was measured on it."""
    b = read(report)
    key = _gpu_key_for(b, device, index) if b else None
    if b is None or key is None:
        return None, {}
    for e in _gpu_devices(b):
        if str(e.get("index")) == key:
            return key, e
    return None, {}


def cpu_figures(report: Any) -> JSON:
    """The upgraded ``benchmarks.cpu`` section ({} when nothing was measured)."""
    b = read(report)
    return _dict(b.get("cpu")) if b else {}


def _norm_bus(addr: Any) -> str | None:
    if not isinstance(addr, str) or ":" not in addr:
        return None
    parts = addr.lower().split(":")
    if len(parts) == 2:
        parts = ["0000"] + parts
    dom = parts[0].lstrip("0") or "0"
    return f"{dom}:{':'.join(parts[1:])}"


def _gpu_key_for(b: JSON, device: Any, index: Any) -> str | None:
    """The ``benchmarks.gpu`` key measured on ``device``: by PCI bus id when the run recorded
    one (CUDA may number devices differently from the PCI order), else by ``index`` with a
    name check, so that one card's figures are never credited to another."""
    def get(key: str) -> Any:
        if isinstance(device, dict):
            return device.get(key)
        return getattr(device, key, None)

    items = [(str(e.get("index")), e) for e in _gpu_devices(b) if not e.get("error")]
    bus = _norm_bus(get("address"))
    if bus:
        for k, e in items:
            if _norm_bus(e.get("pci_bus_id")) == bus:
                return k
    if index is None:
        return None
    for k, e in items:
        if k != str(index):
            continue
        if bus and _norm_bus(e.get("pci_bus_id")):
            return None                       # recorded on another bus: not this card
        bname, dname = e.get("name"), get("name")
        if isinstance(bname, str) and isinstance(dname, str) and bname and dname:
            x, y = re.sub(r"\W+", "", bname.lower()), re.sub(r"\W+", "", dname.lower())
            if x not in y and y not in x:
                return None
        elif device is not None and get("vendor") != "nvidia":
            return None                       # unnamed figures come from CUDA
        return k
    return None


# --------------------------------------------------------------------------- reference classes

def reference_table() -> JSON:
    """The dated table of typical figures per class of machine (benchmark_reference.json)."""
    return _package_json("benchmark_reference.json")


_DDR5_UARCHES = ("sapphirerapids", "emeraldrapids", "graniterapids", "sierraforest", "zen4", "zen5",
                 "alderlake", "raptorlake", "meteorlake", "arrowlake", "lunarlake", "neoverse_v2",
                 "neoverse_v3", "neoverse_n2")
_LAPTOP_CHASSIS = {"8", "9", "10", "14", "30", "31", "32"}   # SMBIOS chassis types: portable..


def memory_class(report: Any) -> tuple[str | None, int]:
    """(class id of benchmark_reference.json "memory", sockets) for the machine in ``report``."""
    cpu, plat = _facts(report, "cpu"), _facts(report, "platform")
    model = str(cpu.get("model_name") or "").lower()
    uarch = str(cpu.get("microarchitecture") or "").lower()
    sockets = cpu["sockets"] if isinstance(cpu.get("sockets"), int) and cpu["sockets"] > 0 else 1
    logical = cpu.get("logical_cpus") if isinstance(cpu.get("logical_cpus"), int) else None
    virtual = plat.get("virtualization") or plat.get("cloud") or cpu.get("hypervisor_vendor")
    chassis = str(_dict(plat.get("dmi")).get("chassis_type") or "")
    if "apple" in model or uarch.startswith(("m1", "m2", "m3", "m4")):
        return "apple-unified", 1
    server = any(w in model for w in ("xeon", "epyc", "neoverse", "grace", "ampere", "graviton")) \
        or sockets > 1
    if virtual and (logical or 0) <= 16:
        return "cloud-vcpu", 1
    ddr5 = any(u in uarch for u in _DDR5_UARCHES)
    if server:
        if "epyc" in model and ddr5 or "graniterapids" in uarch:
            return "server-ddr5-12ch", sockets
        return ("server-ddr5-8ch" if ddr5 else "server-ddr4-8ch"), sockets
    if chassis in _LAPTOP_CHASSIS and ddr5:
        return "laptop-lpddr5", 1
    if not uarch and not model:
        return None, 1
    return ("desktop-ddr5-2ch" if ddr5 else "desktop-ddr4-2ch"), 1


def reference(report: Any, kind: str, section: JSON | None = None) -> JSON | None:
    """The typical range for this machine's class: {class, label (message), typical_low,
    typical_high, unit, source, as_of, review_by}, or None when the class is unknown."""
    table = reference_table()
    if kind == "memory":
        klass, sockets = memory_class(report)
        row = next((r for r in table["memory"] if r["class"] == klass), None)
        if row is None:
            return None
        mult = sockets if row.get("per_socket") else 1
        label = msg(f"bench.class.{klass}", sockets=sockets) if row.get("per_socket") \
            else msg(f"bench.class.{klass}")
        return {"class": klass, "label": label, "typical_low": row["typical_low"] * mult,
                "typical_high": row["typical_high"] * mult, "unit": "GB/s", "source": row["source"],
                "as_of": row["as_of"], "review_by": row["review_by"]}
    if kind == "fma_core":
        b = section if section is not None else (read(report) or {})
        theo = _dict(_dict(b.get("cpu")).get("theoretical"))
        bits, pipes = theo.get("vector_bits"), theo.get("fma_pipes")
        if not isinstance(bits, int) or not isinstance(pipes, int):
            return None
        per_cycle = bits // 64 * pipes * 2
        row = next((r for r in table["fma_core"] if r["fp64_flops_per_cycle"] == per_cycle), None)
        if row is None:
            return None
        return {"class": row["class"], "label": msg(f"bench.class.{row['class']}"),
                "typical_low": row["typical_low"], "typical_high": row["typical_high"],
                "unit": "GFLOP/s", "source": row["source"], "as_of": row["as_of"],
                "review_by": row["review_by"]}
    return None


# --------------------------------------------------------------------------- notices

def _fmt(x: Any) -> str:
    if x is None:
        return "?"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def notices(report: Any, section: JSON | None = None) -> list[JSON]:
    """Messages for the reader: a run that did not finish, a disturbed run (re-measured), noisy
    figures (repeat spread above 20 %), FP64 that does not scale with the cores, and what the
    monitor saw during each stage (throttling, clock drops).

    ``section``: ``read(report)`` when the caller has it already (it is not read again)."""
    b = section if section is not None else read(report)
    if not b:
        return []
    out: list[JSON] = []
    if isinstance(b.get("error"), str):
        out.append(msg("bench.notice.error", text=b["error"]))
    for w in b.get("warnings") or []:
        w = str(w)
        if w.startswith("measured twice"):
            out.append(msg("bench.notice.remeasured", what=w.split(":", 1)[-1].strip()))
        else:
            out.append(msg("bench.notice.warning", text=w))
    for row in _headline(b, report):
        if row["noisy"]:
            s = row["spread"]
            out.append(msg("bench.notice.noisy", figure=row["label"], pct=round(100 * s["rel"]),
                           low=_fmt(s["min"]), high=_fmt(s["max"]), unit=row["unit"]))
    cpu = _dict(b.get("cpu"))
    fma = _dict(cpu.get("fma"))
    one, mt = _num(fma.get("fp64_gflops_1t")), _num(fma.get("fp64_gflops_mt"))
    cores = cpu.get("cores")
    if one and mt and isinstance(cores, int) and cores >= 2 and mt < FLAT_SCALING * one:
        out.append(msg("bench.notice.fp64_flat", cores=cores, mt=_fmt(mt), one=_fmt(one)))
    tele = _dict(b.get("telemetry"))
    for st in tele.get("stages") or []:
        if not isinstance(st, dict):
            continue
        if st.get("throttle"):
            out.append(msg("bench.notice.throttle", stage=str(st.get("name")),
                           reasons=", ".join(str(t) for t in st["throttle"])))
        lo, hi = _num(st.get("cpu_mhz_min")), _num(st.get("cpu_mhz_max"))
        if lo and hi and lo < 0.85 * hi:
            out.append(msg("bench.notice.clock_drop", stage=str(st.get("name")),
                           high=f"{hi / 1000:.1f}", low=f"{lo / 1000:.1f}"))
    out.extend(m for m in tele.get("notices") or [] if isinstance(m, dict))
    out.extend(m for m in b.get("notices") or [] if isinstance(m, dict) and m not in out)
    return out


def disturbed(report: Any) -> bool:
    """Whether the run deserves a re-run (any notice about its figures)."""
    return bool(notices(report))


# --------------------------------------------------------------------------- the one statistic

def quantity(b: JSON, path: str) -> JSON | None:
    """The one figure every face shows for the quantity at ``path`` of an upgraded section:
    the median of the repeats with their range, ``{"value", "min", "max", "n", "rel",
    "statistic": "median"}``; ``"statistic": "single"`` for a run that kept no repeats (its
    one figure). None when the quantity was not measured. See docs/benchmarks.md."""
    s = spread_of(b, path)
    if s["median"] is None:
        return None
    repeats = s.get("min") is not None and s.get("max") is not None
    return dict(s, value=s["median"], statistic="median" if repeats else "single")
