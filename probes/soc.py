"""On-chip accelerators of Arm boards, found through the device tree and platform devices.

``proc/device-tree/compatible`` (NUL-separated, most specific first) names the board and
the SoC. Which SoCs have which accelerator, and how its platform devices are named, is data
(``data/socs.json``): Rockchip NPUs appear as platform devices ``<address>.npu``
(``fdab0000.npu`` on the RK3588) with a devfreq entry of the same name, bound to the vendor
``RKNPU`` driver or to the mainline ``rocket`` accel driver; NVIDIA Jetson GPUs are platform
devices ``17000000.gpu`` / ``17000000.ga10b`` (Orin), ``17000000.gv11b`` (Xavier),
``57000000.gpu`` (Nano), driven by nvgpu; a Qualcomm Hexagon CDSP is a remote processor with
``/dev/fastrpc-cdsp*`` nodes. This module interprets those entries.

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



def soc_table() -> dict:
    """The SoC accelerator signatures (data/socs.json and the sites', ACCELGUI_DATA_DIRS)."""
    from accelgui.probes import datafiles

    return datafiles.load("socs.json")


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


def _detail(ctx: ProbeContext, item: dict, facts: dict, found: dict) -> dict:
    """The details one ``details`` item of socs.json gives (see its note)."""
    source, key = item.get("from"), item["key"]
    if source == "model":
        return {key: found["model"]}
    if source == "node_count":
        count = len(found["nodes"])
        return {key: count if count > 1 else facts.get(item.get("fact", key))}
    if source == "platform_count":
        count = sum(1 for n in found["platform"] if re.match(item["pattern"], n))
        return {key: count} if count else {}
    if source == "shared_memory":
        return _memory(ctx)
    if source == "compute_capability":
        cc = facts.get("compute_capability")
        return {"compute_capability_str": cc, "compute_capability": float(cc),
                "compute_capability_source": "table"} if cc else {}
    if "value" in item:
        return {key: item["value"]}
    return {key: facts.get(item["fact"])}


def _platform_device(ctx: ProbeContext, spec: dict, found: dict) -> dict | None:
    """The accelerator of a ``platform_devices`` entry, or None when this machine has none."""
    from accelgui.probes import ids

    compat = found["compat"]
    socs = spec.get("socs") or {}
    soc = next((c for c in compat if c in socs), None)
    last = spec.get("sort_last")
    nodes = sorted({n for n in found["platform"] + found["devfreq"] if re.match(spec["node_pattern"], n)},
                   key=lambda n: (bool(last) and n.startswith(last), n))
    prefix = spec.get("vendor_compatible")
    if soc is None and not (prefix and nodes and any(c.startswith(prefix) for c in compat)):
        return None
    facts = socs.get(soc or "", {})
    driver = _driver(ctx, nodes)
    details = {"soc": (soc or "").split(",", 1)[-1] or None}
    for item in spec.get("details") or ():
        details.update(_detail(ctx, item, facts, dict(found, nodes=nodes)))
    details.update(_devfreq(ctx, nodes))
    vendor = spec["vendor"]
    name = " ".join(filter(None, (ids.vendor_name(vendor), facts.get("name") or spec.get("default_name"))))
    return {"kind": spec["kind"], "vendor": vendor, "name": name,
            "address": nodes[0] if nodes else None, "driver": driver, "family": spec["family"],
            "platform_nodes": nodes, "nodes": _nodes(ctx, driver, _child_nodes(ctx, nodes)),
            "details": {k: v for k, v in details.items() if v is not None}}


def _remoteproc_device(ctx: ProbeContext, spec: dict, compat: list[str]) -> dict | None:
    """The DSP of a ``remoteprocs`` entry: its remote processor and device nodes, or None."""
    if not any(c.startswith(spec["vendor_compatible"]) for c in compat):
        return None
    nodes = ctx.glob(spec["nodes"])
    procs = [n for n in ctx.listdir("sys/class/remoteproc")
             if spec["remoteproc_name"] in (ctx.read_line(f"sys/class/remoteproc/{n}/name") or "")]
    if not nodes and not procs:
        return None
    return {"kind": spec["kind"], "vendor": spec["vendor"], "name": spec["name"],
            "address": procs[0] if procs else spec["address"], "driver": spec["driver"] if nodes else None,
            "family": spec["family"], "platform_nodes": procs,
            "nodes": {"expected": list(spec["expected"]), "found": ["/" + n for n in nodes],
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
    from accelgui.probes import datafiles

    datafiles.report_problems(ctx, "socs.json")
    compat = _strings(ctx, "proc/device-tree/compatible",
                      "sys/firmware/devicetree/base/compatible")
    model = (_strings(ctx, "proc/device-tree/model", "sys/firmware/devicetree/base/model")
             or [None])[0]
    if not compat:
        return {"_status": "absent", "_reason": "no device tree (not an Arm/RISC-V board)",
                "soc_devices": []}
    table = soc_table()
    platform = _platform_names(ctx)
    seen = {"compat": compat, "model": model, "platform": platform,
            "devfreq": ctx.listdir("sys/class/devfreq")}
    found = [dev for dev in [_platform_device(ctx, spec, seen) for spec in table.get("platform_devices") or ()]
             + [_remoteproc_device(ctx, spec, compat) for spec in table.get("remoteprocs") or ()] if dev]
    taken = {n for d in found for n in [d.get("address"), *(d.get("platform_nodes") or ())] if n}
    found.extend(_dt_gpus(ctx, compat, platform, taken))
    return {"soc": {"compatible": compat, "model": model}, "soc_devices": found}
