"""Memory probe: total and available bytes from ``proc/meminfo``, NUMA node count from sysfs.

Without a readable ``proc/meminfo`` the NUMA nodes' own ``meminfo`` files
(``sys/devices/system/node/nodeN/meminfo``: "Node 0 MemTotal: 1234 kB") are added up. A
kernel built without NUMA support has no ``sys/devices/system/node`` at all: such a machine
has one node. A line that names a field but holds no number (``MemTotal: lots kB``) is
recorded as an unparseable input, so the report says why the figure is unknown.

psutil is asked only on the live system, and only when meminfo cannot be read (a non-Linux
host, a locked-down container); a recorded tree never reaches it.
"""

from __future__ import annotations

NODE_DIR = "sys/devices/system/node"
_WANTED = ("MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SReclaimable")
_MAX_BYTES = 1 << 62         # 4 EiB: a meminfo figure above it is garbage


def parse_meminfo(text: str | None, bad: list | None = None) -> dict[str, int]:
    """meminfo fields in bytes (values without a unit, like HugePages_Total, stay counts).
    Node meminfo lines ("Node 0 MemTotal: ...") are read too. Keys of _WANTED whose value is
    not a number (or absurd) are appended to ``bad``. Linear in the text: no regex."""
    out: dict[str, int] = {}
    for line in (text or "").split("\n"):
        key, sep, rest = line.partition(":")
        if not sep:
            continue
        key = key.split()[-1] if key.startswith("Node ") and key.split() else key.strip()
        if not key or key in out:
            continue
        parts = rest.split()
        value = parts[0] if parts else ""
        unit = parts[1] if len(parts) > 1 else ""
        if not value.isdigit() or len(parts) > 2 or unit not in ("", "kB") or len(value) > 20:
            if bad is not None and key in _WANTED:
                bad.append(key)
            continue
        number = int(value) * (1024 if unit else 1)
        if number > _MAX_BYTES:
            if bad is not None and key in _WANTED:
                bad.append(key)
            continue
        out[key] = number
    return out


def numa_nodes(ctx) -> int | None:
    """The number of NUMA nodes: the ``nodeN`` folders; 1 when the tree has a CPU folder in
    sysfs but no node folder (a kernel without CONFIG_NUMA); None when nothing is known."""
    names = [n for n in ctx.listdir(NODE_DIR) if n.startswith("node") and n[4:].isdigit()]
    count = sum(1 for n in names if ctx.is_dir(f"{NODE_DIR}/{n}"))
    if count:
        return count
    if not ctx.exists(NODE_DIR) and ctx.is_dir("sys/devices/system/cpu"):
        return 1
    return None


def _from_nodes(ctx) -> dict[str, int]:
    """MemTotal/MemFree summed over the nodes' meminfo files ({} when none is readable)."""
    total: dict[str, int] = {}
    for name in ctx.listdir(NODE_DIR):
        if not (name.startswith("node") and name[4:].isdigit()):
            continue
        rel = f"{NODE_DIR}/{name}/meminfo"
        bad: list = []
        info = parse_meminfo(ctx.read_text(rel), bad)
        if bad:
            ctx.fault(rel, "unparseable")
        for key in ("MemTotal", "MemFree"):
            if key in info:
                total[key] = total.get(key, 0) + info[key]
    return total


def probe(ctx) -> dict:
    bad: list = []
    text = ctx.read_text("proc/meminfo")
    info = parse_meminfo(text, bad)
    if bad:
        ctx.fault("proc/meminfo", "unparseable")
    if not info.get("MemTotal") and not ctx.live:        # live: psutil below knows better
        nodes = _from_nodes(ctx)
        if nodes.get("MemTotal"):
            info = {"MemTotal": nodes["MemTotal"], **({"MemFree": nodes["MemFree"]}
                                                      if "MemFree" in nodes else {})}
    total = info.get("MemTotal") or None
    available = info.get("MemAvailable")
    if available is None and total is not None and "MemFree" in info:
        # kernels before 3.14 have no MemAvailable: the usual estimate
        available = sum(info.get(k, 0) for k in ("MemFree", "Buffers", "Cached", "SReclaimable"))
    if available is not None and total is not None and available > total:
        ctx.fault("proc/meminfo", "out-of-range")
        available = None
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
        "numa_nodes": numa_nodes(ctx),
    }
    return {"memory": result}
