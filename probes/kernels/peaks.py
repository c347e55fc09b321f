"""Theoretical CPU figures and the machine facts the benchmarks size themselves by.

Pure Python (no Numba): cache sizes and topology from sysfs, the CPU's FMA width from a
small per-microarchitecture table (``uarch_peaks.json``, data with sources), the clock
from cpufreq when the OS has it, and the theoretical peak

    peak FLOP/s = cores x clock x (vector_bits / element_bits) x fma_pipes x 2

Every reader goes through a :class:`~accelgui.probes.context.ProbeContext`, so the same
functions run against ``/`` and against recorded machine trees.
"""

from __future__ import annotations

import os
import re

from accelgui.data import json_file
from accelgui.probes.context import ProbeContext
from accelgui.probes.cpu import parse_cpulist, parse_size, read_cpuinfo
from accelgui.probes.memory import parse_meminfo


def load_table() -> dict:
    """The per-microarchitecture FMA table shipped with the package."""
    return json_file("accelgui.probes.kernels", "uarch_peaks.json")


# ---------------------------------------------------------------- sysfs / procfs readers

def parse_cpu_list(text: str | None) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11]; [] when missing or malformed."""
    return sorted(parse_cpulist(text) or ())


def online_cpus(ctx: ProbeContext) -> list[int]:
    cpus = parse_cpu_list(ctx.read_line("sys/devices/system/cpu/online"))
    if cpus:
        return cpus
    return sorted(int(n[3:]) for n in ctx.listdir("sys/devices/system/cpu")
                  if n.startswith("cpu") and n[3:].isdigit())


def usable_cpus(ctx: ProbeContext) -> list[int]:
    """CPUs this process may run on (affinity on a live system, else all online CPUs)."""
    if ctx.live and hasattr(os, "sched_getaffinity"):
        try:
            return sorted(os.sched_getaffinity(0))
        except OSError:
            pass
    return online_cpus(ctx) or list(range(os.cpu_count() or 1))


def physical_cores(ctx: ProbeContext, cpus: list[int]) -> int:
    """Distinct (package, core) pairs among ``cpus``; SMT siblings share FMA pipes."""
    seen = set()
    for cpu in cpus:
        base = f"sys/devices/system/cpu/cpu{cpu}/topology"
        core = ctx.read_int(f"{base}/core_id")
        pkg = ctx.read_int(f"{base}/physical_package_id")
        if core is None:
            seen.add(("cpu", cpu))
        else:
            seen.add((pkg, core))
    return max(1, len(seen))


def cache_sizes(ctx: ProbeContext, cpus: list[int] | None = None) -> dict:
    """Data/unified cache sizes as one core sees them, and the last level's total.

    ``l1d_bytes``/``l2_bytes``/``l3_bytes``: one instance (what a single thread can use);
    ``llc_total_bytes``: the sum over the distinct last-level instances serving ``cpus``.
    """
    cpus = cpus if cpus else online_cpus(ctx) or [0]
    per_level: dict[int, int] = {}
    instances: dict[int, dict[str, int]] = {}
    for cpu in cpus:
        base = f"sys/devices/system/cpu/cpu{cpu}/cache"
        for idx in ctx.listdir(base):
            if not idx.startswith("index"):
                continue
            kind = ctx.read_line(f"{base}/{idx}/type")
            if kind not in ("Data", "Unified"):
                continue
            level = ctx.read_int(f"{base}/{idx}/level")
            size = parse_size(ctx.read_line(f"{base}/{idx}/size"))
            if level is None or not size:
                continue
            if cpu == cpus[0]:
                per_level[level] = size
            shared = ctx.read_line(f"{base}/{idx}/shared_cpu_list") or f"cpu{cpu}"
            instances.setdefault(level, {})[shared] = size
    out = {"l1d_bytes": per_level.get(1), "l2_bytes": per_level.get(2),
           "l3_bytes": per_level.get(3), "llc_bytes": None, "llc_total_bytes": None,
           "llc_level": None, "source": "sysfs" if per_level else None}
    if per_level:
        top = max(per_level)
        out["llc_level"] = top
        out["llc_bytes"] = per_level[top]
        out["llc_total_bytes"] = sum(instances.get(top, {}).values()) or per_level[top]
    return out


def cpuinfo(ctx: ProbeContext) -> dict:
    """The identity fields of /proc/cpuinfo (its first value of each key) and the flag set."""
    info = read_cpuinfo(ctx).first
    flags = set((info.get("flags") or info.get("Features") or "").split())
    return {"vendor_id": info.get("vendor_id"), "model_name": info.get("model name") or info.get("Model"),
            "family": _int(info.get("cpu family")), "model": _int(info.get("model")),
            "stepping": _int(info.get("stepping")),
            "implementer": (info.get("CPU implementer") or "").lower() or None,
            "part": (info.get("CPU part") or "").lower() or None,
            "cpu_mhz": _float(info.get("cpu MHz")), "flags": flags}


def _int(text: str | None) -> int | None:
    try:
        return int(text, 0) if text is not None else None
    except ValueError:
        return None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def cpufreq_max_mhz(ctx: ProbeContext, cpus: list[int]) -> float | None:
    """Highest cpufreq ``cpuinfo_max_freq`` over ``cpus`` in MHz, or None (VMs have none)."""
    best = None
    for cpu in cpus:
        khz = ctx.read_int(f"sys/devices/system/cpu/cpu{cpu}/cpufreq/cpuinfo_max_freq")
        if khz and (best is None or khz > best):
            best = khz
    return best / 1000.0 if best else None


def available_memory_bytes(ctx: ProbeContext) -> int | None:
    info = parse_meminfo(ctx.read_text("proc/meminfo"))
    return info.get("MemAvailable", info.get("MemFree"))


def repeat_spread(values: list[float]) -> dict | None:
    """One ``benchmarks.spread`` entry (report.schema.json ``bench_spread``) of the repeats of a
    figure, in its own unit: min, median, max, n and rel = (max - min) / median."""
    xs = sorted(v for v in values if v is not None and v == v)
    if not xs:
        return None
    k = len(xs)
    med = xs[k // 2] if k % 2 else 0.5 * (xs[k // 2 - 1] + xs[k // 2])
    return {"min": _r(xs[0], 3), "median": _r(med, 3), "max": _r(xs[-1], 3), "n": k,
            "rel": _r((xs[-1] - xs[0]) / med, 4) if med else None}


# cgroup v1 writes "no limit" as the largest page-aligned signed 64-bit value (or near it)
_CGROUP_UNLIMITED = 1 << 62


def _cgroup_int(ctx: ProbeContext, rel: str) -> int | None:
    line = ctx.read_line(rel)
    if line is None or line == "max":
        return None
    try:
        value = int(line)
    except ValueError:
        return None
    return value if 0 <= value < _CGROUP_UNLIMITED else None


def cgroup_memory(ctx: ProbeContext) -> dict:
    """The memory limit of this process's cgroup and what it leaves free.

    Reads ``proc/self/cgroup`` for the process's own cgroup path, then, from that cgroup up
    to the root of the hierarchy (every ancestor's limit applies), cgroup v2
    ``memory.max``/``memory.current`` under ``sys/fs/cgroup`` or cgroup v1
    ``memory.limit_in_bytes``/``memory.usage_in_bytes`` under ``sys/fs/cgroup/memory``.
    -> {"limit_bytes", "available_bytes", "version"}; None values where there is no limit.
    """
    from accelgui.probes.memory import CGROUP_DIR, cgroup_ancestors, cgroup_paths

    out = {"limit_bytes": None, "available_bytes": None, "version": None}
    paths = cgroup_paths(ctx)       # the same reading of proc/self/cgroup as the memory probe's
    for version, controller, base, limit_name, usage_name in (
            ("v1", "memory", f"{CGROUP_DIR}/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"),
            ("v2", "", CGROUP_DIR, "memory.max", "memory.current")):
        path = paths.get(controller)
        if path is None:
            continue
        for folder in cgroup_ancestors(path):
            d = f"{base}/{folder}" if folder else base
            limit = _cgroup_int(ctx, f"{d}/{limit_name}")
            if limit is None:
                continue
            usage = _cgroup_int(ctx, f"{d}/{usage_name}") or 0
            free = max(0, limit - usage)
            if out["available_bytes"] is None or free < out["available_bytes"]:
                out.update(limit_bytes=limit, available_bytes=free, version=version)
    return out


def address_space_headroom(ctx: ProbeContext, rlimit_as: int | None) -> int | None:
    """How much more address space RLIMIT_AS lets this process map (its soft limit minus the
    VmSize it already has), or None when unlimited."""
    if rlimit_as is None or rlimit_as < 0:
        return None
    size_kb = None
    for line in (ctx.read_text("proc/self/status", limit=64 << 10) or "").splitlines():
        if line.startswith("VmSize:"):
            field = line.split()[1:2]
            size_kb = int(field[0]) if field and field[0].isdigit() else None
            break
    return max(0, rlimit_as - (size_kb or 0) * 1024)


# ---------------------------------------------------------------- microarchitecture

def detect_uarch(ctx: ProbeContext, info: dict | None = None) -> tuple[str | None, str | None]:
    """(name, how) with name a key of the table, or (None, None).

    Tries archspec on a live system, then the x86 family/model and Arm part tables (VMs
    often hide a flag or two, so archspec falls back to a generic level like x86_64_v4).
    """
    table = load_table()
    known = table["uarch"]
    aliases = table.get("archspec_aliases", {})
    info = info if info is not None else cpuinfo(ctx)
    if ctx.live:
        try:
            import archspec.cpu

            host = archspec.cpu.host()
            for cand in [host, *host.ancestors]:
                name = aliases.get(cand.name, cand.name)
                if name in known:
                    return name, "archspec"
        except Exception:  # noqa: BLE001 - archspec missing or confused: use the tables
            pass
    vendor, fam, model = info.get("vendor_id"), info.get("family"), info.get("model")
    if vendor and fam is not None and model is not None:
        # the CPU probe's dated family/model table (data/cpu_parts.json) names the parts of
        # the last generations; this table's own rows, the older ones
        from accelgui.probes.cpu import x86_model_row

        row = x86_model_row(vendor, fam, model, info.get("stepping"))
        name = aliases.get((row or {}).get("uarch"), (row or {}).get("uarch"))
        if name in known:
            return name, "cpuid family/model"
        for row in table.get("x86_models", []):
            if row["vendor"] == vendor and row["family"] == fam and any(
                    lo <= model <= hi for lo, hi in row["models"]):
                return row["uarch"], "cpuid family/model"
    if info.get("implementer") and info.get("part"):
        key = f"{info['implementer']}:{info['part']}"
        if key in table.get("arm_parts", {}):
            return table["arm_parts"][key], "cpu implementer/part"
        if info["implementer"] == "0x61":
            return "m1", "cpu implementer (Apple)"
    return None, None


def fma_width(ctx: ProbeContext, info: dict | None = None) -> dict:
    """FMA pipes and per-pipe vector width for this CPU, with where the figure came from."""
    info = info if info is not None else cpuinfo(ctx)
    name, how = detect_uarch(ctx, info)
    table = load_table()
    if name is not None:
        row = dict(table["uarch"][name])
        model_name = info.get("model_name") or ""
        for ov in row.pop("sku_overrides", []):
            if re.search(ov["model_name_regex"], model_name):
                row.update({k: v for k, v in ov.items() if k != "model_name_regex"})
                row["note"] = (row.get("note", "") + f" (this SKU: {ov})").strip()
        src = row.get("source")
        return {"uarch": name, "uarch_source": how, "vector_bits": row["vector_bits"],
                "fma_pipes": row["fma_pipes"], "note": row.get("note"),
                "source": table["sources"].get(src, src)}
    flags = info.get("flags") or set()
    if "avx512f" in flags:
        bits, pipes = 512, 1
    elif "avx2" in flags and "fma" in flags:
        bits, pipes = 256, 2
    elif "avx" in flags:
        bits, pipes = 256, 1
    elif flags & {"asimd", "neon", "sse2"}:
        bits, pipes = 128, 1
    else:
        return {"uarch": None, "uarch_source": None, "vector_bits": None, "fma_pipes": None,
                "note": "unknown CPU: no theoretical peak", "source": None}
    return {"uarch": None, "uarch_source": None, "vector_bits": bits, "fma_pipes": pipes,
            "note": "microarchitecture unknown: width guessed from the ISA flags (a lower bound)",
            "source": "isa-flags"}


def theoretical(width: dict, cores: int, clock_mhz_1t: float | None,
                clock_mhz_mt: float | None, clock_source: str | None) -> dict:
    """Peak GFLOP/s per precision for one core and all ``cores``."""
    bits, pipes = width.get("vector_bits"), width.get("fma_pipes")
    out = {"clock_mhz": _r(clock_mhz_1t), "clock_mhz_mt": _r(clock_mhz_mt),
           "clock_source": clock_source, "vector_bits": bits, "fma_pipes": pipes,
           "cores": cores, "uarch": width.get("uarch"), "uarch_source": width.get("uarch_source"),
           "note": width.get("note"), "source": width.get("source"),
           "fp64_gflops_1t": None, "fp64_gflops_mt": None,
           "fp32_gflops_1t": None, "fp32_gflops_mt": None}
    if not bits or not pipes:
        return out
    for prec, elem in (("fp64", 64), ("fp32", 32)):
        per_cycle = bits // elem * pipes * 2
        if clock_mhz_1t:
            out[f"{prec}_gflops_1t"] = _r(clock_mhz_1t * per_cycle / 1000.0)
        if clock_mhz_mt or clock_mhz_1t:
            out[f"{prec}_gflops_mt"] = _r((clock_mhz_mt or clock_mhz_1t) * per_cycle * cores / 1000.0)
    return out


def _r(x, nd: int = 2):
    return None if x is None else round(float(x), nd)
