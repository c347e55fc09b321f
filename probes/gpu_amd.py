"""AMD GPU details from the KFD topology (``sys/class/kfd/kfd/topology/nodes/*/properties``).

Each GPU (or each partition of one, on an Instinct in CPX mode) is a KFD node whose
``properties`` file holds "key value" lines. ``gfx_target_version`` encodes the ISA as
major*10000 + minor*100 + stepping, printed as ``gfx{major}{minor:x}{stepping:x}``:
90402 -> gfx942 (MI300), 90010 -> gfx90a (MI200), 110000 -> gfx1100 (RX 7900 XTX),
100300 -> gfx1030. ``location_id`` is the PCI bus/device/function (bus << 8 | devfn) and
``domain`` the PCI domain, which tie the node to its PCI device. CPU nodes have
``simd_count 0`` and are skipped.
"""

from __future__ import annotations

from accelgui.probes.context import ProbeContext

TOPOLOGY = "sys/class/kfd/kfd/topology/nodes"


def gfx_target(version: int | None) -> str | None:
    if not version or version <= 0:
        return None
    major, minor, step = version // 10000, (version // 100) % 100, version % 100
    return f"gfx{major}{minor:x}{step:x}"


def pci_address(domain: int | None, location_id: int | None) -> str | None:
    if location_id is None:
        return None
    bus, devfn = (location_id >> 8) & 0xff, location_id & 0xff
    return f"{domain or 0:04x}:{bus:02x}:{devfn >> 3:02x}.{devfn & 7}"


def parse_properties(text: str) -> dict[str, int]:
    props = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        try:
            props[key] = int(value.strip())
        except ValueError:
            continue
    return props


def probe(ctx: ProbeContext) -> dict:
    nodes = ctx.listdir(TOPOLOGY)
    if not nodes:
        return {"_status": "absent", "_reason": "no AMD KFD topology (amdgpu not loaded or no "
                                                "AMD GPU)", "kfd": []}
    gpus = []
    for node in sorted(nodes, key=lambda n: int(n) if n.isdigit() else 1 << 30):
        props = parse_properties(ctx.read_text(f"{TOPOLOGY}/{node}/properties") or "")
        if not props.get("simd_count"):
            continue    # a CPU node
        simd_per_cu = props.get("simd_per_cu") or None
        local_mem = 0
        for bank in ctx.listdir(f"{TOPOLOGY}/{node}/mem_banks"):
            bprops = parse_properties(ctx.read_text(f"{TOPOLOGY}/{node}/mem_banks/{bank}/properties") or "")
            if bprops.get("heap_type") in (1, 2):     # HSA_HEAPTYPE_FRAME_BUFFER_(PUBLIC|PRIVATE)
                local_mem += bprops.get("size_in_bytes") or 0
        version = props.get("gfx_target_version")
        gpus.append({
            "node": int(node) if node.isdigit() else node,
            "name": ctx.read_line(f"{TOPOLOGY}/{node}/name"),
            "pci_address": pci_address(props.get("domain"), props.get("location_id")),
            "gfx_target_version": version,
            "gfx_target": gfx_target(version),
            "simd_count": props.get("simd_count"),
            "array_count": props.get("array_count"),
            "compute_units": (props["simd_count"] // simd_per_cu) if simd_per_cu else None,
            "max_engine_clk_mhz": props.get("max_engine_clk_fcompute"),
            "wave_front_size": props.get("wave_front_size"),
            "num_xcc": props.get("num_xcc"),
            "drm_render_minor": props.get("drm_render_minor"),
            "vendor_id": f"{props['vendor_id']:04x}" if props.get("vendor_id") else None,
            "device_id": f"{props['device_id']:04x}" if props.get("device_id") else None,
            "local_mem_bytes": local_mem or props.get("local_mem_size") or None,
        })
    if not gpus:
        return {"_status": "absent", "_reason": "the KFD topology lists no GPU", "kfd": []}
    return {"kfd": gpus, "kfd_device": ctx.exists("dev/kfd")}
