"""CPU and memory telemetry: /proc/stat, cpufreq, load, RAPL, hwmon, meminfo, NUMA nodes.

Everything is read through the probe context (so a recorded tree replays); temperatures and
fans come from psutil on the running system (it knows each chip's quirks) and from hwmon in
sysfs under a sysroot. Rates (utilisation, context switches, power from energy counters)
are the change between two consecutive samples, null on the first; each CPU's time in each
mode of /proc/stat (``per_cpu_seconds``: ticks / USER_HZ) is given as it stands, a counter
since boot, so an exporter can serve it as node exporter does and leave ``rate()`` to the server.
"""

from __future__ import annotations

import math

from accelgui.probes.context import ProbeContext
from accelgui.probes.monitor.telemetry import _tidy, rate

#: the columns of a ``cpuN`` line of /proc/stat, in order (proc(5)); guest and guest_nice are
#: already counted in user and nice, so they are left out, as node exporter does
CPU_MODES = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
#: the unit of /proc/stat: USER_HZ ticks a second, 100 on every Linux ABI (sysconf(_SC_CLK_TCK))
USER_HZ = 100

#: hwmon chips that measure the CPU package (Intel, AMD, ARM SoCs)
CPU_CHIPS = ("coretemp", "k10temp", "zenpower", "cpu_thermal", "cpu-thermal", "soc_thermal", "x86_pkg_temp")


def _stat(ctx: ProbeContext) -> tuple[dict, int | None, dict]:
    """Per line of /proc/stat: (total ticks, idle ticks), the context switches, and the
    ticks of each mode (``CPU_MODES``, as many as the line has)."""
    cpus, ctxt, modes = {}, None, {}
    for line in (ctx.read_text("proc/stat", limit=1 << 20) or "").splitlines():
        if line.startswith("cpu"):
            parts = line.split()
            try:
                ticks = [int(x) for x in parts[1:9]]
            except ValueError:
                continue
            if len(ticks) < 4:              # a short line (user nice system idle at least)
                continue
            idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
            cpus[parts[0]] = (sum(ticks), idle)
            modes[parts[0]] = dict(zip(CPU_MODES, ticks))
        elif line.startswith("ctxt "):
            try:
                ctxt = int(line.split()[1])
            except (ValueError, IndexError):
                pass
    return cpus, ctxt, modes


def cpu_seconds(modes: dict) -> dict:
    """The ticks of each mode as seconds since boot (counters: they only go up)."""
    return {mode: round(ticks / USER_HZ, 2) for mode, ticks in modes.items()}


def _busy_pct(prev, cur):
    if prev is None or cur is None:
        return None
    total, idle = cur[0] - prev[0], cur[1] - prev[1]
    if total <= 0 or idle < 0:
        return None
    return round(100.0 * (total - idle) / total, 1)


def _freqs(ctx: ProbeContext, names: list[str]) -> list:
    out = [ctx.read_int(f"sys/devices/system/cpu/{n}/cpufreq/scaling_cur_freq") for n in names]
    if any(v is not None for v in out):
        return [None if v is None else round(v / 1000.0, 1) for v in out]
    mhz = []
    for line in (ctx.read_text("proc/cpuinfo", limit=8 << 20) or "").splitlines():
        if line.startswith("cpu MHz"):
            try:
                mhz.append(round(float(line.split(":", 1)[1]), 1))
            except (ValueError, IndexError):
                mhz.append(None)
    return mhz if len(mhz) == len(names) else [None] * len(names)


def _rapl(ctx: ProbeContext, counters: dict, now: float) -> list[dict]:
    zones = []
    for rel in ctx.glob("sys/class/powercap/intel-rapl:*"):     # packages and their subzones
        energy = ctx.read_int(f"{rel}/energy_uj")
        if energy is None:
            continue
        name = ctx.read_line(f"{rel}/name") or rel.rsplit("/", 1)[-1]
        prev = counters.get(("rapl", rel))
        wrap = ctx.read_int(f"{rel}/max_energy_range_uj")
        if prev is not None and energy < prev[0] and wrap:   # the counter wrapped
            counters[("rapl", rel)] = (prev[0] - wrap, prev[1])
        power = rate(counters, ("rapl", rel), energy, now, 1e-6)
        zones.append({"zone": rel.rsplit("/", 1)[-1], "name": name, "energy_j": round(energy / 1e6, 3),
                      "power_w": power})
    return zones


def _sensors_sysfs(ctx: ProbeContext) -> tuple[list, list]:
    temps, fans = [], []
    for rel in ctx.glob("sys/class/hwmon/hwmon*"):
        chip = ctx.read_line(f"{rel}/name") or rel.rsplit("/", 1)[-1]
        for entry in ctx.listdir(rel):
            if entry.endswith("_input") and (entry.startswith("temp") or entry.startswith("fan")):
                stem = entry[: -len("_input")]
                value = ctx.read_int(f"{rel}/{entry}")
                if value is None:
                    continue
                label = ctx.read_line(f"{rel}/{stem}_label") or stem
                if stem.startswith("temp"):
                    high, crit = ctx.read_int(f"{rel}/{stem}_max"), ctx.read_int(f"{rel}/{stem}_crit")
                    temps.append({"chip": chip, "label": label, "temp_c": value / 1000.0,
                                  "high_c": None if high is None else high / 1000.0,
                                  "crit_c": None if crit is None else crit / 1000.0})
                else:
                    fans.append({"chip": chip, "label": label, "rpm": value})
    return temps, fans


def _sensors_psutil() -> tuple[list, list]:
    import psutil

    temps, fans = [], []
    try:
        for chip, entries in (psutil.sensors_temperatures() or {}).items():
            for e in entries:
                temps.append({"chip": chip, "label": e.label or chip, "temp_c": e.current,
                              "high_c": e.high, "crit_c": e.critical})
        for chip, entries in (psutil.sensors_fans() or {}).items():
            for e in entries:
                fans.append({"chip": chip, "label": e.label or chip, "rpm": e.current})
    except (OSError, AttributeError, ValueError):
        pass
    return temps, fans


def _throttle_count(ctx: ProbeContext, names: list[str]) -> int | None:
    counts = [ctx.read_int(f"sys/devices/system/cpu/{n}/thermal_throttle/package_throttle_count") for n in names]
    counts = [c for c in counts if c is not None]
    return sum(counts) if counts else None


def sample_cpu(ctx: ProbeContext, state: dict, now: float) -> dict:
    cpus, ctxt, modes = _stat(ctx)
    prev = state.get("stat") or {}
    state["stat"] = cpus
    names = sorted((n for n in cpus if n != "cpu"), key=lambda n: int(n[3:]) if n[3:].isdigit() else 1 << 30)
    per_util = [_busy_pct(prev.get(n), cpus[n]) for n in names]
    freqs = _freqs(ctx, names)
    known = [f for f in freqs if f is not None]
    load = (ctx.read_line("proc/loadavg") or "").split()
    temps, fans = _sensors_psutil() if ctx.live else _sensors_sysfs(ctx)
    cpu_temps = [t["temp_c"] for t in temps if t["chip"] in CPU_CHIPS and t["temp_c"] is not None]
    rapl = _rapl(ctx, state.setdefault("counters", {}), now)
    package = [z["power_w"] for z in rapl if z["name"].startswith("package") and z["power_w"] is not None]

    def loadavg(i):
        try:
            value = float(load[i])
        except (IndexError, ValueError):
            return None
        return value if math.isfinite(value) else None      # "1e999" would print Infinity

    return {
        "util_pct": _busy_pct(prev.get("cpu"), cpus.get("cpu")),
        "per_cpu_util_pct": per_util,
        "per_cpu_freq_mhz": freqs,
        "per_cpu_seconds": [cpu_seconds(modes[n]) for n in names],
        "freq_mhz_mean": round(sum(known) / len(known), 1) if known else None,
        "freq_mhz_max": max(known) if known else None,
        "load_1m": loadavg(0), "load_5m": loadavg(1), "load_15m": loadavg(2),
        "ctx_switches_total": ctxt,
        "ctx_switches_per_s": rate(state["counters"], "ctxt", ctxt, now),
        "thermal_throttle_total": _throttle_count(ctx, names),
        "temp_c_max": max(cpu_temps) if cpu_temps else None,
        "package_power_w": _tidy(sum(package)) if package else None,
        "rapl": rapl,
        "temps": temps,
        "fans": fans,
    }


def _meminfo(text: str | None) -> dict:
    out = {}
    for line in (text or "").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts:
            try:
                out[key.split()[-1] if key.startswith("Node ") else key] = int(parts[0]) * 1024
            except ValueError:
                continue
    return out


def sample_memory(ctx: ProbeContext) -> dict:
    info = _meminfo(ctx.read_text("proc/meminfo"))
    total, avail = info.get("MemTotal"), info.get("MemAvailable")
    swap_total, swap_free = info.get("SwapTotal"), info.get("SwapFree")
    nodes = None
    names = [n for n in ctx.listdir("sys/devices/system/node") if n.startswith("node") and n[4:].isdigit()]
    if len(names) > 1:
        nodes = []
        for n in sorted(names, key=lambda n: int(n[4:])):
            node = _meminfo(ctx.read_text(f"sys/devices/system/node/{n}/meminfo"))
            nodes.append({"node": int(n[4:]), "total_bytes": node.get("MemTotal"), "free_bytes": node.get("MemFree")})
    return {
        "total_bytes": total,
        "available_bytes": avail,
        "used_bytes": total - avail if total is not None and avail is not None else None,
        "swap_total_bytes": swap_total,
        "swap_used_bytes": swap_total - swap_free if swap_total is not None and swap_free is not None else None,
        "numa_nodes": nodes,
    }
