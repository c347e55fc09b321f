"""Per-process GPU/NPU use from the kernel's DRM client usage stats (``/proc/<pid>/fdinfo``).

Every DRM (and accel) driver that implements them (amdgpu, i915, xe, msm, panfrost, v3d,
ivpu...) prints, for each open file of a device node, ``drm-driver``, ``drm-pdev`` (the PCI
address), ``drm-client-id`` (unique per open file description, so a client shared by two
fds or a forked child counts once), ``drm-engine-<name>: <ns> ns`` (busy time, cumulative),
optionally ``drm-engine-capacity-<name>`` and ``drm-memory-<region>`` / ``drm-resident-<region>``
with a size unit. Engine busy percent is the change in ns between two samples over the
elapsed time and the engine's capacity. See https://docs.kernel.org/gpu/drm-usage-stats.html
"""

from __future__ import annotations

import os

from accelgui.probes.context import ProbeContext

_UNITS = {"": 1, "B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}
_NODES = ("/dev/dri/", "/dev/accel/")


def parse_fdinfo(text: str) -> dict | None:
    info = {"engines": {}, "capacity": {}, "memory": {}, "resident": {}, "cycles": {}, "total_cycles": {}}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        value = value.strip()
        if key == "drm-driver":
            info["driver"] = value
        elif key == "drm-pdev":
            info["pdev"] = value
        elif key == "drm-client-id":
            info["client_id"] = value
        elif key.startswith("drm-total-cycles-"):
            info["total_cycles"][key[len("drm-total-cycles-"):]] = _int(value)
        elif key.startswith("drm-cycles-"):
            info["cycles"][key[len("drm-cycles-"):]] = _int(value)
        elif key.startswith("drm-engine-capacity-"):
            info["capacity"][key[len("drm-engine-capacity-"):]] = _int(value) or 1
        elif key.startswith("drm-engine-"):
            info["engines"][key[len("drm-engine-"):]] = _int(value.split()[0] if value else "")
        elif key.startswith(("drm-memory-", "drm-resident-")):
            parts = value.split()
            size = _int(parts[0]) if parts else None
            unit = _UNITS.get(parts[1] if len(parts) > 1 else "")
            if size is not None and unit:
                kind = "memory" if key.startswith("drm-memory-") else "resident"
                info[kind][key.split("-", 2)[2]] = size * unit
    return info if "driver" in info and "client_id" in info else None


def _int(text: str):
    try:
        return int(text)
    except ValueError:
        return None


def drm_fds(ctx: ProbeContext) -> list[tuple[str, str]]:
    """(pid, fd) of every open DRM/accel device node of every process (the costly part: one
    readlink per open file on the machine)."""
    found = []
    for pid in ctx.listdir("proc"):
        if not pid.isdigit():
            continue
        for fd in ctx.listdir(f"proc/{pid}/fd"):
            try:
                target = os.readlink(ctx.p(f"proc/{pid}/fd/{fd}"))
            except OSError:
                continue
            if target.startswith(_NODES):
                found.append((pid, fd))
    return found


def read_clients(ctx: ProbeContext, fds: list[tuple[str, str]] | None = None) -> dict:
    """{(pdev or driver, client_id): client} read from the fdinfo of ``fds`` (all DRM/accel
    files of every process when None); a file closed since ``fds`` was taken is skipped."""
    clients = {}
    for pid, fd in drm_fds(ctx) if fds is None else fds:
        info = parse_fdinfo(ctx.read_text(f"proc/{pid}/fdinfo/{fd}", limit=65536) or "")
        if info is None:
            continue
        key = (info.get("pdev") or info["driver"], info["client_id"])
        if key not in clients:
            info["pid"] = int(pid)
            info["name"] = ctx.read_line(f"proc/{pid}/comm")
            clients[key] = info
    return clients


def _engine_pct(client: dict, before: dict | None, dt: float) -> dict:
    """Busy percent of each engine of one client between two readings: from busy ns over the
    elapsed time (``drm-engine-*``), or from GPU cycles over total cycles (``drm-cycles-*`` /
    ``drm-total-cycles-*``, as xe reports), divided by the engine's capacity."""
    out = {}
    for engine, ns in client["engines"].items():
        old = before["engines"].get(engine) if before else None
        out[engine] = None
        if ns is not None and old is not None and dt > 0 and ns >= old:
            out[engine] = min(100.0, (ns - old) / (dt * 1e9) / client["capacity"].get(engine, 1) * 100.0)
    for engine, cycles in client["cycles"].items():
        total = client["total_cycles"].get(engine)
        old, old_total = (before["cycles"].get(engine), before["total_cycles"].get(engine)) if before else (None, None)
        out[engine] = None
        if None not in (cycles, total, old, old_total) and total > old_total and cycles >= old:
            out[engine] = min(100.0, (cycles - old) / (total - old_total) / client["capacity"].get(engine, 1) * 100.0)
    return out


def usage(clients: dict, prev: dict | None, dt: float) -> dict:
    """{device key: {"engines_pct": {engine: pct}, "util_pct", "processes": [...]}} from two
    readings ``dt`` seconds apart (engine figures null without a previous reading)."""
    devices: dict[str, dict] = {}
    for key, client in clients.items():
        dev = devices.setdefault(key[0], {"engines_pct": {}, "processes": {}})
        before = (prev or {}).get(key)
        proc = dev["processes"].setdefault(client["pid"], {"pid": client["pid"], "name": client.get("name"),
                                                           "engines_pct": {}, "memory_bytes": None})
        memory = client["resident"] or client["memory"]
        if memory:
            proc["memory_bytes"] = (proc["memory_bytes"] or 0) + sum(memory.values())
        for engine, pct in _engine_pct(client, before, dt).items():
            if pct is not None:
                proc["engines_pct"][engine] = round(proc["engines_pct"].get(engine, 0.0) + pct, 1)
                total = dev["engines_pct"].get(engine) or 0.0
                dev["engines_pct"][engine] = round(min(100.0, total + pct), 1)
            else:
                dev["engines_pct"].setdefault(engine, None)
    for dev in devices.values():
        known = [v for v in dev["engines_pct"].values() if v is not None]
        dev["util_pct"] = max(known) if known else None
        dev["processes"] = sorted(dev["processes"].values(), key=lambda p: p["pid"])
    return devices
