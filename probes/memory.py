"""Memory probe: total and available bytes from ``proc/meminfo``, NUMA node count from sysfs.

psutil is asked only on the live system, and only when meminfo cannot be read (a non-Linux
host, a locked-down container); a recorded tree never reaches it.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"^(\w+):\s+(\d+)\s*(kB)?\s*$", re.M)


def parse_meminfo(text: str | None) -> dict[str, int]:
    """meminfo fields in bytes (values without a unit, like HugePages_Total, stay counts)."""
    out: dict[str, int] = {}
    for key, value, unit in _LINE.findall(text or ""):
        out.setdefault(key, int(value) * (1024 if unit else 1))
    return out


def probe(ctx) -> dict:
    from accelgui.probes.cpu import _numa_nodes

    info = parse_meminfo(ctx.read_text("proc/meminfo"))
    total = info.get("MemTotal") or None
    available = info.get("MemAvailable")
    if available is None and total is not None and "MemFree" in info:
        # kernels before 3.14 have no MemAvailable: the usual estimate
        available = sum(info.get(k, 0) for k in ("MemFree", "Buffers", "Cached", "SReclaimable"))
    if total is None and ctx.live:
        try:
            import psutil

            vm = psutil.virtual_memory()
            total, available = int(vm.total), int(vm.available)
        except Exception:  # noqa: BLE001 - psutil missing or unsupported: unknown
            pass
    result = {
        "total_bytes": total,
        "available_bytes": available if total is not None else None,
        "numa_nodes": _numa_nodes(ctx),
    }
    return {"memory": result}
