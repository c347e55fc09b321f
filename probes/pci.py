"""PCI functions that may be accelerators, read from ``sys/bus/pci/devices``.

On a running system each entry is a symlink into ``sys/devices/pci0000:00/...``; a recorded
tree may hold plain directories instead. Both read the same through the context. Every
function costs three small reads (vendor, device, class); only the candidates the
classifier keeps are read further (link speed, NUMA node, driver, device nodes).
"""

from __future__ import annotations

import os
import re

from accelgui.probes import families
from accelgui.probes.context import ProbeContext

PCI_ADDRESS = re.compile(r"^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_GTS = r"(?<![0-9.])([0-9.]++)\s*+GT/s"    # linear: one try per run of digits
_GEN_BY_GTS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6, 128.0: 7}

_HEX = re.compile(r"^[0-9a-f]{1,8}$")


def _classes() -> dict[str, tuple[str, ...]]:
    """Class folders a driver creates under the PCI device, and where udev puts their nodes
    (first the usual place, then the alternatives), from the device-family data: "accel" is
    the kernel's compute-accelerator class (/dev/accel/accelN), but Google's TPU driver on
    v2-v4 TPU VMs registers a class of the same name whose nodes are /dev/accelN."""
    return families.sysfs_classes()


def node_path(ctx: ProbeContext, cls: str, name: str) -> str:
    """The device file (relative to the root) of class device ``name``: the first of the
    class's usual places that exists, else the usual one."""
    templates = _classes().get(cls) or ("dev/{}",)
    name = name.replace("!", "/")
    paths = [t.format(name) for t in templates]
    if len(paths) > 1:
        for rel in paths:
            if ctx.exists(rel):
                return rel
    return paths[0]


def valid_hex(text: str | None, width: int) -> str | None:
    """``text`` as ``width`` lower-case hex digits ("0x10DE" -> "10de"), or None when it is
    not a hex number of at most that many digits (garbage, control characters, a fuzzed
    file): an id that is not one never enters the report."""
    if not text:
        return None
    text = text.strip().lower()
    text = text[2:] if text.startswith("0x") else text
    if not _HEX.match(text) or len(text) > width:
        return None
    return text.zfill(width)


def _hex(ctx: ProbeContext, rel: str, width: int = 4, bad: list | None = None) -> str | None:
    line = ctx.read_line(rel)
    value = valid_hex(line, width)
    if line and value is None and bad is not None:
        bad.append({"path": rel, "why": "not a hexadecimal id"})
    return value


def _link(ctx: ProbeContext, base: str, which: str) -> tuple[float | None, int | None]:
    speed = ctx.read_line(f"{base}/{which}_link_speed")
    width = ctx.read_int(f"{base}/{which}_link_width")
    gts = None
    if speed:
        m = re.search(_GTS, speed)
        if m:
            try:
                gts = float(m.group(1))
            except ValueError:
                gts = None
    if width is not None and width <= 0:
        width = None
    return gts, width


def child_nodes(ctx: ProbeContext, base: str) -> list[str]:
    """Device nodes (relative paths under the root) the drivers created for this function."""
    nodes = []
    for cls in _classes():
        for name in ctx.listdir(f"{base}/{cls}"):
            if cls == "drm" and not name.startswith("renderD"):
                continue
            nodes.append(node_path(ctx, cls, name))
    return nodes


def uevent(ctx: ProbeContext, base: str) -> dict[str, str]:
    fields = {}
    for line in (ctx.read_text(f"{base}/uevent") or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


def driver_of(ctx: ProbeContext, base: str, cheap: bool = False) -> str | None:
    """The bound driver: the ``driver`` link, else ``DRIVER=`` in ``uevent`` (a tree copied
    with links dereferenced has a plain ``driver`` folder). ``cheap``: read uevent only when
    a ``driver`` entry exists (for the many functions that are not accelerators)."""
    link = ctx.readlink(f"{base}/driver")
    if link:
        return link
    if cheap and not ctx.exists(f"{base}/driver"):
        return None
    return uevent(ctx, base).get("DRIVER") or None


def _base(ctx: ProbeContext, root: str, addr: str) -> str:
    """Folder of a function; an absolute link in a recorded tree is re-rooted into the tree."""
    try:
        target = os.readlink(ctx.p(f"{root}/{addr}"))
    except (OSError, ValueError):
        return f"{root}/{addr}"
    return target.lstrip("/") if target.startswith("/") else f"{root}/{addr}"


def _driver_from_procfs(ctx: ProbeContext, addr: str, vendor: str) -> str | None:
    """A tree without the ``driver`` link: the nvidia module lists each GPU it drives in
    proc/driver/nvidia/gpus/<address>."""
    if vendor == "10de" and ctx.exists(f"proc/driver/nvidia/gpus/{addr.lower()}"):
        return "nvidia"
    return None


def read_function(ctx: ProbeContext, addr: str, vendor: str, device: str, cls: str,
                  base: str | None = None, driver: str | None = None) -> dict:
    from accelgui.probes import ids

    base = base or f"sys/bus/pci/devices/{addr}"
    cur_gts, cur_width = _link(ctx, base, "current")
    max_gts, max_width = _link(ctx, base, "max")
    numa = ctx.read_int(f"{base}/numa_node")
    rec = {
        "address": addr.lower(),
        "vendor_id": vendor,
        "device_id": device,
        "class": cls,
        "subsystem_vendor_id": _hex(ctx, f"{base}/subsystem_vendor"),
        "subsystem_device_id": _hex(ctx, f"{base}/subsystem_device"),
        "revision": _hex(ctx, f"{base}/revision", 2),
        "driver": driver or driver_of(ctx, base) or _driver_from_procfs(ctx, addr, vendor),
        "numa_node": numa if numa is not None and numa >= 0 else None,
        "pcie": {
            "current_gts": cur_gts, "current_gen": _GEN_BY_GTS.get(cur_gts) if cur_gts else None,
            "current_width": cur_width,
            "max_gts": max_gts, "max_gen": _GEN_BY_GTS.get(max_gts) if max_gts else None,
            "max_width": max_width,
        },
        "is_vf": ctx.exists(f"{base}/physfn"),
        "sriov_numvfs": ctx.read_int(f"{base}/sriov_numvfs"),
        "iommu_group": ctx.readlink(f"{base}/iommu_group"),
        "boot_vga": ctx.read_int(f"{base}/boot_vga"),
        "sysfs_nodes": child_nodes(ctx, base),
        "drm_card": next((n for n in ctx.listdir(f"{base}/drm") if n.startswith("card")
                          and "-" not in n), None),
    }
    if rec["driver"] == "amdgpu":
        rec["vram_total_bytes"] = ctx.read_int(f"{base}/mem_info_vram_total")
        rec["gtt_total_bytes"] = ctx.read_int(f"{base}/mem_info_gtt_total")     # system RAM it may map
        rec["product_name"] = ids.clean_name(ctx.read_line(f"{base}/product_name"))
    if rec["driver"] == "nvidia":
        info = ctx.read_text(f"proc/driver/nvidia/gpus/{addr}/information") or ""
        m = re.search(r"^Device Minor:\s*(\d+)", info, re.M)
        rec["nvidia_minor"] = int(m.group(1)) if m else None
    return rec


def probe(ctx: ProbeContext) -> dict:
    from accelgui.probes import families, ids, inventory

    for what, reason in families.problems():    # a site's family file that was left out
        ctx.fault(what, reason)
    root = "sys/bus/pci/devices"
    addrs = [a for a in ctx.listdir(root) if PCI_ADDRESS.match(a)]
    if not addrs:
        return {"_status": "absent", "_reason": "no PCI bus in sysfs (sys/bus/pci/devices)",
                "pci_functions": [], "pci_meta": _meta(ctx, 0)}
    # Whatever has a compute-accelerator node is an accelerator, known id or not.
    accel_parents = set()
    for name in ctx.listdir("sys/class/accel"):
        real = ctx.realpath(f"sys/class/accel/{name}/device")
        if real:
            accel_parents.add(os.path.basename(real).lower())
    found, bad = [], []
    for addr in addrs:
        base = _base(ctx, root, addr)
        vendor = _hex(ctx, f"{base}/vendor", 4, bad)
        device = _hex(ctx, f"{base}/device", 4, bad)
        cls = _hex(ctx, f"{base}/class", 6, bad)
        if not vendor or not device or cls is None:
            ev = uevent(ctx, base)          # a tree that recorded only uevent
            pci_id = ev.get("PCI_ID", "").split(":")
            if len(pci_id) == 2:
                vendor = vendor or valid_hex(pci_id[0], 4)
                device = device or valid_hex(pci_id[1], 4)
            cls = cls if cls is not None else valid_hex(ev.get("PCI_CLASS"), 6)
        if not vendor or not device:
            if ctx.exists(f"{base}/vendor") or ctx.exists(f"{base}/uevent"):
                bad.append({"path": base, "why": "no valid vendor and device id"})
            continue
        verdict = inventory.classify_pci(vendor, device, cls or "")
        driver = None
        if verdict is None and inventory.can_compute(cls):
            # An id no table knows yet, bound to an accelerator driver, is still one; but a
            # driver is evidence only for a class that can compute (not an NVSwitch bridge).
            driver = driver_of(ctx, base, cheap=True)
            verdict = inventory.classify_by_driver(vendor, device, driver)
        if verdict is None and addr.lower() in accel_parents and \
                not (cls or "").startswith(inventory.NEVER_COMPUTE):
            kind = inventory.accelerator_kind(vendor)
            verdict = {"kind": kind, "vendor": (ids.vendor_info(vendor) or {}).get("id"),
                       "family": inventory._family(kind, vendor, device), "curated": None}
        if verdict is None:
            continue
        rec = read_function(ctx, addr, vendor, device, cls or "", base=base, driver=driver)
        if verdict.get("family") == "generic" and inventory.can_compute(cls):
            verdict = inventory.refine_by_driver(verdict, rec.get("driver"))
        rec.update(verdict)
        rec["pci_ids_vendor"], rec["pci_ids_device"] = ids.pci_names(ctx, vendor, device)
        inventory.check_nodes(ctx, rec)
        found.append(rec)
    _wsl_host_gpu(ctx, found)
    meta = _meta(ctx, len(addrs))
    if bad:
        meta["invalid_inputs"] = bad[:50]       # dropped, never passed on
    return {"pci_functions": found, "pci_meta": meta}


def _wsl_host_gpu(ctx: ProbeContext, found: list[dict]) -> None:
    """WSL2 shows each host GPU as a Microsoft 1414:008e function (dxgkrnl), which says
    nothing of the GPU behind it. When there is one, and the host's NVIDIA driver has put
    libcuda/libnvidia-ml in usr/lib/wsl/lib, it is that NVIDIA GPU."""
    wsl = [r for r in found if r.get("family") == "wsl-gpu"]
    if len(wsl) != 1:
        return
    libs = ctx.listdir("usr/lib/wsl/lib")
    if any(n.startswith(("libcuda.so", "libnvidia-ml.so")) for n in libs):
        wsl[0].update(vendor="nvidia", family="nvidia-wsl",
                      display_name="NVIDIA GPU (WSL2 GPU paravirtualization)")


def _meta(ctx: ProbeContext, count: int) -> dict:
    return {"functions_scanned": count, "live": ctx.live, "dev_recorded": ctx.is_dir("dev"),
            "root": os.path.abspath(ctx.root)}
