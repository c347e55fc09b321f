"""The accelerator inventory: classification, merging and readiness.

Probes collect raw facts (``pci_functions``, ``usb_devices``, ``accel_nodes``, ``drm_nodes``,
``soc_devices``, ``nvml``, ``kfd``, ``software``); :func:`finalize` turns them into the
report's ``devices`` list:

1. classify PCI functions by class code, vendor and device id (:func:`classify_pci`): a
   display controller is a GPU unless it is a BMC or virtual display; class 0x12 is a
   processing accelerator; 0x0b40 co-processors and 0x1180 signal processors only when the
   vendor and id say so (AMD XDNA NPU yes, Intel QuickAssist or thermal controller no);
   cloud vendors' NICs and NVMe are never accelerators;
2. fold what belongs to one card into one device: the functions of a multi-function card
   (Xilinx mgmt + user), SR-IOV virtual functions next to their physical function, DRM and
   accel nodes, NVML and KFD details (matched by PCI address);
3. walk the readiness ladder for each device: present -> driver bound -> device node ->
   accessible to this user (live only) -> runtime installed -> ready, naming the first
   missing step and its fix. The device node is the one the compute runtime opens
   (/dev/nvidiaN, not nvidia-drm's render node; /dev/kfd as well as the render node for
   amdgpu). Inside a container a missing node means the device was not passed in
   ("no-access", with the container's fix), not that the host lacks a driver.
"""

from __future__ import annotations

import json
import os
import re

from accelgui import l10n
from accelgui.probes import families

PCI_ADDRESS = re.compile(r"^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_SLUG = re.compile(r"[^a-z0-9]+")

# ---------------------------------------------------------------------------------------
# Families: the data in probes/data/families/*.json, read through accelgui.probes.families.
# ---------------------------------------------------------------------------------------

# PCI base classes (and sub-classes) whose functions can be compute devices: display,
# processing accelerators, co-processors, signal processing, unclassified. A driver name is
# evidence only for these: an NVSwitch (0x0680 bridge) bound to nvidia is no GPU, nor is any
# bridge, network, storage or serial-bus function whatever drives it.
COMPUTE_CLASSES = ("03", "12", "0b40", "1180", "00", "ff")
# Classes that are never accelerators, whatever node or driver they have.
NEVER_COMPUTE = ("01", "02", "06", "0c")


def can_compute(cls: str | None) -> bool:
    cls = (cls or "").lower()
    return any(cls.startswith(c) for c in COMPUTE_CLASSES)


def _fam(fid: str | None) -> dict:
    return families.family(fid) or {}


# ---------------------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------------------

def _family(kind: str, vendor: str, device: str) -> str:
    """The family claiming this PCI function ("generic" when none does)."""
    return families.family_for(vendor, device, kind) or "generic"


def classify_pci(vendor: str, device: str, cls: str) -> dict | None:
    """Is this PCI function an accelerator? -> {kind, vendor, family, ...} or None.

    ``vendor``/``device`` are 4-digit lower-case hex strings, ``cls`` the 6-digit class.
    """
    from accelgui.probes import ids

    tables = ids.curated()
    vendor, device, cls = vendor.lower(), device.lower(), (cls or "").lower()
    key = f"{vendor}:{device}"
    entry = tables.get("devices", {}).get(key)
    vinfo = ids.vendor_info(vendor) or {}
    base, sub = cls[:2], cls[:4]
    kind = None
    if base == "03":
        no = tables.get("not_compute_display", frozenset())
        if key in no or vendor in no:
            return None
        if vendor in tables.get("gpu_vendors", frozenset()) or sub == "0302" or \
                (entry and entry.get("kind") == "gpu"):
            kind = "gpu"
        else:
            return None     # a display chip of a vendor that makes no compute GPUs (BMC, legacy)
    elif entry is not None:
        kind = entry.get("kind", "accelerator")
    elif vendor in tables.get("fpga_vendors", frozenset()) and \
            sub in ("1200", "1180", "0b40", "0880", "0580", "ff00", "1100"):
        kind = "fpga"
    elif vinfo.get("kind") and base not in NEVER_COMPUTE:
        kind = vinfo["kind"]            # vendors that make nothing but accelerators
    elif base == "12":
        kind = accelerator_kind(vendor)
    elif sub == "0b40":
        # Intel's co-processors are QuickAssist and DLB (crypto, compression, queues);
        # Mellanox's are DPU management functions. Known accelerator ids matched above.
        if vendor in ("8086", "15b3"):
            return None
        kind = vinfo.get("kind") or "accelerator"
    else:
        return None     # 0x1180 signal processing and the rest: only known ids (matched above)
    if vendor in ("1d0f", "1ae0") and entry is None and base != "12":
        return None     # Amazon and Google NICs, NVMe and the like
    family = _family(kind, vendor, device)
    if kind == "accelerator" and entry is None:
        kind = _fam(family).get("kind") or kind      # the family knows what its devices are
    return {"kind": kind, "vendor": vinfo.get("id"), "family": family, "curated": entry}


def accelerator_kind(vendor: str) -> str:
    """What a processing accelerator (class 0x12), or any function with a compute-accelerator
    node, is when its id is in no table: the kind of the families that claim the whole vendor,
    when they agree (AMD's 1002 are Instinct GPUs, Google's 1ae0 TPUs, Huawei's Ascend NPUs),
    else the vendor's kind in the curated table, else "accelerator"."""
    from accelgui.probes import ids

    kind = families.vendor_kind(vendor)
    return kind or (ids.vendor_info(vendor) or {}).get("kind") or "accelerator"


def classify_by_driver(vendor: str, device: str, driver: str | None,
                       cls: str | None = None) -> dict | None:
    """A function no id table knows, bound to a driver that only drives accelerators, and
    of a class that can compute (``cls`` None: the caller checked the class)."""
    hit = families.family_for_driver(driver)
    if hit is None or (cls is not None and not can_compute(cls)):
        return None
    from accelgui.probes import ids

    kind, family = hit
    return {"kind": kind, "vendor": (ids.vendor_info(vendor) or {}).get("id"), "family": family,
            "curated": None}


def refine_by_driver(verdict: dict, driver: str | None) -> dict:
    """A generic class-0x12 device bound to a known accelerator driver gets that family."""
    hit = families.family_for_driver(driver)
    if hit:
        return dict(verdict, kind=hit[0], family=hit[1])
    return verdict


def is_integrated(rec: dict, tables: dict) -> bool:
    if rec.get("integrated") is not None:
        return bool(rec["integrated"])      # the OS said so (macOS "Built-In", Windows)
    entry = rec.get("curated") or {}
    if entry.get("integrated"):
        return True
    if _fam(rec.get("family")).get("form") == "integrated":
        return True     # on-die NPUs: the family says so
    if rec.get("kind") != "gpu":
        return False
    if entry.get("kind") == "gpu":
        return False    # the table marks every iGPU it knows; the rest are discrete cards
    addr = rec.get("address") or ""
    if rec.get("vendor_id") == "8086":
        # Intel's iGPU is always 00:02.0 (a discrete card passed through to a q35 VM can
        # land there too, which is why the table is asked first).
        return bool(re.match(r"^[0-9a-f]{4,}:00:02\.0$", addr))
    if rec.get("vendor_id") == "1002":
        if rec.get("device_id") in tables.get("amd_apu_gpu_ids", frozenset()):
            return True
        name = (rec.get("pci_ids_device") or "").lower()
        return any(code in name for code in tables.get("amd_apu_codenames", ()))
    return False


# ---------------------------------------------------------------------------------------
# Device nodes (called by probes, which hold the context)
# ---------------------------------------------------------------------------------------

def node_access(ctx, rel: str | None):
    """On the live system: can this user open the node read-write? None when not knowable."""
    if not rel or not ctx.live:
        return None
    path = ctx.p(rel)
    if not os.path.exists(path):
        return None
    return os.access(path, os.R_OK | os.W_OK)


def node_group(ctx, rel: str) -> str | None:
    if not ctx.live:
        return None
    try:
        import grp

        return grp.getgrgid(os.stat(ctx.p(rel)).st_gid).gr_name
    except (OSError, KeyError, ImportError):
        return None


def driver_nodes(driver: str | None) -> tuple[list[str], list[str]]:
    """(all of, any of): the device files ``driver`` creates, from the family data."""
    rule = families.driver_rule(driver) or {}
    return list(rule.get("nodes_required") or ()), list(rule.get("nodes") or ())


def _own_compute_node(driver: str | None) -> bool:
    """Drivers whose compute device file is their own, not the DRM render node that a DRM
    helper (nvidia-drm) may create under the same PCI function: CUDA opens /dev/nvidiaN."""
    return bool((families.driver_rule(driver) or {}).get("own_compute_node"))


def check_nodes(ctx, rec: dict) -> None:
    """Fill rec["nodes"]: which device files the bound driver should have made, and whether
    they exist (None when the tree holds no dev/) and, live, are accessible."""
    driver = rec.get("driver")
    exact = list(rec.get("sysfs_nodes") or ())
    required, any_of = driver_nodes(driver)
    if driver == "nvidia" and rec.get("nvidia_minor") is not None:
        any_of = [f"dev/nvidia{rec['nvidia_minor']}"]
    if driver == "vfio-pci" and rec.get("iommu_group"):
        any_of = [f"dev/vfio/{rec['iommu_group']}"]
    if exact and _own_compute_node(driver):
        exact = []
    if exact:
        # The driver's own class devices under the PCI function name its nodes exactly.
        any_of = [p for p in exact if not p.startswith("dev/dri/card")]
    elif driver is None:
        any_of = list(_fam(rec.get("family")).get("nodes_without_driver") or ())
    rec["nodes"] = evaluate_nodes(ctx, list(required), any_of)
    rec["nodes"]["exact"] = bool(exact) or (driver is None and bool(any_of))
    companion = (families.driver_rule(driver) or {}).get("companion")
    if companion and rec["nodes"]["ok"] is not None:
        # /dev/kfd (ROCm) and /dev/nvidiactl (CUDA) serve all GPUs of the driver.
        rec["nodes"]["companion"] = {"/" + companion["node"]: ctx.exists(companion["node"])}


def evaluate_nodes(ctx, required: list[str], any_of: list[str]) -> dict:
    """Check device files: all of ``required`` and at least one of ``any_of`` must exist."""
    out = {"expected": ["/" + p for p in required + any_of], "found": [], "ok": None,
           "access": None, "group": None, "denied": None}
    if not required and not any_of:
        return out
    if not ctx.is_dir("dev"):
        return out      # a recorded tree without dev/: cannot tell
    found_req = [p for p in required if ctx.exists(p)]
    found_any: list[str] = []
    for pattern in any_of:
        hits = ctx.glob(pattern) if any(c in pattern for c in "*?[") else \
            ([pattern] if ctx.exists(pattern) else [])
        found_any.extend(h for h in hits if h not in found_any)
    found = found_req + found_any
    out["found"] = ["/" + f for f in found]
    out["ok"] = len(found_req) == len(required) and (not any_of or bool(found_any))
    if out["ok"] and ctx.live:
        checks = {f: node_access(ctx, f) for f in found}
        known = [c for c in checks.values() if c is not None]
        out["access"] = all(known) if known else None
        denied = [f for f, c in checks.items() if c is False]
        if denied:
            out["group"] = node_group(ctx, denied[0])
            out["denied"] = "/" + denied[0]
    return out


# ---------------------------------------------------------------------------------------
# finalize
# ---------------------------------------------------------------------------------------

def _vendor_slug(name: str | None) -> str | None:
    """"Advanced Micro Devices, Inc. [AMD/ATI]" -> "amd"; "Groq" -> "groq"."""
    if not name:
        return None
    m = re.search(r"\[([^\]/]+)", name)
    word = _SLUG.sub(" ", (m.group(1) if m else name).lower()).split()
    return word[0] if word else None


def _cc_float(text) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _pci_device(rec: dict, tables: dict) -> dict:
    from accelgui.probes import ids
    from accelgui.probes.ids import pretty_name

    vid, did = rec["vendor_id"], rec["device_id"]
    vinfo = ids.vendor_info(vid) or {}
    entry = rec.get("curated") or {}
    vendor = rec.get("vendor") or vinfo.get("id") or _vendor_slug(rec.get("pci_ids_vendor")) \
        or f"pci-{vid}"
    display = vinfo.get("name") or (rec.get("pci_ids_vendor") or "").split(" ")[0] or None
    source = rec.get("name_from") or rec
    name = rec.get("display_name") or pretty_name(display, source.get("pci_ids_device"))
    if not name and (source.get("curated") or {}).get("name"):
        name = pretty_name(display, source["curated"]["name"])
    unnamed = not name
    if unnamed:
        name = f"{display or 'PCI'} device {vid}:{did}"
    details = {
        "pci_class": f"0x{rec.get('class') or ''}",
        "subsystem_id": (f"{rec['subsystem_vendor_id']}:{rec['subsystem_device_id']}"
                         if rec.get("subsystem_vendor_id") and rec.get("subsystem_device_id")
                         else None),
        "revision": rec.get("revision"),
        "numa_node": rec.get("numa_node"),
        "pcie": rec.get("pcie"),
        "family": rec.get("family"),
    }
    if rec.get("is_vf"):
        details["virtual_function"] = True
    if rec.get("external"):
        details["external"] = True          # an eGPU (Thunderbolt), as the OS reports it
    for key in ("generation", "gfx_target"):
        if entry.get(key):
            details[key] = entry[key]
    if entry.get("compute_capability"):
        details["compute_capability_str"] = entry["compute_capability"]
        details["compute_capability"] = _cc_float(entry["compute_capability"])
        details["compute_capability_source"] = "table"
    if rec.get("vram_total_bytes"):
        details["memory_bytes"] = rec["vram_total_bytes"]
        details["memory_source"] = "amdgpu"
    elif rec.get("memory_bytes") and is_integrated(rec, tables):
        # an integrated GPU's dedicated figure on macOS/Windows is the carve-out the firmware
        # or driver reserves (Windows' "dedicated video memory"); the GPU computes in the
        # machine's memory, shared with the CPU, which is what its memory is taken to be
        details["dedicated_memory_bytes"] = rec["memory_bytes"]
        details["dedicated_memory_source"] = rec.get("memory_source") or "os"
        details["memory_shared"] = True
    elif rec.get("memory_bytes"):           # the OS's own figure (macOS, Windows backends)
        details["memory_bytes"] = rec["memory_bytes"]
        details["memory_source"] = rec.get("memory_source") or "os"
    elif entry.get("memory_bytes"):
        details["memory_bytes"] = entry["memory_bytes"]
        details["memory_source"] = "table"
    if rec.get("gtt_total_bytes"):
        details["gtt_total_bytes"] = rec["gtt_total_bytes"]
    if rec.get("product_name"):
        details["product_name"] = rec["product_name"]
    if rec.get("pci_ids_device"):
        details["pci_ids_name"] = rec["pci_ids_device"]
    nodes = rec.get("nodes") or {}
    drm = [n for n in rec.get("sysfs_nodes") or () if n.startswith("dev/dri/")]
    if drm:
        details["render_node"] = "/" + drm[0]
    acc = [n for n in rec.get("sysfs_nodes") or () if n.startswith("dev/accel")]
    if acc:
        details["accel_node"] = "/" + acc[0]
    if rec.get("drm_card"):
        details["drm_card"] = rec["drm_card"]
    for key, value in (rec.get("details") or {}).items():    # what a macOS/Windows backend knows
        if value is not None and details.get(key) is None:
            details[key] = value
    return {
        "kind": rec["kind"], "vendor": vendor, "name": name, "bus": "pci",
        "address": rec["address"], "pci_id": f"{vid}:{did}", "usb_id": None,
        "driver": rec.get("driver"), "integrated": is_integrated(rec, tables),
        "readiness": "unknown", "readiness_reason": None, "fix": None,
        "details": details,
        "_family": rec.get("family") or "generic", "_nodes": nodes,
        "_drivers": [rec.get("driver")], "_unnamed": unnamed, "_display": display,
        "_driver_inferred": rec.get("driver_evidence"), "_driver_state": rec.get("driver_state"),
    }


def _slot(addr: str) -> str:
    return addr.rsplit(".", 1)[0]


def _fold_functions(funcs: list[dict], tables: dict) -> list[tuple[dict, list[dict]]]:
    """One entry per physical card: drop virtual functions whose physical function is here,
    and merge the functions of one multi-function card (same slot, same vendor)."""
    vf_ids = tables.get("vf_ids", frozenset())

    def is_vf(f):
        return bool(f.get("is_vf")) or f"{f['vendor_id']}:{f['device_id']}" in vf_ids

    pf_kinds = {(f["vendor_id"], f.get("family")) for f in funcs if not is_vf(f)}
    vf_count: dict[tuple, int] = {}
    keep = []
    for f in funcs:
        kind = (f["vendor_id"], f.get("family"))
        if is_vf(f) and kind in pf_kinds:
            vf_count[kind] = vf_count.get(kind, 0) + 1
            continue
        keep.append(f)
    groups: dict[tuple, list[dict]] = {}
    for f in keep:
        groups.setdefault((_slot(f["address"]), f["vendor_id"], f.get("family")), []).append(f)
    out = []
    for (_s, vendor, family), members in groups.items():
        members.sort(key=lambda r: r["address"])
        primary = dict(members[0])
        if len(members) > 1:
            # The user-facing function names the card (Xilinx user PF over management PF).
            user = next((m for m in members if (m.get("curated") or {}).get("role") == "user"),
                        None)
            if user is not None:
                primary["name_from"] = user
            primary["functions"] = [{"address": m["address"],
                                     "pci_id": f"{m['vendor_id']}:{m['device_id']}",
                                     "driver": m.get("driver")} for m in members]
        count = vf_count.pop((vendor, family), 0)
        if count:
            primary["virtual_functions"] = count
        out.append((primary, members))
    return out


def _merge_nodes(a: dict, b: dict) -> dict:
    """Combine the node checks of two functions of one card: ok if either is ok."""
    if not a:
        return b or {}
    if not b:
        return a
    out = dict(a)
    out["expected"] = list(dict.fromkeys((a.get("expected") or []) + (b.get("expected") or [])))
    out["found"] = list(dict.fromkeys((a.get("found") or []) + (b.get("found") or [])))
    oks = [x.get("ok") for x in (a, b) if x.get("ok") is not None]
    out["ok"] = any(oks) if oks else None
    acc = [x.get("access") for x in (a, b) if x.get("access") is not None]
    out["access"] = all(acc) if acc else None
    out["group"] = a.get("group") or b.get("group")
    out["exact"] = bool(a.get("exact") or b.get("exact"))
    out["companion"] = {**(a.get("companion") or {}), **(b.get("companion") or {})}
    out["denied"] = a.get("denied") or b.get("denied")
    return out


def _attach_class_nodes(dev: dict, class_nodes: list[dict], addresses: set[str]) -> None:
    nodes = dev.get("_nodes") or {}
    mine = [n for n in class_nodes if n.get("parent") in addresses]
    if not mine:
        return
    for n in mine:
        name = n["name"]
        if name.startswith("card"):
            dev["details"].setdefault("drm_card", name)
        elif name.startswith("renderD"):
            dev["details"].setdefault("render_node", "/" + n["node"])
        elif name.startswith("accel"):
            dev["details"].setdefault("accel_node", "/" + n["node"])
    own = _own_compute_node(dev.get("driver"))
    usable = [n for n in mine if not n["name"].startswith("card")
              and not (own and n["name"].startswith("renderD"))]
    existing = [n for n in usable if n.get("node_exists")]
    if existing:
        found = list(dict.fromkeys((nodes.get("found") or []) + ["/" + n["node"] for n in existing]))
        nodes = dict(nodes, found=found)
        nodes["ok"] = True
        denied = [n for n in existing if n.get("access") is False]
        if denied and nodes.get("access") is not False:
            nodes["access"] = False
            nodes["denied"] = "/" + denied[0]["node"]
        elif nodes.get("access") is None:
            acc = [n.get("access") for n in existing if n.get("access") is not None]
            nodes["access"] = all(acc) if acc else None
    dev["_nodes"] = nodes


def _pci_pair(text) -> str | None:
    """"10de:2330" as the report spells it, or None when ``text`` is not two hex ids."""
    from accelgui.probes.pci import valid_hex

    vendor, _, device = str(text or "").partition(":")
    vendor, device = valid_hex(vendor, 4), valid_hex(device, 4)
    return f"{vendor}:{device}" if vendor and device else None


def _merge_nvml(devices: list[dict], nvml: dict) -> None:
    from accelgui.probes import ids

    by_addr = {d["address"]: d for d in devices if d["bus"] == "pci"}
    # Under WSL2, NVML reports the host's PCI addresses; the guest sees one dxgkrnl function
    # per host GPU at an address of its own. Unmatched NVML GPUs fill those, in order.
    wsl = [d for d in devices if d.get("_family") in ("nvidia-wsl", "wsl-gpu")]
    for gpu in nvml.get("gpus") or ():
        addr = gpu.get("pci_address")
        dev = by_addr.get(addr)
        if dev is None and wsl:
            dev = wsl.pop(0)
            dev.update(vendor="nvidia", _family="nvidia-wsl")
            dev["details"].update(family="nvidia-wsl", host_pci_address=addr)
        if dev is None:
            pci_id = _pci_pair(gpu.get("pci_id"))
            dev = {"kind": "gpu", "vendor": "nvidia", "name": gpu.get("name") or "NVIDIA GPU",
                   "bus": "pci", "address": addr, "pci_id": pci_id, "usb_id": None,
                   "driver": "nvidia", "integrated": False, "readiness": "unknown",
                   "readiness_reason": None, "fix": None, "details": {"family": "nvidia-gpu"},
                   "_family": "nvidia-gpu", "_nodes": {}, "_drivers": ["nvidia"]}
            devices.append(dev)
            if addr:
                by_addr[addr] = dev
        if ids.clean_name(gpu.get("name")):
            dev["name"] = ids.clean_name(gpu["name"])
        details = dev["details"]
        for key, value in gpu.items():
            if key in ("pci_address", "pci_id", "name") or value is None:
                continue
            details[key] = value
        if gpu.get("compute_capability") is not None:
            details["compute_capability_source"] = nvml.get("source") or "nvml"
        if gpu.get("memory_bytes") is not None:
            details["memory_source"] = nvml.get("source") or "nvml"
        if nvml.get("ok") and nvml.get("source") == "nvml":
            dev["_nvml"] = True


def _merge_kfd(devices: list[dict], kfd: list[dict]) -> None:
    by_addr = {d["address"]: d for d in devices if d["bus"] == "pci"}
    grouped: dict[str, list[dict]] = {}
    for node in kfd or ():
        if node.get("pci_address"):
            grouped.setdefault(node["pci_address"], []).append(node)
    for addr, nodes in grouped.items():
        dev = by_addr.get(addr)
        if dev is None:
            continue
        first = nodes[0]
        details = dev["details"]
        for key in ("gfx_target", "gfx_target_version", "simd_count", "array_count",
                    "compute_units", "max_engine_clk_mhz", "wave_front_size", "num_xcc",
                    "local_mem_bytes"):
            if first.get(key) is not None:
                if key == "compute_units":
                    details[key] = sum(n.get(key) or 0 for n in nodes) or None
                elif key == "simd_count":
                    details[key] = sum(n.get(key) or 0 for n in nodes) or None
                else:
                    details[key] = first[key]
        details["kfd_nodes"] = len(nodes)
        if not details.get("memory_bytes") and first.get("local_mem_bytes"):
            details["memory_bytes"] = first["local_mem_bytes"]
            details["memory_source"] = "kfd"


def _runtime_name(toolkit_id: str):
    """A toolkit by its product name: the catalogue's (``app.hw.toolkit.<id>``, a message
    rendered in the reader's language), else the runtime table's, else its id in words."""
    if f"app.hw.toolkit.{toolkit_id}" in l10n.catalogue("en"):
        return l10n.msg(f"app.hw.toolkit.{toolkit_id}")
    from accelgui.probes.software import runtime_name

    return runtime_name(toolkit_id) or toolkit_id.replace("_", " ")


def _runtime(family: str, software: dict, meta: dict, dev: dict) -> tuple[bool | None, dict | None]:
    """(found, evidence message) of the family's runtime; found None when not knowable."""
    spec = _fam(family).get("runtime")
    if not spec:
        return None, None
    toolkits = software.get("toolkits") or {}
    packages = software.get("packages") or {}
    for name in spec.get("toolkits") or ():
        if name in toolkits:
            return True, l10n.msg("devices.ladder.runtime_toolkit", name=_runtime_name(name))
    for name in spec.get("packages") or ():
        if name in packages:
            return True, l10n.msg("devices.ladder.runtime_package", name=name)
    if spec.get("nvml") and dev.get("_nvml"):
        return True, l10n.msg("devices.ladder.runtime_nvml")
    if meta.get("live") or meta.get("libs_recorded"):
        return False, None
    return None, None


LADDER = ("present", "driver", "node", "access", "runtime")
# The old readiness_checks words for each ladder result (kept in details for older readers).
_CHECK_WORDS = {"driver": {True: "ok", False: "missing"}, "node": {True: "ok", False: "missing"},
                "access": {True: "ok", False: "denied"}, "runtime": {False: "missing"}}


def _text_msg(value) -> dict | None:
    """A family's bilingual data text as a message."""
    return l10n.msg("devices.text", text=value) if value else None


class _Ladder:
    """The readiness ladder of one device: each step's result, and the verdict where the
    first step fails (reason and fix as messages, their English text beside them)."""

    def __init__(self, dev: dict):
        self.dev = dev
        self.steps = {s: {"step": s, "ok": None, "detail": None, "detail_msg": None} for s in LADDER}

    def step(self, name: str, ok, detail_msg=None, check: str | None = None) -> None:
        row = self.steps[name]
        row["ok"] = ok
        row["detail_msg"] = detail_msg
        row["detail"] = l10n.render(detail_msg, "en") if detail_msg else None
        key = "device_node" if name == "node" else name
        checks = self.dev["details"]["readiness_checks"]
        if key in checks:
            checks[key] = check or _CHECK_WORDS.get(name, {}).get(ok) or checks.get(key)

    def stop(self, name: str, state: str, reason: dict | None, fix: dict | None,
             check: str | None = None) -> None:
        self.step(name, False, reason, check)
        self.verdict(state, reason, fix)

    def verdict(self, state: str, reason: dict | None, fix: dict | None) -> None:
        dev = self.dev
        dev["readiness"] = state
        dev["readiness_reason_msg"], dev["fix_msg"] = reason, fix
        dev["readiness_reason"] = l10n.render(reason, "en") if reason else None
        dev["fix"] = l10n.render(fix, "en") if fix else None
        dev["ladder"] = [self.steps[s] for s in LADDER]


def _blocked_module(meta: dict, expected) -> dict | None:
    """The out-of-tree (DKMS) module of one of the family's drivers that is on disk but not
    loaded while Secure Boot is on: the kernel refused a module signed by a key it does not
    trust (platform.secure_boot, platform.out_of_tree_modules), or None."""
    if not meta.get("secure_boot") or not expected:
        return None
    names = {str(d).replace("-", "_") for d in expected}
    return next((m for m in meta.get("out_of_tree_modules") or ()
                 if isinstance(m, dict) and str(m.get("name", "")).replace("-", "_") in names), None)


def _assess(dev: dict, software: dict, meta: dict) -> None:
    family = dev.pop("_family", "generic")
    nodes = dev.pop("_nodes", {}) or {}
    drivers = [d for d in dev.pop("_drivers", []) if d]
    dev.pop("_nvml", None)
    inferred = dev.pop("_driver_inferred", None)
    os_state = dev.pop("_driver_state", None)
    spec = _fam(family)
    details = dev["details"]
    details["readiness_checks"] = {"driver": None, "device_node": None, "access": None,
                                   "runtime": None}
    ladder = _Ladder(dev)
    ladder.step("present", True, l10n.msg("devices.ladder.present", bus=dev.get("bus") or "?",
                                          address=dev.get("address") or "?"))

    def fix(step, fallback=None):
        return _text_msg(families.text(family, "fixes", step)) or fallback

    # 1. driver bound (a family with "drivers": null needs none: USB devices, DSPs)
    expected = spec.get("drivers") if spec else {}
    if expected is None and (drivers or not os_state):
        _no_driver_step(ladder, drivers, inferred)
    elif not drivers and os_state:
        if _os_driver_stops(ladder, os_state, fix("driver")):
            return
    elif not drivers and nodes.get("ok") and nodes.get("exact"):
        # No driver link in the tree, but device files only a bound driver creates exist.
        ladder.step("driver", True, l10n.msg("devices.ladder.driver_inferred_nodes"),
                    check="ok (inferred from its device files)")
    elif not drivers and inferred:
        ladder.step("driver", True, inferred, check="ok (inferred from its devfreq entry)"
                    if inferred.get("id") == "devices.ladder.driver_inferred_devfreq"
                    else "ok (the operating system's own driver)")
    elif not drivers:
        blocked = _blocked_module(meta, expected)
        ladder.stop("driver", "driver-missing", l10n.msg("devices.reason.no_driver"),
                    l10n.msg("devices.fix.secure_boot_mok", module=blocked["name"],
                             where=blocked["path"]) if blocked
                    else fix("driver", l10n.msg("devices.fix.driver")))
        return
    else:
        wrong_texts = spec.get("wrong_drivers") or {}
        wrong = [d for d in drivers if d in wrong_texts]
        if wrong and not any(d in expected for d in drivers):
            # with Secure Boot on, a driver installed as DKMS but refused by the kernel leaves
            # the in-kernel one (nouveau) bound: enrolling the key is the fix, not installing
            blocked = _blocked_module(meta, expected)
            ladder.stop("driver", "driver-missing",
                        l10n.msg("devices.reason.wrong_driver", driver=wrong[0],
                                 why=wrong_texts[wrong[0]]),
                        l10n.msg("devices.fix.secure_boot_mok", module=blocked["name"],
                                 where=blocked["path"]) if blocked else fix("driver"),
                        check="wrong")
            return
        ladder.step("driver", True, l10n.msg("devices.ladder.driver_bound", driver=drivers[0]))
    # 2. device node
    container = meta.get("container")
    driver = drivers[0] if drivers else None
    if nodes.get("ok") is False:
        expected_nodes = ", ".join(p.replace("[0-9]*", "N") for p in nodes.get("expected") or ()) \
            or l10n.msg("devices.word.its_node")
        if container:
            _not_passed_in(ladder, family, container, expected_nodes)
            return
        reason = l10n.msg("devices.reason.node_missing", driver=driver, nodes=expected_nodes) \
            if driver else l10n.msg("devices.reason.node_missing_kernel", nodes=expected_nodes)
        ladder.stop("node", "driver-missing", reason, fix("node", l10n.msg("devices.fix.node")))
        return
    if nodes.get("found"):
        details["device_nodes"] = nodes["found"]
    for node, present in (nodes.get("companion") or {}).items():
        if present:
            details["device_nodes"] = [node] + list(details.get("device_nodes") or [])
        else:
            details.setdefault("missing_nodes", []).append(node)
    required = [n for n in details.get("missing_nodes") or () if n in _required_companions()]
    if required:
        if container:
            _not_passed_in(ladder, family, container, required[0])
            return
        reason = l10n.msg("devices.reason.companion_missing", driver=driver, node=required[0]) \
            if driver else l10n.msg("devices.reason.companion_missing_kernel", node=required[0])
        ladder.stop("node", "driver-missing", reason, fix("node", l10n.msg("devices.fix.node")))
        return
    if nodes.get("ok"):
        ladder.step("node", True, l10n.msg("devices.ladder.nodes_found",
                                           nodes=", ".join(details.get("device_nodes") or ())
                                           or l10n.msg("devices.word.its_node")))
    else:
        ladder.step("node", None, check="not checked")
    # 3. access (live only)
    if nodes.get("access") is False:
        group = nodes.get("group") or spec.get("group") or "render"
        node = nodes.get("denied") or l10n.msg("devices.word.its_node")
        ladder.stop("access", "no-access", l10n.msg("devices.reason.no_access", node=node, group=group),
                    l10n.msg("devices.fix.access", group=group))
        return
    if nodes.get("access"):
        ladder.step("access", True, l10n.msg("devices.ladder.access_ok",
                                             nodes=", ".join(nodes.get("found") or ())))
    else:
        ladder.step("access", None, check="not checked")
    # 4. runtime
    ok, evidence = _runtime(family, software, meta, dev)
    runtime = _text_msg(families.text(family, "runtime", "name"))
    if details.get("firmware_loaded") is False and not ok and spec.get("runtime"):
        ladder.stop("runtime", "runtime-missing",
                    l10n.msg("devices.reason.no_firmware",
                             runtime=runtime or l10n.msg("devices.word.the_runtime")),
                    fix("runtime"))
        return
    if ok is False:
        ladder.stop("runtime", "runtime-missing",
                    l10n.msg("devices.reason.no_runtime",
                             runtime=runtime or l10n.msg("devices.word.its_runtime")),
                    fix("runtime", l10n.msg("devices.fix.unknown")))
        return
    ladder.step("runtime", ok, evidence,
                check=l10n.render(evidence) if evidence else "not checked")
    if not spec:
        ladder.verdict("unknown", l10n.msg("devices.reason.unknown"), l10n.msg("devices.fix.unknown"))
        return
    if ladder.steps["driver"]["ok"] is None:        # the OS backend could not tell its driver
        ladder.verdict("unknown", os_state["reason"], os_state.get("fix"))
        return
    ladder.verdict("ready", None, None)


def _no_driver_step(ladder: _Ladder, drivers: list[str], inferred: dict | None) -> None:
    """The driver step of a family that needs no kernel driver: the driver a macOS/Windows
    backend names is bound, or the OS's own driver drives it (the backend's evidence);
    else none is needed."""
    if drivers:
        ladder.step("driver", True, l10n.msg("devices.ladder.driver_bound", driver=drivers[0]), check="ok")
    elif inferred and inferred.get("id") != "devices.ladder.driver_inferred_devfreq":
        ladder.step("driver", True, inferred, check="ok (the operating system's own driver)")
    else:
        ladder.step("driver", True, l10n.msg("devices.ladder.driver_not_needed"), check="not needed")


def _os_driver_stops(ladder: _Ladder, state: dict, family_fix: dict | None) -> bool:
    """The driver step where a macOS/Windows backend said what it knows of a device with no
    driver it could name: ``missing`` stops the ladder (driver-missing, the OS's own fix
    first: a family's is written for Linux); ``unknown`` leaves the step open (the verdict is
    then unknown, never ready)."""
    if state.get("state") == "missing":
        ladder.stop("driver", "driver-missing", state["reason"], state.get("fix") or family_fix)
        return True
    ladder.step("driver", None, state.get("reason"), check="not recorded")
    return False


def _required_companions() -> set[str]:
    """Companions without which the device cannot compute: ROCm and every HSA runtime open
    /dev/kfd, which amdgpu creates at load only when the kernel has HSA support; the data
    marks them ``required`` (/dev/nvidiactl, by contrast, is made on first use)."""
    return {"/" + r["companion"]["node"] for r in families.all_drivers().values()
            if (r.get("companion") or {}).get("required")}


def _not_passed_in(ladder: _Ladder, family: str, container: str, nodes) -> None:
    """Inside a container a missing device file means it was not passed in, not that the
    host lacks a driver: the device is there, this environment cannot reach it."""
    reason = l10n.msg("devices.reason.not_passed_in", container=container, nodes=nodes)
    first = nodes if isinstance(nodes, dict) else nodes.split(",")[0]
    fix = _text_msg(families.text(family, "fixes", "container")) or \
        l10n.msg("devices.fix.container", node=first)
    ladder.stop("node", "no-access", reason, fix, check="missing")
    ladder.dev["details"]["readiness_checks"]["access"] = "not passed into the container"


def _soc_device(rec: dict) -> dict:
    dev = {k: rec.get(k) for k in ("kind", "vendor", "name", "address", "driver")}
    dev.update(bus="platform", pci_id=None, usb_id=None, integrated=True,
               readiness="unknown", readiness_reason=None, fix=None,
               details=dict(rec.get("details") or {}))
    dev["details"]["family"] = rec.get("family")
    dev["_family"] = rec.get("family") or "generic"
    dev["_nodes"] = rec.get("nodes") or {}
    dev["_drivers"] = [rec.get("driver")] if rec.get("driver") else []
    dev["_driver_state"] = rec.get("driver_state")
    if not rec.get("driver") and rec.get("driver_evidence"):
        dev["_driver_inferred"] = rec["driver_evidence"]      # the OS's own driver (macOS)
    elif not rec.get("driver") and dev["details"].get("devfreq"):
        dev["_driver_inferred"] = l10n.msg("devices.ladder.driver_inferred_devfreq")
    return dev


def _usb_device(rec: dict, tables: dict) -> dict:
    key = f"{rec['vendor_id']}:{rec['product_id']}"
    entry = tables.get("usb_devices", {}).get(key) or {}
    vinfo = tables.get("usb_vendors", {}).get(rec["vendor_id"]) or {}
    name = rec.get("usb_ids_product") or entry.get("name")
    family = families.family_for_usb(key) or "generic"
    details = {"family": family, "product": rec.get("product"),
               "manufacturer": rec.get("manufacturer"), "speed_mbps": rec.get("speed_mbps"),
               "firmware_loaded": entry.get("firmware_loaded"), "serial": rec.get("serial")}
    if rec.get("node"):
        details["usb_node"] = "/" + rec["node"]
    nodes = {}
    if rec.get("node"):
        nodes = {"expected": ["/" + rec["node"]],
                 "found": ["/" + rec["node"]] if rec.get("node_exists") else [],
                 "ok": None, "access": rec.get("access"),
                 "group": None, "denied": "/" + rec["node"] if rec.get("access") is False else None}
    return {"kind": entry.get("kind", "accelerator"), "vendor": entry.get("vendor") or vinfo.get("id"),
            "name": f"{vinfo.get('name', '')} {name}".strip() if name else f"USB device {key}",
            "bus": "usb", "address": rec["address"], "pci_id": None, "usb_id": key,
            "driver": rec.get("driver") if rec.get("driver") not in ("usb", None) else None,
            "integrated": False, "readiness": "unknown", "readiness_reason": None, "fix": None,
            "details": details, "_family": family, "_nodes": nodes, "_drivers": []}


def _accel_platform_device(node: dict) -> dict:
    """A compute-accelerator node whose parent is a platform device nothing else found (an
    NPU of an Arm SoC): its driver names the family."""
    driver = node.get("driver")
    family = (families.driver_rule(driver) or {}).get("family") or "generic"
    entry = _fam(family)
    name = (entry.get("name") or {}).get("en") or f"Accelerator {node.get('parent')}"
    nodes = {"expected": ["/" + node["node"]],
             "found": ["/" + node["node"]] if node.get("node_exists") else [],
             "ok": True if node.get("node_exists") else None, "access": node.get("access"),
             "group": None, "denied": "/" + node["node"] if node.get("access") is False else None}
    return {"kind": entry.get("kind") or "npu", "vendor": entry.get("vendor"), "name": name,
            "bus": "platform", "address": node.get("parent"), "pci_id": None, "usb_id": None,
            "driver": driver, "integrated": True, "readiness": "unknown",
            "readiness_reason": None, "fix": None,
            "details": {"family": family, "accel_node": "/" + node["node"]},
            "_family": family, "_nodes": nodes, "_drivers": [driver] if driver else []}


SEGMENTS = ("data-centre", "workstation", "consumer", "embedded")
FORMS = ("discrete", "integrated", "embedded", "virtual")


def _segment_form(dev: dict, entry: dict, spec: dict | None) -> tuple[str | None, str | None]:
    """Market segment and physical form: the device's specification row first, then the
    family's rules on the name (GeForce is consumer, Instinct data-centre...), then the
    family's default; the form from the PCI facts (a virtual function, an iGPU) where the row
    does not say."""
    spec = spec or {}
    details = dev.get("details") or {}
    integrated = bool(dev.get("integrated"))
    segment = spec.get("segment")
    if segment is None:
        name = dev.get("name") or ""
        for rule in entry.get("segment_rules") or ():
            if "integrated" in rule and rule["integrated"] != integrated:
                continue
            if rule.get("name_match") and not re.search(rule["name_match"], name, re.I):
                continue
            segment = rule["segment"]
            break
    if segment is None:
        segment = entry.get("segment")
    form = spec.get("form") or entry.get("form")
    if form is None:
        if details.get("virtual_function"):
            form = "virtual"
        elif integrated:
            form = "integrated"
        elif dev.get("bus") in ("pci", "usb"):
            form = "discrete"
    return segment, form


def _facts(dev: dict, family: str) -> None:
    """Device.family and the dated facts the family data holds for this device: memory size
    and bandwidth (kept when the driver or NVML measured them; an id sold in several sizes is
    budgeted at the smallest, every size listed, until the driver says which), compute
    capability or gfx target, generation, peak FP32, the package a die belongs to, segment and
    form; the row's name where no id database named the device."""
    entry = _fam(family)
    fid = entry.get("id")
    details = dev["details"]
    unnamed = dev.pop("_unnamed", False)
    display = dev.pop("_display", None)
    dev["family"] = fid
    details["family"] = fid
    soc = f"{dev.get('vendor')},{details['soc']}" if details.get("soc") else None
    # the naming table's memory figure gives way to the family's specification row
    table = details.get("memory_source") == "table"
    spec = families.device_spec(fid, pci_id=dev.get("pci_id"), usb_id=dev.get("usb_id"),
                                soc=soc, name=" ".join(filter(None, (dev.get("name"), details.get("board")))),
                                memory_bytes=None if table else details.get("memory_bytes"),
                                subsystem=details.get("subsystem_id"), revision=details.get("revision"))
    if table and spec and spec.get("memory_bytes"):
        details.pop("memory_bytes", None)
        details.pop("memory_source", None)
    if spec and spec.get("memory_bytes") and not details.get("memory_bytes"):
        details["memory_bytes"] = spec["memory_bytes"]
        details["memory_source"] = "specification"
        if spec.get("memory_sizes_bytes"):
            details["memory_sizes_bytes"] = spec["memory_sizes_bytes"]
            details["memory_source"] = "specification (smallest size)"
    if details.get("memory_bandwidth_gbps"):
        details.setdefault("memory_bandwidth_source", "nvml")     # NVML's clock x bus width
    elif spec and spec.get("memory_bandwidth_gbps"):
        details["memory_bandwidth_gbps"] = spec["memory_bandwidth_gbps"]
        details["memory_bandwidth_source"] = "specification"
    elif spec and (low := _bandwidth_lower_bound(spec)):
        details["memory_bandwidth_gbps"] = low
        details["memory_bandwidth_source"] = "specification (lower bound)"
    else:
        details.setdefault("memory_bandwidth_gbps", None)
        details["memory_bandwidth_source"] = None
    details.setdefault("memory_bytes", None)
    if spec:
        _spec_facts(dev, spec, unnamed, display)
    else:
        details["specification"] = None     # looked up: no row knows this device
    details["segment"], details["form"] = _segment_form(dev, entry, spec)


_MEMORY_TYPES: dict | None = None


def _bandwidth_lower_bound(spec: dict) -> float | None:
    """A lower bound of the memory bandwidth of a product whose row gives its bus width and
    memory type but no bandwidth (a laptop part: the maker sets the memory clock): the bus
    at the slowest data rate that memory type ships at (data/memory_types.json), or None."""
    global _MEMORY_TYPES
    bits, kind = spec.get("memory_bus_bits"), str(spec.get("memory_type") or "").strip().upper()
    if not isinstance(bits, int) or bits <= 0 or not kind:
        return None
    if _MEMORY_TYPES is None:
        from accelgui.data import read_bytes

        try:
            _MEMORY_TYPES = json.loads(read_bytes("accelgui.probes", "data/memory_types.json"))["types"]
        except (OSError, ValueError, KeyError):
            _MEMORY_TYPES = {}
    rate = (_MEMORY_TYPES.get(kind) or {}).get("min_gbps_per_pin")
    return round(bits * rate / 8, 1) if isinstance(rate, (int, float)) and rate > 0 else None


def _spec_facts(dev: dict, spec: dict, unnamed: bool, display: str | None) -> None:
    details = dev["details"]
    if spec.get("form") == "integrated" and spec.get("match") == "id":
        dev["integrated"] = True        # the row knows the part: an APU's or SoC's GPU
    for key in ("generation", "gfx_target", "memory_type"):
        if spec.get(key) and not details.get(key):
            details[key] = spec[key]
    if spec.get("compute_capability") and details.get("compute_capability") is None:
        details["compute_capability_str"] = spec["compute_capability"]
        details["compute_capability"] = _cc_float(spec["compute_capability"])
        details["compute_capability_source"] = "specification"
    if spec.get("fp32_gflops") and not details.get("peak_fp32_gflops"):
        details["peak_fp32_gflops"] = spec["fp32_gflops"]
    if spec.get("compute_units") and not details.get("compute_units"):
        details["compute_units"] = spec["compute_units"]
    if spec.get("mobile"):
        details["mobile"] = True
    if spec.get("package"):
        details["package"] = dict(spec["package"])
    details["specification"] = {k: spec.get(k) for k in ("name", "as_of", "source", "review_by",
                                                         "match")}
    if details.get("pci_ids_name") and spec.get("product_known"):
        details["specification"]["name"] = spec["name"]
    if spec.get("tops_int8") and not details.get("tops_int8_spec"):
        details["tops_int8_spec"] = spec["tops_int8"]
    if spec.get("name") and spec.get("match") == "id" and (
            unnamed or spec.get("names_every_product") or spec.get("product_known")):
        from accelgui.probes.ids import pretty_name

        dev["name"] = pretty_name(display, spec["name"])


_BUS_ORDER = {"pci": 0, "platform": 1, "usb": 2}


def build_devices(priv: dict, software: dict) -> list[dict]:
    from accelgui.probes import ids

    tables = ids.curated()
    meta = dict(priv.get("software_meta") or {})
    meta.setdefault("live", bool((priv.get("pci_meta") or {}).get("live")))
    meta.setdefault("container", priv.get("container"))
    devices: list[dict] = []
    class_nodes = list(priv.get("accel_nodes") or ()) + list(priv.get("drm_nodes") or ())
    for primary, members in _fold_functions(list(priv.get("pci_functions") or ()), tables):
        dev = _pci_device(primary, tables)
        nodes = {}
        for m in members:
            nodes = _merge_nodes(nodes, m.get("nodes") or {})
        dev["_nodes"] = nodes
        dev["_drivers"] = [m.get("driver") for m in members]
        if len(members) > 1:
            dev["details"]["functions"] = primary.get("functions")
            dev["details"]["drivers"] = [m.get("driver") for m in members]
        if primary.get("virtual_functions"):
            dev["details"]["virtual_functions"] = primary["virtual_functions"]
        _attach_class_nodes(dev, class_nodes, {m["address"] for m in members})
        devices.append(dev)
    _merge_nvml(devices, priv.get("nvml") or {})
    _merge_kfd(devices, priv.get("kfd") or [])
    seen_platform = set()
    for rec in priv.get("soc_devices") or ():
        dev = _soc_device(rec)
        _attach_class_nodes(dev, class_nodes, set(rec.get("platform_nodes") or ()) | {rec.get("address")})
        devices.append(dev)
        seen_platform.update(rec.get("platform_nodes") or ())
        seen_platform.add(rec.get("address"))
    for node in priv.get("accel_nodes") or ():
        if node.get("parent_bus") == "platform" and node.get("parent") not in seen_platform:
            devices.append(_accel_platform_device(node))
            seen_platform.add(node.get("parent"))
    for rec in priv.get("usb_devices") or ():
        devices.append(_usb_device(rec, tables))
    for dev in devices:
        family = dev.get("_family")
        _assess(dev, software, meta)
        _facts(dev, family)
    devices.sort(key=lambda d: (_BUS_ORDER.get(d["bus"], 9), d.get("address") or ""))
    return devices


def finalize(sections: dict) -> dict:
    priv = sections.pop("_private", None) or {}
    software = sections.setdefault("software", {})
    toolkits = software.setdefault("toolkits", {})
    software.setdefault("packages", {})
    software.setdefault("providers", [])
    nvml = priv.get("nvml") or {}
    for key in ("nvidia_driver", "cuda_driver"):
        if nvml.get(key) and not toolkits.get(key):
            toolkits[key] = nvml[key]
    plat = sections.get("platform") or {}
    soc = priv.get("soc")
    if isinstance(soc, dict) and (soc.get("compatible") or soc.get("model")):
        # the machine booted from a device tree (boards, SoCs, Macs under Asahi): its model
        # and root compatibles, which the edge rule reads
        plat = sections.setdefault("platform", plat)
        plat["device_tree"] = {"model": soc.get("model"),
                               "compatible": [str(c) for c in soc.get("compatible") or ()][:16]}
    priv.setdefault("container", plat.get("container"))
    priv["software_meta"] = dict(priv.get("software_meta") or {},
                                 secure_boot=plat.get("secure_boot"),
                                 out_of_tree_modules=plat.get("out_of_tree_modules") or [])
    ours = build_devices(priv, software)
    theirs = [d for d in sections.get("devices") or ()
              if not any(o["bus"] == d.get("bus") and o["address"] == d.get("address")
                         for o in ours)]
    sections["devices"] = ours + theirs
    return sections
