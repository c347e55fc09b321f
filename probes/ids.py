"""Names for PCI and USB ids: the system's pci.ids / usb.ids, then a small curated table.

The id databases are large (pci.ids is about 1.3 MB), and a report needs the names of a
handful of devices, so nothing is parsed or even copied: the file is memory-mapped once per
process and root, and each lookup jumps to the vendor line with ``find`` and scans only
that vendor's block. The curated table (``data/accelerators.json``) names accelerators that
older id files do not know yet, and carries facts (kind, role) that id files never hold.
Vendors are named by one table, ``data/vendors.json``: :func:`vendor_info` (PCI id),
:func:`usb_vendor_info` (USB id) and :func:`vendor_name` (the report's short id, per language)
are what every face uses.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
import threading
from functools import lru_cache

PCI_IDS_PATHS = ("usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids", "usr/share/pci.ids",
                 "usr/share/misc/hwdata/pci.ids")
USB_IDS_PATHS = ("usr/share/misc/usb.ids", "usr/share/hwdata/usb.ids", "usr/share/usb.ids",
                 "var/lib/usbutils/usb.ids")

_NEXT_VENDOR = re.compile(rb"\n[0-9a-fA-F]{4}  ")
_lock = threading.Lock()
_files: dict[tuple[str, str], object] = {}


def _ids_data(ctx, paths: tuple[str, ...]):
    """The id database as a read-only memory map (no copy, no decode of 1.3 MB), or None."""
    key = (str(ctx.root), paths[0])
    with _lock:
        if key in _files:
            return _files[key]
    data = None
    for rel in paths:
        path = ctx.path(rel)        # confined to the tree: a link out of it is refused
        if path is None:
            continue
        try:    # non-blocking, as ProbeContext.read_bytes: a FIFO must not hang the probe
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except (OSError, ValueError):
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
            break
        except (OSError, ValueError):   # empty file, FIFO, directory
            continue
        finally:
            os.close(fd)
    with _lock:
        _files[key] = data
    return data


_MAX_NAME = 256     # bytes of one name: a huge line in a hostile id file is cut here
_MAX_BLOCK = 1 << 20


def _line(data, start: int) -> str | None:
    end = data.find(b"\n", start, start + _MAX_NAME)
    text = bytes(data[start: end if end >= 0 else min(len(data), start + _MAX_NAME)])
    return clean_name(text.decode("utf-8", "replace"))


def _lookup(data, vendor: str, device: str | None) -> tuple[str | None, str | None]:
    """(vendor name, device name) from an id database, either possibly None."""
    if data is None:
        return None, None
    tag = vendor.lower().encode("ascii", "replace") + b"  "
    pos = 0 if data[:len(tag)] == tag else data.find(b"\n" + tag)
    if pos < 0:
        return None, None
    start = pos + (0 if pos == 0 and data[:1] != b"\n" else 1)
    vendor_name = _line(data, start + len(tag))
    if device is None:
        return vendor_name, None
    # a vendor's block is at most a few hundred kilobytes (Intel's, the largest, ~300 KB):
    # the scan stops at 1 MiB, so a hostile id file cannot make each lookup read it all
    window = min(len(data), start + _MAX_BLOCK)
    nxt = _NEXT_VENDOR.search(data, start + 1, window)
    end = nxt.start() if nxt else window
    dtag = b"\n\t" + device.lower().encode("ascii", "replace") + b"  "
    dpos = data.find(dtag, start, end)
    if dpos < 0:
        return vendor_name, None
    return vendor_name, _line(data, dpos + len(dtag))


def pci_names(ctx, vendor: str, device: str | None = None) -> tuple[str | None, str | None]:
    """Vendor and device names from the tree's pci.ids ("10de", "2330")."""
    return _lookup(_ids_data(ctx, PCI_IDS_PATHS), vendor, device)


def usb_names(ctx, vendor: str, product: str | None = None) -> tuple[str | None, str | None]:
    """Vendor and product names from the tree's usb.ids ("18d1", "9302")."""
    return _lookup(_ids_data(ctx, USB_IDS_PATHS), vendor, product)


@lru_cache(maxsize=1)
def curated() -> dict:
    """The curated accelerator table shipped with accelgui (see its as_of and sources), with
    ``vendors`` and ``usb_vendors`` ({vendor id: {"id", "name"[, "kind"]}}) and the sets
    ``gpu_vendors`` (PCI ids whose display functions are GPUs) and ``fpga_vendors`` derived
    from ``data/vendors.json``, the one table of vendors."""
    from accelgui.data import read_bytes

    try:
        data = json.loads(read_bytes("accelgui.probes", "data/accelerators.json"))
    except (OSError, ValueError):
        data = {"devices": {}, "usb_devices": {}}
    # Normalise the lists into sets once, for the classifier's many membership tests.
    for key in ("not_compute_display", "vf_ids", "amd_apu_gpu_ids"):
        data[key] = frozenset(x.lower() for x in data.get(key, ()))
    index = _vendor_index()
    data["vendors"], data["usb_vendors"] = index["pci"], index["usb"]
    pci_facts = [(pci_id.lower(), facts) for entry in index["by_id"].values()
                 for pci_id, facts in (entry.get("pci") or {}).items()]
    for key, fact, kind in (("gpu_vendors", "displays", "gpu"), ("fpga_vendors", "accelerators", "fpga")):
        data[key] = frozenset(pci_id for pci_id, facts in pci_facts if facts.get(fact) == kind)
    return data


@lru_cache(maxsize=1)
def _vendor_index() -> dict:
    """``data/vendors.json`` (and the sites' copies) indexed by short id, PCI id and USB id."""
    from accelgui.probes import datafiles

    try:
        table = datafiles.load("vendors.json").get("vendors") or {}
    except (OSError, ValueError):
        table = {}
    pci: dict[str, dict] = {}
    usb: dict[str, dict] = {}
    for vid, entry in table.items():
        for pci_id, facts in (entry.get("pci") or {}).items():
            kind = {"kind": facts["kind"]} if "kind" in facts else {}
            pci[pci_id.lower()] = {"id": vid, "name": entry["name"], **kind}
        for usb_id in entry.get("usb") or ():
            usb[usb_id.lower()] = {"id": vid, "name": entry["name"]}
    return {"by_id": table, "pci": pci, "usb": usb}


def vendor_info(vendor: str) -> dict | None:
    """{"id", "name"[, "kind"]} of a PCI vendor id ("10de"): the vendor table, then the
    vendors the device-family data names (so a tree without pci.ids still says "nec", not
    "pci-1bcf")."""
    vendor = (vendor or "").lower()
    info = _vendor_index()["pci"].get(vendor)
    if info is None:
        from accelgui.probes import families

        info = families.pci_vendors().get(vendor)
    return info


def usb_vendor_info(vendor: str) -> dict | None:
    """{"id", "name"} of a USB vendor id ("18d1"), or None."""
    return _vendor_index()["usb"].get((vendor or "").lower())


def vendor_name(vendor: str | None, lang: str = "en") -> str | None:
    """How a vendor spells itself, from its short id (the report's ``vendor``: "nvidia" ->
    "NVIDIA"; "huawei" in Chinese -> its Chinese name); None for an id the table lacks."""
    entry = _vendor_index()["by_id"].get(str(vendor or "").lower())
    if entry is None:
        return None
    return (entry.get(lang) if lang != "en" else None) or entry["name"]


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def clean_name(text: str | None) -> str | None:
    """A name read from a file, with control characters (C0, DEL, C1) replaced by blanks and
    the blanks folded; None when nothing printable is left."""
    if not text:
        return None
    text = " ".join(_CONTROL.sub(" ", text).split())
    return text[:200] or None


_BRACKET = re.compile(r"\[([^\[\]]+)\]\s*$")


def pretty_name(vendor_display: str | None, raw: str | None) -> str | None:
    """"GH100 [H100 SXM5 80GB]" -> "NVIDIA H100 SXM5 80GB"; keeps names without brackets."""
    if not raw:
        return None
    m = _BRACKET.search(raw)
    name = m.group(1).strip() if m else raw.strip()
    if vendor_display and not name.lower().startswith(vendor_display.lower()):
        name = f"{vendor_display} {name}"
    return name
