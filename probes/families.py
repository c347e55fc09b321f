"""Device families as data: one ``data/families/<id>.json`` per accelerator family.

A family file says which PCI functions and USB devices it claims (vendor id, optionally
device ids and the kinds of function), the kernel drivers that drive it and the device
nodes each creates, the drivers that bind it but cannot compute with it (and why), the
runtime and how it is recognised, the fix for each step of the readiness ladder (English and
Chinese), its display name, the specifications of the devices it knows (memory size and
bandwidth, segment, form; dated and sourced) and, optionally, where its telemetry lives in
sysfs. ``data/family.schema.json`` is the format; ``tests/test_families.py`` checks every file
against it. Adding a family is adding one file (see CONTRIBUTING.md).

The files are read once per process, lazily, through :func:`accelgui.data.read_bytes` (no
importlib.resources on the headless path), and indexed for the lookups the probes make:

    load_families()            {id: entry}
    family(id)                 one entry (aliases, the ids of older reports, accepted) or None
    family_for(vendor, device, kind)     the family claiming a PCI function, or None
    family_for_usb(usb_id)     the family claiming a USB device, or None
    family_for_driver(driver)  (kind, family id) when the driver only ever binds accelerators
    driver_rule(driver)        the device nodes the driver creates, or None
    sysfs_classes()            {class folder under a device: node templates}
    record_patterns()          the /dev names the recorder keeps
    pci_vendors()              {pci vendor id: {"id", "name"}} over every family
    device_spec(id, ...)       the specification row of one device, or None
    family_telemetry(id)       the family's telemetry object, or None
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import threading

DATA_PACKAGE = "accelgui.probes"
DATA_DIR = "data/families"

_lock = threading.Lock()
_index: dict | None = None


# More folders of family files, read after the shipped ones (a family being written, or one
# a site adds without rebuilding the package): ACCELGUI_FAMILY_DIRS=dir1:dir2.
ENV_DIRS = "ACCELGUI_FAMILY_DIRS"


def _entry(data: bytes, where: str, name: str) -> dict:
    entry = json.loads(data.decode("utf-8"))
    if not isinstance(entry, dict) or entry.get("id") != name[:-5]:
        raise ValueError(f"{where}/{name}: its id does not match the file name")
    return entry


def _read_all() -> dict[str, dict]:
    from accelgui.data import list_names, read_bytes

    out: dict[str, dict] = {}
    for name in list_names(DATA_PACKAGE, DATA_DIR):
        if name.endswith(".json"):
            out[name[:-5]] = _entry(read_bytes(DATA_PACKAGE, f"{DATA_DIR}/{name}"), DATA_DIR, name)
    for folder in filter(None, os.environ.get(ENV_DIRS, "").split(os.pathsep)):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                with open(os.path.join(folder, name), "rb") as f:
                    out[name[:-5]] = _entry(f.read(), folder, name)
    return out


def reset() -> None:
    """Forget the parsed families (the next lookup reads the files again)."""
    global _index
    with _lock:
        _index = None


def _build(entries: dict[str, dict]) -> dict:
    aliases, pci, usb, drivers, evidence, classes, vendors = {}, [], {}, {}, {}, {}, {}
    for fid, entry in entries.items():
        for alias in entry.get("aliases") or ():
            aliases[alias] = fid
        for claim in (entry.get("claims") or {}).get("pci") or ():
            pci.append((claim["vendor"].lower(),
                        frozenset(d.lower() for d in claim.get("devices") or ()),
                        frozenset(claim.get("kinds") or ()), fid))
        for usb_id in (entry.get("claims") or {}).get("usb") or ():
            usb[usb_id.lower()] = fid
        for vid, info in (entry.get("vendors") or {}).items():
            vendors.setdefault(vid.lower(), info)
        for name, rule in (entry.get("drivers") or {}).items():
            drivers.setdefault(name, dict(rule, family=fid))
            if rule.get("evidence"):
                evidence.setdefault(name, (rule.get("kind") or entry["kind"], fid))
            for cls, templates in (rule.get("sysfs_classes") or {}).items():
                known = classes.setdefault(cls, [])
                known.extend(t for t in templates if t not in known)
    # A claim naming device ids is more specific than one naming only the vendor.
    pci.sort(key=lambda c: (not c[1], not c[2]))
    return {"entries": entries, "aliases": aliases, "pci": pci, "usb": usb,
            "drivers": drivers, "evidence": evidence,
            "classes": {k: tuple(v) for k, v in classes.items()}, "vendors": vendors}


def _idx() -> dict:
    global _index
    if _index is None:
        with _lock:
            if _index is None:
                _index = _build(_read_all())
    return _index


def load_families() -> dict[str, dict]:
    """Every family entry by id (parsed once per process)."""
    return _idx()["entries"]


def family(fid: str | None) -> dict | None:
    if not fid:
        return None
    idx = _idx()
    return idx["entries"].get(fid) or idx["entries"].get(idx["aliases"].get(fid, ""))


def canonical(fid: str | None) -> str | None:
    """The current id of ``fid`` (an alias from an older report gives its new id)."""
    entry = family(fid)
    return entry["id"] if entry else None


def family_for(vendor: str, device: str | None = None, kind: str | None = None) -> str | None:
    """The family that claims PCI function ``vendor:device`` of ``kind``, or None."""
    vendor, device = (vendor or "").lower(), (device or "").lower()
    for vid, devices, kinds, fid in _idx()["pci"]:
        if vid == vendor and (not devices or device in devices) and (not kinds or kind in kinds):
            return fid
    return None


def vendor_kind(vendor: str) -> str | None:
    """The one kind of device that the families claiming all of ``vendor``'s ids make, or
    None (no such family, or families of several kinds: Intel makes GPUs, NPUs and FPGAs)."""
    vendor = (vendor or "").lower()
    kinds = set()
    for vid, devices, claim_kinds, fid in _idx()["pci"]:
        if vid == vendor and not devices:
            kinds |= set(claim_kinds) or {_idx()["entries"][fid]["kind"]}
    return kinds.pop() if len(kinds) == 1 else None


def family_for_usb(usb_id: str) -> str | None:
    return _idx()["usb"].get((usb_id or "").lower())


def family_for_driver(driver: str | None) -> tuple[str, str] | None:
    """(kind, family) of a driver that only ever binds accelerators, else None."""
    return _idx()["evidence"].get(driver or "")


def driver_rule(driver: str | None) -> dict | None:
    """The node rule of ``driver``: ``nodes`` (any of), ``nodes_required`` (all of),
    ``companion`` {node, required}, ``own_compute_node``, ``family``; None when unknown."""
    return _idx()["drivers"].get(driver or "")


def all_drivers() -> dict[str, dict]:
    return _idx()["drivers"]


def sysfs_classes() -> dict[str, tuple[str, ...]]:
    """Class folders a driver creates under its device, with where udev puts their nodes
    (``{}`` is the class device's name; the usual place first)."""
    return _idx()["classes"]


def pci_vendors() -> dict[str, dict]:
    return _idx()["vendors"]


def text(fid: str | None, *path: str) -> dict | None:
    """A bilingual text of a family (``text("amd-gpu", "fixes", "driver")``), or None."""
    value = family(fid)
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value if isinstance(value, dict) and "en" in value else None


def family_telemetry(fid: str | None) -> dict | None:
    """The family's ``telemetry`` object (sysfs files for utilisation, frequency...), or None."""
    value = (family(fid) or {}).get("telemetry")
    return value if isinstance(value, dict) else None


def record_patterns() -> re.Pattern:
    """The names directly under /dev that any family's nodes start with."""
    idx = _idx()
    if "record" not in idx:
        idx["record"] = _record_patterns()
    return idx["record"]


class RecordPatterns:
    """:func:`record_patterns` read when first used (``.match(name)``), for module constants."""

    def match(self, name: str):
        return record_patterns().match(name)


class SysfsClasses:
    """The names of :func:`sysfs_classes`, read when first iterated."""

    def __iter__(self):
        return iter(sysfs_classes())


def _record_patterns() -> re.Pattern:
    names = set()
    for entry in load_families().values():
        globs = list(entry.get("record_nodes") or ()) + list(entry.get("nodes_without_driver") or ())
        for rule in (entry.get("drivers") or {}).values():
            globs += list(rule.get("nodes") or ()) + list(rule.get("nodes_required") or ())
            if rule.get("companion"):
                globs.append(rule["companion"]["node"])
        for glob in globs:
            parts = glob.split("/")
            if len(parts) >= 2 and parts[0] == "dev":
                names.add(parts[1])
    return re.compile("|".join(fnmatch.translate(n) for n in sorted(names)))


def _rows(entry: dict) -> list[dict]:
    """The family's specification rows, each with the table's as_of/source/review_by unless
    it carries its own; a family may borrow another's (``specs_from``: WSL's NVIDIA GPU is
    one of the NVIDIA GPUs)."""
    memo = _idx().setdefault("rows", {})
    if entry["id"] in memo:
        return memo[entry["id"]]
    out = memo[entry["id"]] = []
    for e in (entry, family(entry.get("specs_from"))):
        specs = (e or {}).get("specs") or {}
        for row in specs.get("devices") or ():
            row = dict(row)
            for key in ("as_of", "source", "review_by"):
                row.setdefault(key, specs.get(key))
            out.append(row)
    return out


def _named(row: dict, name: str) -> bool:
    if row.get("name_match"):
        return re.search(row["name_match"], name, re.I) is not None
    return bool(row.get("name")) and re.search(
        r"(?<![\w])" + re.escape(row["name"]) + r"(?![\w])", name, re.I) is not None


def device_spec(fid: str | None, pci_id: str | None = None, usb_id: str | None = None,
                soc: str | None = None, name: str | None = None,
                memory_bytes: int | None = None) -> dict | None:
    """The specification row of one device of family ``fid``: matched by its id (PCI, USB or
    device-tree compatible); where one id covers several products, by ``name_match`` (a
    regular expression on the device's name) or by the memory size the device reports; a
    device whose id no row names, by its name. An id whose products cannot be told apart
    gives None: no figure is better than a wrong one."""
    entry = family(fid)
    if not entry:
        return None
    rows = _rows(entry)
    keys = {k.lower() for k in (pci_id, usb_id, soc) if k}
    hits = [r for r in rows if keys.intersection(r.get("ids") or ())]
    if not hits and name:
        hits = [r for r in rows if _named(r, name)]
        longest = max((len(r.get("name") or "") for r in hits), default=0)
        hits = [r for r in hits if r.get("name_match") or len(r.get("name") or "") == longest]
    if len(hits) > 1 and name:
        hits = [r for r in hits if _named(r, name)] or hits
    if len(hits) > 1 and memory_bytes:
        hits = [r for r in hits if r.get("memory_bytes")
                and abs(r["memory_bytes"] - memory_bytes) <= 0.06 * r["memory_bytes"]] or hits
    return dict(hits[0]) if len(hits) == 1 else None
