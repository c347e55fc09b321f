"""USB accelerators (Coral USB Accelerator, Intel Neural Compute Stick) from sysfs.

``sys/bus/usb/devices`` holds one entry per device, named by its port path ("1-1.2"), plus
root hubs ("usb1") and interfaces ("1-1.2:1.0"), which are skipped. A Coral USB
Accelerator enumerates as 1a6e:089a until libedgetpu loads its firmware, then
re-enumerates as 18d1:9302; the Neural Compute Stick 2 likewise moves from 03e7:2485 to
03e7:f63b once booted.
"""

from __future__ import annotations

import re

from accelgui.probes.context import ProbeContext
from accelgui.probes.pci import valid_hex

_PORT = r"^\d+-\d+(\.\d+)*$"


def probe(ctx: ProbeContext) -> dict:
    from accelgui.probes import ids, inventory

    root = "sys/bus/usb/devices"
    names = [n for n in ctx.listdir(root) if re.match(_PORT, n)]
    if not ctx.is_dir(root):
        return {"_status": "absent", "_reason": "no USB bus in sysfs", "usb_devices": []}
    known = ids.curated().get("usb_devices", {})
    found = []
    for name in names:
        base = f"{root}/{name}"
        vid = valid_hex(ctx.read_line(f"{base}/idVendor"), 4)
        pid = valid_hex(ctx.read_line(f"{base}/idProduct"), 4)
        entry = known.get(f"{vid}:{pid}") if vid and pid else None
        if entry is None:
            continue
        busnum = ctx.read_int(f"{base}/busnum")
        devnum = ctx.read_int(f"{base}/devnum")
        node = f"dev/bus/usb/{busnum:03d}/{devnum:03d}" if busnum and devnum else None
        found.append({
            "address": name,
            "vendor_id": vid,
            "product_id": pid,
            "manufacturer": ids.clean_name(ctx.read_line(f"{base}/manufacturer")),
            "product": ids.clean_name(ctx.read_line(f"{base}/product")),
            "serial": ids.clean_name(ctx.read_line(f"{base}/serial")),
            "usb_ids_product": ids.usb_names(ctx, vid, pid)[1],
            "speed_mbps": _num(ctx.read_line(f"{base}/speed")),
            "driver": ctx.readlink(f"{base}/driver"),
            "node": node,
            "node_exists": ctx.exists(node) if node else None,
            "access": inventory.node_access(ctx, node) if node else None,
        })
    return {"usb_devices": found}


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None
