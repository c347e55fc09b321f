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
# a site adds without rebuilding the package): ACCELGUI_FAMILY_DIRS=dir1:dir2. A file there
# is used only when it is a regular file of at most datafiles.SITE_FILE_MAX_BYTES, valid JSON
# fitting data/family.schema.json, named after its id; otherwise it is left out whole, and
# the pci probe's warnings say which file and why (problems()).
ENV_DIRS = "ACCELGUI_FAMILY_DIRS"
_problems: list[tuple[str, str]] = []


def _entry(data: bytes, where: str, name: str) -> dict:
    entry = json.loads(data.decode("utf-8"))
    if not isinstance(entry, dict) or entry.get("id") != name[:-5]:
        raise ValueError(f"{where}/{name}: its id does not match the file name")
    return entry


def _site_entry(path: str, name: str) -> dict:
    """The family in the site file ``path``; datafiles.UnusableFileError saying why it is not one."""
    from accelgui.probes.datafiles import UnusableFileError, schema_problem, site_table

    entry = site_table(path)
    if entry.get("id") != name[:-5]:
        raise UnusableFileError("unparseable", f"its id ({entry.get('id')!r}) is not the file's name")
    problem = schema_problem("data/family.schema.json", entry)
    if problem is not None:
        raise UnusableFileError("unparseable", problem)
    return entry


def _site_entries() -> tuple[dict[str, dict], list[tuple[str, str]]]:
    """The usable family files of the ENV_DIRS folders, and (what, reason) of the others."""
    from accelgui.probes.datafiles import UnusableFileError

    out: dict[str, dict] = {}
    left_out: list[tuple[str, str]] = []
    for folder in filter(None, os.environ.get(ENV_DIRS, "").split(os.pathsep)):
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            left_out.append((f"{ENV_DIRS} {folder}: cannot list it: {exc.strerror or exc}", "unreadable"))
            continue
        for name in names:
            if name.endswith(".json"):
                path = os.path.join(folder, name)
                try:
                    out[name[:-5]] = _site_entry(path, name)
                except UnusableFileError as exc:
                    left_out.append((f"{ENV_DIRS} {path}: {exc}", exc.reason))
    return out, left_out


def _read_all() -> dict[str, dict]:
    from accelgui.data import list_names, read_bytes

    out: dict[str, dict] = {}
    for name in list_names(DATA_PACKAGE, DATA_DIR):
        if name.endswith(".json"):
            out[name[:-5]] = _entry(read_bytes(DATA_PACKAGE, f"{DATA_DIR}/{name}"), DATA_DIR, name)
    site, left_out = _site_entries()
    out.update(site)
    _problems[:] = left_out
    return out


def problems() -> list[tuple[str, str]]:
    """(what, reason) of each family file of ENV_DIRS that was left out, as datafiles.problems."""
    _idx()
    with _lock:
        return list(_problems)


def reset() -> None:
    """Forget the parsed families (the next lookup reads the files again)."""
    global _index
    with _lock:
        _index = None
        _problems.clear()


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


def display_name(fid: str | None, lang: str = "en") -> str | None:
    """A family's name for people in ``lang`` ("amd-gpu" -> "AMD GPU"), or None for an
    unknown family."""
    from accelgui.l10n import bilingual

    name = text(fid, "name")
    return bilingual(name, lang) if name else None


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


# Words of a device name that say nothing about which product it is, and the spellings of
# "laptop part" that drivers and id databases use.
_NOISE = re.compile(r"\b(nvidia|amd|ati|intel|corporation|inc|graphics|gpu|lite hash rate|lhr|"
                    r"generation|\(r\)|\(tm\))\b|\(r\)|\(tm\)|®|™", re.I)
_LAPTOP = re.compile(r"\b(laptop|mobile|max-q|notebook)\b", re.I)
_SIZE = re.compile(r"^\d+(\.\d+)?\s*gb$", re.I)


def _name_keys(name: str) -> list[tuple[frozenset, frozenset]]:
    """Each product a device name can be, as (model words, size words): the part in brackets
    of a pci.ids name ("GA106M [GeForce RTX 3060 Mobile / Max-Q]"), split at its alternatives
    ("Radeon RX 6800/6800 XT / 6900 XT" is three products), with the vendor, "Graphics" and
    "GPU" dropped and every laptop spelling one word."""
    m = re.search(r"\[([^\[\]]+)\]", name)
    text = m.group(1) if m else name
    laptop = bool(_LAPTOP.search(text))
    text = _LAPTOP.sub(" ", text)
    text = re.sub(r"\b(\d+)\s+gb\b", r"\1gb", _NOISE.sub(" ", text), flags=re.I)
    alts = [a.split() for a in re.split(r"\s*/\s*", text.lower()) if a.strip()]
    if laptop and len(alts) > 1 and all(not re.search(r"\d", w) for w in alts[-1]):
        alts = alts[:-1]                            # "Mobile / Max-Q": one product, two names
    out = []
    head: list[str] = []
    for words in alts:
        if head and not any(w in head for w in words[:1]) and re.search(r"\d", words[0]):
            words = head + words                    # "6800 XT" after "Radeon RX 6800"
        elif not head:
            first_num = next((i for i, w in enumerate(words) if re.search(r"\d", w)), len(words))
            head = words[:first_num]
        model = frozenset(w for w in words if not _SIZE.match(w)) | ({"laptop"} if laptop else set())
        out.append((model, frozenset(w for w in words if _SIZE.match(w))))
    return out


def _named(row: dict, name: str) -> bool:
    """Whether the device called ``name`` can be the product of ``row``: the same model words
    ("RTX 3060" is neither "RTX 3060 Ti" nor "RTX 3060 Laptop GPU"); a size in both names
    must agree; ``name_match`` rows by their expression."""
    if row.get("name_match"):
        return re.search(row["name_match"], name, re.I) is not None
    if not row.get("name"):
        return False
    theirs = _name_keys(row["name"])
    return any(model == rm and (not size or not rs or size == rs)
               for model, size in _name_keys(name) for rm, rs in theirs)


def _narrowed(rows: list[dict], key: str, value: str | None) -> list[dict]:
    """The rows a subsystem or revision id narrows to: those naming it, else those naming
    none, else (an id whose every row names others: a revision no table knows yet) all of
    them; with no id to narrow by (not recorded), all of them: :func:`_smallest` then
    budgets at the least of those."""
    if not value:
        return rows
    value = value.lower()
    return ([r for r in rows if value in (r.get(key) or ())]
            or [r for r in rows if not r.get(key)] or rows)


def _smallest(hits: list[dict]) -> dict:
    """One row for products that cannot be told apart: the smallest of each figure, so that no
    estimate counts more memory or bandwidth than the device may have; every size is listed
    (``memory_sizes_bytes``) and a fact is kept only where all rows agree."""
    def least(key):
        values = [r.get(key) for r in hits]
        return None if any(v is None for v in values) else min(values)

    sizes = sorted({r["memory_bytes"] for r in hits if r.get("memory_bytes")})
    by_size = sorted(hits, key=lambda r: (r.get("memory_bytes") or 0,
                                          r.get("memory_bandwidth_gbps") or 0))
    out = dict(by_size[0])
    names = list(dict.fromkeys(r.get("name") for r in by_size if r.get("name")))
    if len(names) > 1:
        out["name"] = " / ".join(names)
    for key in ("memory_bytes", "memory_bandwidth_gbps", "fp32_gflops", "compute_units",
                "memory_bus_bits"):
        value = least(key)
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    for key in ("compute_capability", "gfx_target", "generation", "memory_type", "segment",
                "form", "mobile", "package"):
        if len({json.dumps(r.get(key), sort_keys=True) for r in hits}) > 1:
            out.pop(key, None)
    if len(sizes) > 1:
        out["memory_sizes_bytes"] = sizes
    out.pop("name_match", None)
    return out


def device_spec(fid: str | None, pci_id: str | None = None, usb_id: str | None = None,
                soc: str | None = None, name: str | None = None,
                memory_bytes: int | None = None, subsystem: str | None = None,
                revision: str | None = None) -> dict | None:
    """The specification row of one device of family ``fid``, with ``match`` saying how it
    was found: by its id (PCI, USB or device-tree compatible; a subsystem or revision id
    narrows a shared one), told apart among the products of one id by ``name_match`` or by the
    memory size the device reports; with no row for its id, by its name (``match: "name"``), a
    fallback that compares model words, never substrings. Products that still cannot be told
    apart give their smallest figures and every size (:func:`_smallest`); no row, None."""
    entry = family(fid)
    if not entry:
        return None
    rows = _rows(entry)
    keys = {k.lower() for k in (pci_id, usb_id, soc) if k}
    hits = [r for r in rows if keys.intersection(r.get("ids") or ())]
    match = "id"
    if hits:
        narrowed = _narrowed(_narrowed(hits, "subsystems", subsystem), "revisions", revision)
        told = len(narrowed) < len(hits)
        hits = narrowed
    elif name:
        hits, match, told = [r for r in rows if _named(r, name)], "name", False
    if len(hits) > 1 and name and len(_name_keys(name)) == 1:
        # a name that is one product tells apart the rows of one id; a name of alternatives
        # ("Radeon RX 7900 XT / 7900 XTX", an id database's list) removes none of them
        hits = [r for r in hits if _named(r, name)] or hits
    if len(hits) > 1 and memory_bytes:
        hits = [r for r in hits if r.get("memory_bytes")
                and abs(r["memory_bytes"] - memory_bytes) <= 0.06 * r["memory_bytes"]] or hits
    if not hits:
        return None
    out = dict(hits[0]) if len(hits) == 1 else _smallest(hits)
    out["match"] = match
    if told and len(hits) == 1:
        out["product_known"] = True     # a subsystem or revision id named the very product
    return out
