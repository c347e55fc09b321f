"""On-chip accelerators of Arm boards, found through the device tree and platform devices.

``proc/device-tree/compatible`` (NUL-separated, most specific first) names the board and
the SoC. Rockchip NPUs appear as platform devices ``<address>.npu`` (``fdab0000.npu`` on
the RK3588) with a devfreq entry of the same name, bound to the vendor ``RKNPU`` driver
(a DRM device, usually ``renderD129``) or to the mainline ``rocket`` accel driver. NVIDIA
Jetson GPUs are platform devices ``17000000.gpu`` / ``17000000.ga10b`` (Orin),
``17000000.gv11b`` (Xavier), ``57000000.gpu`` (Nano), driven by nvgpu (``gk20a``).

Other SoC GPUs are DRM render nodes of a platform device: ``sys/class/drm/renderDN/device``
is the device-tree node's platform device, and its ``of_node/compatible`` (``apple,agx-t8103``
on an M1 under Asahi Linux, driven by ``asahi``) names the GPU through the specification rows
of a GPU family that claims SoCs (``data/families/apple-gpu.json``). Where the node carries a
generic compatible only, the machine's SoC compatible (``apple,t8103``) names it, provided
the bound driver is one of that family's.
"""

from __future__ import annotations

import os
import re

from accelgui.probes.context import ProbeContext

_NPU_NODE = r"^[0-9a-f]+\.npu$"
_TEGRA_GPU_NODE = r"^([0-9a-f]+\.(gpu|ga10b|gv11b|gp10b|gm20b|gb10b|gb20b)|gpu\.0)$"
_DLA_NODE = r"^[0-9a-f]+\.nvdla\d$"


def _strings(ctx: ProbeContext, *paths: str) -> list[str]:
    from accelgui.probes import ids

    for rel in paths:
        data = ctx.read_bytes(rel, limit=4096)
        if data:
            names = (ids.clean_name(s.decode("utf-8", "replace")) for s in data.split(b"\0"))
            return [n for n in names if n]
    return []


_BASES = ("sys/bus/platform/devices", "sys/devices/platform", "sys/devices", "sys/class/devfreq")


def _driver(ctx: ProbeContext, names: list[str]) -> str | None:
    from accelgui.probes.pci import uevent

    for name in names:
        for base in _BASES:
            drv = ctx.readlink(f"{base}/{name}/driver") or \
                ctx.readlink(f"{base}/{name}/device/driver") or \
                uevent(ctx, f"{base}/{name}").get("DRIVER")
            if drv:
                return drv
    return None


def _platform_names(ctx: ProbeContext) -> list[str]:
    names: list[str] = []
    for base in _BASES[:3]:
        names.extend(n for n in ctx.listdir(base) if n not in names)
    return names


def _child_nodes(ctx: ProbeContext, names: list[str]) -> list[str]:
    from accelgui.probes.pci import child_nodes

    nodes: list[str] = []
    for name in names:
        for base in _BASES[:3]:
            for n in child_nodes(ctx, f"{base}/{name}"):
                if n not in nodes:
                    nodes.append(n)
    return nodes


def _devfreq(ctx: ProbeContext, names: list[str]) -> dict:
    for name in names:
        base = f"sys/class/devfreq/{name}"
        if ctx.exists(base):
            return {"devfreq": name, "cur_freq_hz": ctx.read_int(f"{base}/cur_freq"),
                    "max_freq_hz": ctx.read_int(f"{base}/max_freq")}
    return {}


def _nodes(ctx: ProbeContext, driver: str | None, exact: list[str]) -> dict:
    from accelgui.probes import inventory

    required, any_of = inventory.driver_nodes(driver)
    if exact:
        any_of = [p for p in exact if not p.startswith("dev/dri/card")]
    if not required and not any_of:
        return {"expected": [], "found": [], "ok": None, "access": None, "group": None}
    out = inventory.evaluate_nodes(ctx, list(required), list(any_of))
    out["exact"] = bool(exact)
    return out


def _rockchip(ctx, compat, table, platform, devfreq) -> dict | None:
    soc = next((c for c in compat if c in table), None)
    npus = sorted({n for n in platform + devfreq if re.match(_NPU_NODE, n)})
    if soc is None and not (npus and any(c.startswith("rockchip,") for c in compat)):
        return None
    facts = table.get(soc or "", {})
    driver = _driver(ctx, npus)
    details = {"soc": (soc or "").split(",", 1)[-1] or None, "cores": len(npus) if len(npus) > 1
               else facts.get("cores"), "tops_int8_spec": facts.get("tops_int8")}
    details.update(_devfreq(ctx, npus))
    name = facts.get("name") or "NPU"
    return {"kind": "npu", "vendor": "rockchip", "name": f"Rockchip {name}",
            "address": npus[0] if npus else None, "driver": driver, "family": "rockchip-npu",
            "platform_nodes": npus, "nodes": _nodes(ctx, driver, _child_nodes(ctx, npus)),
            "details": {k: v for k, v in details.items() if v is not None}}


def _tegra(ctx, compat, table, platform, devfreq, model) -> dict | None:
    soc = next((c for c in compat if c in table), None)
    if soc is None:
        return None
    facts = table[soc]
    gpus = sorted({n for n in platform + devfreq if re.match(_TEGRA_GPU_NODE, n)},
                  key=lambda n: (n.startswith("gpu."), n))
    driver = _driver(ctx, gpus)
    details = {"soc": soc.split(",", 1)[1], "board": model, "generation": facts.get("generation"),
               "memory_shared": True}
    if facts.get("compute_capability"):
        details["compute_capability_str"] = facts["compute_capability"]
        details["compute_capability"] = float(facts["compute_capability"])
        details["compute_capability_source"] = "table"
    meminfo = ctx.read_text("proc/meminfo") or ""
    m = re.search(r"^MemTotal:\s+(\d+)\s+kB", meminfo, re.M)
    if m:
        details["memory_bytes"] = int(m.group(1)) * 1024
        details["memory_source"] = "system memory (shared with the CPU)"
    dla = [n for n in platform if re.match(_DLA_NODE, n)]
    if dla:
        details["dla_cores"] = len(dla)
    details.update(_devfreq(ctx, gpus))
    exact = _child_nodes(ctx, gpus)
    return {"kind": "gpu", "vendor": "nvidia", "name": f"NVIDIA {facts['name']}",
            "address": gpus[0] if gpus else None, "driver": driver, "family": "jetson-gpu",
            "platform_nodes": gpus, "nodes": _nodes(ctx, driver, exact),
            "details": {k: v for k, v in details.items() if v is not None}}


def _qualcomm_dsp(ctx, compat) -> dict | None:
    if not any(c.startswith("qcom,") for c in compat):
        return None
    nodes = ctx.glob("dev/fastrpc-cdsp*")
    procs = [n for n in ctx.listdir("sys/class/remoteproc")
             if "cdsp" in (ctx.read_line(f"sys/class/remoteproc/{n}/name") or "")]
    if not nodes and not procs:
        return None
    return {"kind": "dsp", "vendor": "qualcomm", "name": "Qualcomm Hexagon DSP (CDSP)",
            "address": procs[0] if procs else "cdsp", "driver": "fastrpc" if nodes else None,
            "family": "qualcomm-dsp", "platform_nodes": procs,
            "nodes": {"expected": ["/dev/fastrpc-cdsp"], "found": ["/" + n for n in nodes],
                      "ok": True if nodes else None, "access": None, "group": None},
            "details": {}}


def _dt_gpu_index() -> dict[str, tuple[str, dict]]:
    """{device-tree compatible: (family id, spec row)} over the GPU families that claim SoCs."""
    from accelgui.probes import families

    out: dict[str, tuple[str, dict]] = {}
    for fid, entry in families.load_families().items():
        if entry.get("kind") != "gpu" or not (entry.get("claims") or {}).get("soc"):
            continue
        for row in (entry.get("specs") or {}).get("devices") or ():
            for cid in row.get("ids") or ():
                if "," in cid and ":" not in cid:
                    out.setdefault(cid.lower(), (fid, row))
    return out


def _memory(ctx: ProbeContext) -> dict:
    meminfo = ctx.read_text("proc/meminfo") or ""
    m = re.search(r"^MemTotal:\s+(\d+)\s+kB", meminfo, re.M)
    if not m:
        return {}
    return {"memory_bytes": int(m.group(1)) * 1024,
            "memory_source": "system memory (shared with the CPU)"}


def _dt_gpus(ctx: ProbeContext, compat: list[str], platform: list[str], taken: set) -> list[dict]:
    """GPUs of the SoC named by their device-tree node's compatible (Apple's AGX under Asahi
    Linux), one device per platform device: the parents of DRM render nodes, and platform
    devices whose own compatible a GPU family names (so a GPU with no driver bound, hence no
    render node, is still found)."""
    from accelgui.probes import families
    from accelgui.probes.pci import child_nodes

    index = _dt_gpu_index()
    if not index:
        return []
    cands: dict[str, tuple[str, str | None]] = {}       # platform device -> (its folder, node)
    for name in sorted(ctx.listdir("sys/class/drm")):
        if not name.startswith("renderD"):
            continue
        real = ctx.realpath(f"sys/class/drm/{name}/device")
        parent = os.path.basename(real) if real and real != "." else None
        if parent and parent not in taken and parent not in cands and \
                not re.match(r"^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$", parent):
            cands[parent] = (real, name)
    for name in platform:
        if name in taken or name in cands:
            continue
        base = next((f"{b}/{name}" for b in _BASES[:3] if ctx.exists(f"{b}/{name}/of_node")), None)
        if base:
            cands[name] = (base, None)
    out: list[dict] = []
    for parent, (base, render) in cands.items():
        own = [c.lower() for c in _strings(ctx, f"{base}/of_node/compatible")]
        hit = next((index[c] for c in own if c in index), None)
        driver = _driver(ctx, [parent]) or ctx.readlink(f"{base}/driver")
        if hit is None and render:      # a generic node compatible: the machine's SoC names it
            for c in compat:
                cand = index.get(c.lower())
                if cand and driver and driver in ((families.family(cand[0]) or {}).get("drivers") or {}):
                    hit = cand
                    break
        if hit is None:
            continue
        fid, row = hit
        entry = families.family(fid) or {}
        soc_ids = [i for i in row.get("ids") or () if i in (entry.get("claims") or {}).get("soc", ())]
        details = {"soc": soc_ids[0].split(",", 1)[1] if soc_ids else None,
                   "compatible": own or None, "generation": row.get("generation"),
                   "memory_shared": True}
        details.update(_memory(ctx))
        exact = _child_nodes(ctx, [parent]) or child_nodes(ctx, base)
        out.append({"kind": "gpu", "vendor": entry.get("vendor"), "name": row.get("name"),
                    "address": parent, "driver": driver, "family": fid,
                    "platform_nodes": [parent], "nodes": _nodes(ctx, driver, exact),
                    "details": {k: v for k, v in details.items() if v is not None}})
    return out


def probe(ctx: ProbeContext) -> dict:
    from accelgui.probes import ids

    compat = _strings(ctx, "proc/device-tree/compatible",
                      "sys/firmware/devicetree/base/compatible")
    model = (_strings(ctx, "proc/device-tree/model", "sys/firmware/devicetree/base/model")
             or [None])[0]
    if not compat:
        return {"_status": "absent", "_reason": "no device tree (not an Arm/RISC-V board)",
                "soc_devices": []}
    tables = ids.curated()
    platform = _platform_names(ctx)
    devfreq = ctx.listdir("sys/class/devfreq")
    found = []
    for dev in (_rockchip(ctx, compat, tables.get("rockchip_npu", {}), platform, devfreq),
                _tegra(ctx, compat, tables.get("nvidia_tegra", {}), platform, devfreq, model),
                _qualcomm_dsp(ctx, compat)):
        if dev:
            found.append(dev)
    taken = {n for d in found for n in [d.get("address"), *(d.get("platform_nodes") or ())] if n}
    found.extend(_dt_gpus(ctx, compat, platform, taken))
    return {"soc": {"compatible": compat, "model": model}, "soc_devices": found}
