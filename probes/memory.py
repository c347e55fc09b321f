"""Memory probe: total and available bytes from ``proc/meminfo``, NUMA node count from sysfs,
the theoretical peak bandwidth of the system memory, the cgroup's limits and the NUMA nodes
that hold memory but no CPUs.

Without a readable ``proc/meminfo`` the NUMA nodes' own ``meminfo`` files
(``sys/devices/system/node/nodeN/meminfo``: "Node 0 MemTotal: 1234 kB") are added up. A
kernel built without NUMA support has no ``sys/devices/system/node`` at all: such a machine
has one node. A line that names a field but holds no number (``MemTotal: lots kB``) is
recorded as an unparseable input, so the report says why the figure is unknown.

Peak bandwidth (``bandwidth_spec_gbps``): from the SMBIOS Memory Device structures in
``sys/firmware/dmi/tables/DMI`` when they can be read (root only on real machines: for
anyone else the table is skipped without a warning; in a virtual machine its memory
devices are virtual and it is not read), else from the dated table
``data/memory_configs.json`` for parts whose memory is fixed by the part (keyed by ids:
device-tree compatible, SMCCC SoC id, x86 vendor/family/model, Arm core parts). A socketed
part's row gives only an upper bound (``bandwidth_spec.max_gbps``), never the figure.

Memory-only NUMA nodes: nodes with an empty ``cpulist`` and memory (a GH200's HBM, CXL
expanders), so that an estimate can keep them out of the CPU's memory.

Limits: the cgroup the process is in (``proc/self/cgroup``), v2 ``memory.max``/``cpu.max``
or v1 ``memory.limit_in_bytes``/``cpu.cfs_quota_us``, the lowest along its path.

psutil is asked only on the live system, and only when meminfo cannot be read (a non-Linux
host, a locked-down container); a recorded tree never reaches it.
"""

from __future__ import annotations

import os
import re

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



# ------------------------------------------------------------------ NUMA: memory without CPUs

def memory_only_nodes(ctx) -> tuple[list[int], int | None]:
    """NUMA nodes with memory and no CPUs (an empty ``cpulist`` and MemTotal > 0 in the
    node's ``meminfo``): a GH200's HBM onlined as system memory, CXL expanders. Returns
    (node ids, their MemTotal summed); the sum is None when the tree has no node folders
    and 0 when it has nodes and none of them is memory-only. A node whose cpulist cannot
    be read is not counted (unknown is not "no CPUs")."""
    ids, total, seen = [], 0, False
    for name in ctx.listdir(NODE_DIR):
        if not (name.startswith("node") and name[4:].isdigit()):
            continue
        seen = True
        cpulist = ctx.read_text(f"{NODE_DIR}/{name}/cpulist", limit=1 << 16)
        if cpulist is None or cpulist.strip():
            continue
        info = parse_meminfo(ctx.read_text(f"{NODE_DIR}/{name}/meminfo"))
        if info.get("MemTotal", 0) > 0:
            ids.append(int(name[4:]))
            total += info["MemTotal"]
    return sorted(ids), (total if seen else None)


# ------------------------------------------------------------------ cgroup limits

CGROUP_DIR = "sys/fs/cgroup"
_UNLIMITED = 1 << 60          # a v1 limit at or above it (LONG_MAX rounded to a page) is none


def cgroup_paths(ctx) -> dict[str, str]:
    """controller -> cgroup path from ``proc/self/cgroup`` ("" for the v2 hierarchy)."""
    out: dict[str, str] = {}
    for line in (ctx.read_text("proc/self/cgroup", limit=1 << 16) or "").split("\n"):
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        for controller in (parts[1].split(",") if parts[1] else [""]):
            out.setdefault(controller.removeprefix("name="), parts[2])
    return out


def cgroup_ancestors(path: str) -> list[str]:
    """The cgroup folder of ``path`` and every folder above it, innermost first ("" is the
    mount's root). Limits of all of them apply. A container without its own cgroup
    namespace names a path the mount does not have (its root *is* the container's
    cgroup): the missing folders read as nothing and the root answers."""
    comps = [c for c in path.split("/") if c and c not in (".", "..")][:32]
    return ["/".join(comps[:n]) for n in range(len(comps), -1, -1)]


def _lowest(ctx, base: str, path: str, name: str, parse):
    """The lowest value ``parse`` finds in ``base/<ancestor>/name`` (None when none has one)."""
    best = None
    for folder in cgroup_ancestors(path):
        rel = f"{base}/{folder}/{name}" if folder else f"{base}/{name}"
        line = ctx.read_line(rel)
        if line is None:
            continue
        value = parse(line)
        if value is _BAD:
            ctx.fault(rel, "unparseable")
        elif value is not None and (best is None or value < best):
            best = value
    return best


_BAD = object()


def _bytes_limit(line: str):
    if line == "max":
        return None
    if not line.isdigit() or len(line) > 20:
        return _BAD
    value = int(line)
    return None if value >= _UNLIMITED else value


def _cpu_max(line: str):
    quota, _, period = line.partition(" ")
    if quota == "max":
        return None
    if not (quota.isdigit() and period.isdigit()) or len(quota) > 20 or len(period) > 20 \
            or not int(period):
        return _BAD
    return int(quota) / int(period)


def _v1_dir(ctx, controller: str) -> str | None:
    for name in (controller, "cpu,cpuacct", "cpuacct,cpu") if controller == "cpu" else (controller,):
        if ctx.is_dir(f"{CGROUP_DIR}/{name}"):
            return f"{CGROUP_DIR}/{name}"
    return None


def cgroup_limits(ctx) -> tuple[int | None, float | None]:
    """(memory limit in bytes, CPU limit in CPUs) of the cgroup the process is in, the
    lowest along its path up to the mount's root: v2 ``memory.max`` and ``cpu.max``
    ("quota period"), v1 ``memory.limit_in_bytes`` and ``cpu.cfs_quota_us`` /
    ``cpu.cfs_period_us`` (-1: none). "max", a v1 limit of about 2^63 and no file are None."""
    paths = cgroup_paths(ctx)
    if not paths:
        return None, None
    memory = cpus = None
    unified = next((d for d in (CGROUP_DIR, f"{CGROUP_DIR}/unified")
                    if ctx.exists(f"{d}/cgroup.controllers")), None)
    if unified is not None and "" in paths:
        memory = _lowest(ctx, unified, paths[""], "memory.max", _bytes_limit)
        cpus = _lowest(ctx, unified, paths[""], "cpu.max", _cpu_max)
    if memory is None and "memory" in paths and (base := _v1_dir(ctx, "memory")):
        memory = _lowest(ctx, base, paths["memory"], "memory.limit_in_bytes", _bytes_limit)
    if cpus is None and "cpu" in paths and (base := _v1_dir(ctx, "cpu")):
        best = None
        for folder in cgroup_ancestors(paths["cpu"]):
            at = f"{base}/{folder}" if folder else base
            q, p = ctx.read_line(f"{at}/cpu.cfs_quota_us"), ctx.read_line(f"{at}/cpu.cfs_period_us")
            if q is None or p is None or q == "-1":
                continue
            value = _cpu_max(f"{q} {p}")
            if value is _BAD:
                ctx.fault(f"{at}/cpu.cfs_quota_us", "unparseable")
            elif value is not None and (best is None or value < best):
                best = value
        cpus = best
    return memory, (round(cpus, 3) if cpus is not None else None)


# ------------------------------------------------------------------ SMBIOS type 17

DMI_TABLE = "sys/firmware/dmi/tables/DMI"
# SMBIOS (DSP0134) 7.18.2 Memory Device Type
_SMBIOS_TYPES = {0x12: "DDR", 0x13: "DDR2", 0x18: "DDR3", 0x1A: "DDR4", 0x1B: "LPDDR",
                 0x1C: "LPDDR2", 0x1D: "LPDDR3", 0x1E: "LPDDR4", 0x20: "HBM", 0x21: "HBM2",
                 0x22: "DDR5", 0x23: "LPDDR5", 0x24: "HBM3"}
_NOT_DRAM_TYPES = (0x1F,)                 # logical non-volatile device
_NOT_DRAM_TECH = (0x04, 0x05, 0x06, 0x07)  # NVDIMM-N/F/P, Intel Optane persistent memory
_DIMM_FORMS = (0x09, 0x0D, 0x11)          # DIMM, SODIMM, CAMM: a module with its own 64-bit bus
_MAX_STRUCTS = 4096


def _u16(buf: bytes, off: int) -> int | None:
    return int.from_bytes(buf[off:off + 2], "little") if len(buf) >= off + 2 else None


def _u32(buf: bytes, off: int) -> int | None:
    return int.from_bytes(buf[off:off + 4], "little") if len(buf) >= off + 4 else None


def parse_smbios_memory(data: bytes) -> tuple[list[dict], str | None]:
    """The Memory Device (type 17) structures of a raw SMBIOS structure table (what
    ``/sys/firmware/dmi/tables/DMI`` holds: structures back to back, each a formatted
    area of ``length`` bytes and a string set ending in two NULs, up to type 127).
    Returns (devices, problem): problem is None or the fault reason ("truncated",
    "unparseable") for a table that ends inside a structure or holds a bogus length; the
    devices read before it are kept."""
    devices: list[dict] = []
    off, n = 0, 0
    while off + 4 <= len(data) and n < _MAX_STRUCTS:
        n += 1
        kind, length = data[off], data[off + 1]
        if length < 4:
            return devices, "unparseable"
        if off + length > len(data):
            return devices, "truncated"
        end = data.find(b"\x00\x00", off + length)
        if end < 0:
            return devices, "truncated"
        if kind == 127:
            break
        if kind == 17:
            strings = data[off + length:end].split(b"\x00")
            devices.append(_memory_device(data[off:off + length], strings))
        off = end + 2
    return devices, None


def _memory_device(s: bytes, strings: list[bytes]) -> dict:
    def text(idx_off: int) -> str:
        if len(s) <= idx_off or not s[idx_off] or s[idx_off] > len(strings):
            return ""
        return strings[s[idx_off] - 1].decode("ascii", "replace").strip()

    size = _u16(s, 0x0C)
    if size in (None, 0xFFFF):
        size_bytes = None                       # unknown
    elif size == 0x7FFF:
        ext = _u32(s, 0x1C)
        size_bytes = (ext & 0x7FFFFFFF) << 20 if ext is not None else None
    else:
        size_bytes = (size & 0x7FFF) << (10 if size & 0x8000 else 20)
    width = _u16(s, 0x0A)
    speed = _u16(s, 0x15)
    if speed == 0xFFFF:
        speed = _u32(s, 0x54)
    configured = _u16(s, 0x20)
    if configured == 0xFFFF:
        configured = _u32(s, 0x58)
    return {"size_bytes": size_bytes,
            "data_width": None if width in (None, 0, 0xFFFF) else width,
            "form": s[0x0E] if len(s) > 0x0E else None,
            "locator": text(0x10), "bank": text(0x11),
            "type": s[0x12] if len(s) > 0x12 else None,
            "technology": s[0x28] if len(s) > 0x28 else None,
            "speed": speed or None, "configured_speed": configured or None}


# locator patterns, compiled on first use (re's cache): only a readable SMBIOS table needs them
_CHANNEL = r"channel[\s_-]*([a-z0-9]{1,3})(?![a-z0-9])|(?<![a-z])ch[\s_-]?([a-z0-9])(?![a-z0-9])"
_SOCKET = r"(?<![a-z])(?:cpu|proc|processor|socket|p|node)[\s_-]*(\d{1,3})"
_CONTROLLER = r"(?<![a-z])(?:controller|ctrl|imc|mc)[\s_-]*(\d{1,3})"
_DIMM_LETTER = r"dimm[\s_.-]*(?:p\d{1,2}[\s_.-]*)?([a-z])[\s_.-]*\d"
_BARE_SLOT = r"([a-z])\d{1,2}"


def _channel_key(dev: dict) -> tuple | None:
    """(socket, controller, channel) a module sits on, from its locators ("ChannelA-DIMM0",
    "Controller1-ChannelA-DIMM0", "P0 CHANNEL A", "CPU1_DIMM_A1", "DIMM_B1", a bare "A1");
    None when the locators do not say (numbered slots: "DIMM 0", "PROC 1 DIMM 3")."""
    loc, bank = dev["locator"].lower()[:64], dev["bank"].lower()[:64]
    both = f"{bank} {loc}"
    m = re.search(_CHANNEL, both)
    channel = (m.group(1) or m.group(2)) if m else None
    if channel is None:
        m = re.search(_DIMM_LETTER, loc) or re.search(_DIMM_LETTER, bank)
        channel = m.group(1) if m else None
    if channel is None:
        m = re.fullmatch(_BARE_SLOT, loc)
        channel = m.group(1) if m else None
    if channel is None:
        return None
    socket = re.search(_SOCKET, both)
    ctrl = re.search(_CONTROLLER, both)
    return (socket.group(1) if socket else "", ctrl.group(1) if ctrl else "", channel)


def _module_bits(dev: dict) -> int:
    """The data bits one module moves per transfer. A DDR5 DIMM is two 32-bit subchannels:
    firmware that reports one subchannel's width (32) still means 64 bits per DIMM. LPDDR
    devices report their own width (16, 32, 64)."""
    width = dev["data_width"]
    if dev["type"] == 0x22 and dev["form"] in _DIMM_FORMS and width == 32:
        return 64
    return width


def smbios_bandwidth(ctx, max_channels: int | None = None) -> dict | None:
    """The theoretical peak of the installed DRAM from SMBIOS, or None (no table, or the
    table does not tell; a table that holds modules but no usable speed or width is a
    warning). Peak = configured speed (MT/s) x bytes per transfer of every populated
    channel; modules sharing a channel do not add. Without channel names in the locators
    every populated module counts as its own channel, never more 64-bit channels than
    ``max_channels`` (the CPU's, from the table)."""
    path = ctx.path(DMI_TABLE)
    if path is None:
        return None
    if ctx.live and not os.access(path, os.R_OK):
        return None                    # root-only on real machines: expected, not a warning
    data = ctx.read_bytes(DMI_TABLE, limit=1 << 20)
    if not data:
        return None
    devices, problem = parse_smbios_memory(data)
    if problem:
        ctx.fault(DMI_TABLE, problem)
    mods = [d for d in devices if d["size_bytes"] and d["type"] not in _NOT_DRAM_TYPES
            and d["technology"] not in _NOT_DRAM_TECH]
    if not mods:
        return None
    found = modules_bandwidth(mods, max_channels)
    if found is None:
        ctx.fault(DMI_TABLE, "out-of-range")     # a module of unknown speed or width
    return found


def modules_bandwidth(mods: list[dict], max_channels: int | None = None, source: str = "smbios") -> dict | None:
    """The peak of populated DRAM modules (records as :func:`parse_smbios_memory` gives them,
    from any OS), or None when a module's speed or width is unknown or out of range. Modules
    sharing a channel do not add; without channel names in the locators every module is its
    own channel, never more 64-bit channels than ``max_channels``."""
    speeds = [d["configured_speed"] or d["speed"] for d in mods]
    widths = [_module_bits(d) if d["data_width"] else None for d in mods]
    if not mods or any(not s or s > 100000 for s in speeds) or any(not w or w > 1024 for w in widths):
        return None
    keys = [_channel_key(d) for d in mods]
    if all(keys):
        channels: dict = {}
        for key, bits in zip(keys, widths):
            channels[key] = max(channels.get(key, 0), bits)
        bus_bits, count, how = sum(channels.values()), len(channels), "locators"
    else:
        bus_bits, count, how = sum(widths), len(mods), "modules"
        if max_channels and bus_bits > max_channels * 64:
            bus_bits, count = max_channels * 64, max_channels
    speed = min(speeds)
    types = {_SMBIOS_TYPES.get(d["type"]) for d in mods}
    return {"gbps": round(speed * bus_bits / 8 / 1000, 2),
            "spec": {"memory_type": types.pop() if len(types) == 1 else None,
                     "speed_mts": speed, "channels": count, "bus_width_bits": bus_bits,
                     "modules": len(mods), "channels_from": how, "row": None,
                     "as_of": None, "source": source}}


def smbios_memory_only(data: bytes) -> bytes | None:
    """What a recorded tree keeps of a raw SMBIOS table: its Memory Device (type 17)
    structures and the end structure, without serial numbers, asset tags or firmware
    versions (their string references are cleared, the string sets rebuilt); every other
    structure (system, board and chassis serials, UUIDs) is left out. None when the
    table holds no type 17 structure."""
    out: list[bytes] = []
    off, n = 0, 0
    while off + 4 <= len(data) and n < _MAX_STRUCTS:
        n += 1
        kind, length = data[off], data[off + 1]
        end = data.find(b"\x00\x00", off + length) if length >= 4 else -1
        if end < 0 or off + length > len(data) or kind == 127:
            break
        if kind == 17:
            area = bytearray(data[off:off + length])
            strings = data[off + length:end].split(b"\x00")
            kept: list[bytes] = []
            for at in (0x10, 0x11, 0x17, 0x18, 0x19, 0x1A, 0x2B):
                if at >= len(area):
                    continue
                idx = area[at]
                if at in (0x18, 0x19, 0x2B) or not idx or idx > len(strings) or not strings[idx - 1]:
                    area[at] = 0
                else:
                    kept.append(strings[idx - 1])
                    area[at] = len(kept)
            out.append(bytes(area) + (b"\x00".join(kept) + b"\x00\x00" if kept else b"\x00\x00"))
        off = end + 2
    if not out:
        return None
    return b"".join(out) + bytes([127, 4, 0xFF, 0xFE, 0, 0])


def record_inputs(r, scrub=None) -> None:
    """Copy what this probe reads beyond meminfo and the NUMA nodes into a recorded tree
    (``r``: probes/record.py's recorder): the type 17 part of the SMBIOS table, the SoC id,
    and the cgroup limit files along the recorded cgroup path (``scrub``, the recorder's
    transform of the cgroup file, is applied to the folder names too, so the recorded path
    and the recorded folders agree)."""
    data = r.read(DMI_TABLE)
    if data:
        kept = smbios_memory_only(data)
        if kept:
            r.put(DMI_TABLE, kept)
    r.copy("sys/devices/soc0/soc_id")
    text = r.read("proc/1/cgroup") or r.read("proc/self/cgroup")
    if not text:
        return
    renamed = (lambda folder: scrub(folder.encode()).decode("utf-8", "replace")) if scrub \
        else (lambda folder: folder)
    for line in text.decode("utf-8", "replace").split("\n"):
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        controllers = parts[1].split(",") if parts[1] else [""]
        bases = []
        if "" in controllers:
            bases = [(d, ("memory.max", "cpu.max")) for d in (CGROUP_DIR, f"{CGROUP_DIR}/unified")
                     if r.exists(f"{d}/cgroup.controllers")]
            for d, _ in bases:
                r.copy(f"{d}/cgroup.controllers")
        if "memory" in controllers:
            bases.append((f"{CGROUP_DIR}/memory", ("memory.limit_in_bytes",)))
        if "cpu" in controllers:
            bases += [(f"{CGROUP_DIR}/{name}", ("cpu.cfs_quota_us", "cpu.cfs_period_us"))
                      for name in ("cpu", "cpu,cpuacct", "cpuacct,cpu") if r.is_dir(f"{CGROUP_DIR}/{name}")]
        for base, names in bases:
            for folder in cgroup_ancestors(parts[2]):
                src = f"{base}/{folder}" if folder else base
                dst = f"{base}/{renamed(folder)}" if folder else base
                for name in names:
                    got = r.read(f"{src}/{name}")
                    if got is not None:
                        r.put(f"{dst}/{name}", got)


# ------------------------------------------------------------------ the dated table

_INDEX: dict | None = None


def _table_index() -> dict:
    """id -> row of probes/data/memory_configs.json, built once per process."""
    global _INDEX
    if _INDEX is None:
        from accelgui.data import json_file

        index: dict = {}
        try:
            rows = json_file("accelgui.probes", "data/memory_configs.json").get("rows", [])
        except (OSError, ValueError, AttributeError):
            rows = []
        for row in rows:
            for key in row.get("ids", ()):
                index.setdefault(key, row)
        _INDEX = index
    return _INDEX


def _strings0(ctx, *rels: str) -> list[str]:
    for rel in rels:
        text = ctx.read_text(rel, limit=1 << 16)
        if text:
            return [s.strip() for s in text.split("\x00") if s.strip()][:32]
    return []


def _sockets(info) -> int:
    ids = {cpu.get("physical id") for cpu in info.cpus.values() if cpu.get("physical id")}
    return max(1, len(ids))


def table_row(ctx) -> tuple[dict | None, int, bool]:
    """The table row for this machine, its socket count and whether it is a virtual machine
    (the x86 ``hypervisor`` flag: its SMBIOS memory devices are the hypervisor's virtual
    DIMMs, not the memory, so they are not read). Rows are matched by device-tree
    compatibles (most specific first), the SMCCC SoC id (``sys/devices/soc0/soc_id``), x86
    vendor + family + model, and, on a machine without a device tree, the set of Arm core
    parts."""
    from accelgui.probes.cpu import read_cpuinfo

    info = read_cpuinfo(ctx)
    sockets = _sockets(info)
    guest = "hypervisor" in info.type.get("flags", "").split()
    index = _table_index()
    if not index:
        return None, sockets, guest
    compat = _strings0(ctx, "proc/device-tree/compatible",
                       "sys/firmware/devicetree/base/compatible")
    for c in compat:
        if f"dt:{c}" in index:
            return index[f"dt:{c}"], sockets, guest
    soc_id = ctx.read_line("sys/devices/soc0/soc_id")
    if soc_id and f"soc_id:{soc_id}" in index:
        return index[f"soc_id:{soc_id}"], sockets, guest
    first = info.first
    vendor, family, model = first.get("vendor_id"), first.get("cpu family"), first.get("model")
    if vendor and family and model and family.isdigit() and model.isdigit():
        key = f"x86:{vendor}:{int(family)}:{int(model)}"
        if key in index:
            return index[key], sockets, guest
    if not compat:
        parts = sorted({f"{c.get('CPU implementer', '').lower()}:{c.get('CPU part', '').lower()}"
                        for c in info.cpus.values() if c.get("CPU part")})
        if parts and f"arm_cpus:{'+'.join(parts)}" in index:
            return index[f"arm_cpus:{'+'.join(parts)}"], sockets, guest
    return None, sockets, guest


def _row_spec(row: dict, sockets: int) -> dict:
    per_socket = sockets if row.get("per_socket") else 1
    channels = row.get("channels")
    bus = row.get("bus_width_bits")
    spec = {"memory_type": row.get("memory_type"), "speed_mts": row.get("speed_mts"),
            "channels": channels * per_socket if isinstance(channels, int) else None,
            "bus_width_bits": bus * per_socket if isinstance(bus, int) else None,
            "modules": None, "row": row.get("id"), "as_of": row.get("as_of"),
            "source": row.get("source"), "fixed": bool(row.get("fixed"))}
    if not row.get("fixed") and isinstance(row.get("max_gbps"), (int, float)):
        spec["max_gbps"] = round(row["max_gbps"] * per_socket, 2)
    if not row.get("fixed") and isinstance(row.get("min_gbps"), (int, float)):
        # one channel at the slowest memory the platform supports: any running machine has
        # at least that (not multiplied by sockets: one populated channel is the bound)
        spec["min_gbps"] = round(row["min_gbps"], 2)
    return spec


def bandwidth_spec(ctx) -> tuple[float | None, str | None, dict | None]:
    """(peak GB/s, "smbios" | "table" | None, the object behind it). SMBIOS first (not in a
    virtual machine, whose memory devices are virtual); else the
    table row when the part fixes its memory (``fixed``: on-package or soldered at a fixed
    width and speed); a socketed part's row (``fixed: false``) gives only ``max_gbps``, an
    upper bound, and the figure stays None."""
    row, sockets, guest = table_row(ctx)
    cap = None
    if row and isinstance(row.get("channels"), int) and row.get("channel_width_bits", 64) == 64:
        cap = row["channels"] * (sockets if row.get("per_socket") else 1)
    found = None if guest else smbios_bandwidth(ctx, cap)
    if found:
        if row:
            found["spec"]["row"] = row.get("id")
        return found["gbps"], "smbios", found["spec"]
    if row is None:
        return None, None, None
    spec = _row_spec(row, sockets)
    gbps = row.get("gbps") if row.get("fixed") else None
    if not isinstance(gbps, (int, float)):
        return None, None, spec
    return float(gbps), "table", spec


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
    gbps, source, spec = bandwidth_spec(ctx)
    limit, cpus = cgroup_limits(ctx)
    only, only_bytes = memory_only_nodes(ctx)
    result.update({
        "bandwidth_spec_gbps": gbps,
        "bandwidth_spec_source": source,
        "bandwidth_spec": spec,
        "cgroup_limit_bytes": limit,
        "cgroup_cpu_limit": cpus,
        "numa_memory_only_nodes": only,
        "numa_memory_only_bytes": only_bytes,
    })
    return {"memory": result}
