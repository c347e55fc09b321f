"""``system_profiler`` outputs as data: ``{data type: [items]}`` with the key names of its
``-json`` form (``sppci_model``, ``sppci_cores``, ``spdisplays_vram``...), whichever form was
recorded: JSON, the ``-xml`` property list, or text in the user's language.

JSON and XML carry the key names themselves. Text carries localised labels (``Chipset
Model`` and its Chinese twin): the few labels the probes need are looked up in labels.json
(English and Chinese as macOS prints them), and where a label is not known the values speak for
themselves (a model identifier ``MacBookPro18,3``, ``Apple M1 Pro``, ``Vendor (0x1002)``,
``0x7340``, ``16 GB``, ``Darwin 23.5.0``), so a section is recognised, and its main facts
read, in a language no table lists.
"""

from __future__ import annotations

import json
import re

MAX_NODES = 20000                   # text lines turned into nodes, per output
_MODEL_ID = re.compile(r"^(?:[A-Z][A-Za-z]*\d+,\d+|Mac\d+,\d+)$")
_APPLE_CHIP = re.compile(r"^Apple (M\d+(?: Pro| Max| Ultra)?)\b")
_GB = re.compile(r"^\d+(?:[.,]\d+)? ?(?:GB|TB)$")        # a Mac's memory is never in MB
_CORES = re.compile(r"^(\d+) ?[(\uff08](\d+)\D+?(\d+)\D*[)\uff09]$")   # "10 (8 performance and 2 efficiency)"
_HEX4 = re.compile(r"^0x[0-9a-fA-F]{4}\b")
_VENDOR_HEX = re.compile(r"\(0x[0-9a-fA-F]{4}\)")
_MEM_TYPE = re.compile(r"^(?:LP)?DDR\d\w*$|^HBM", re.I)
_OS_VERSION = re.compile(r"^(?:macOS|Mac OS X|OS X)\b.*\d")
_DARWIN = re.compile(r"^Darwin \d")

def _table() -> dict:
    """labels.json: text labels -> JSON keys, and the words values are told by."""
    from accelgui.data import json_file

    return json_file("accelgui.probes.platforms.macos", "labels.json")


def words(kind: str) -> tuple[str, ...]:
    """The words (lower case, any language) of ``kind``: builtin, external, not_supported."""
    return tuple((_table().get("words") or {}).get(kind) or ())


_FULL_WIDTH = str.maketrans({"\uff08": "(", "\uff09": ")", "\uff0c": ","})


def _norm(label: str) -> str:
    return re.sub(r"\s+", "", label.lower().translate(_FULL_WIDTH))


def json_key(label: str) -> str | None:
    """The JSON key of a text label (None when unknown)."""
    key = _norm(label)
    labels = _table().get("labels") or {}
    if key in labels:
        return labels[key]
    if key.startswith("vram"):
        return "spdisplays_vram" if any(w in key for w in words("vram_total")) else "spdisplays_vram_shared"
    if key.startswith("metal"):
        return "spdisplays_mtlgpufamilysupport"
    return None


# ------------------------------------------------------------------ text

def split_line(line: str) -> tuple[int, str, str | None] | None:
    """``"      Key: Value"`` -> (6, "Key", "Value"); ``"    Key:"`` -> (4, "Key", None); None
    for a line that is no pair. An ASCII colon ends the label only before a space or the end
    of the line ("Boot ROM: 2022.100.22.0.0 (iBridge: 21.16...)"); a full-width colon (U+FF1A)
    ends it anywhere. Linear in the line (str.find, no backtracking)."""
    body = line.lstrip(" ")
    if not body or body[0] == "\t":
        return None
    cut, start = -1, 0
    while True:
        cut = body.find(":", start)
        if cut < 0 or cut + 1 == len(body) or body[cut + 1] in " \t":
            break
        start = cut + 1
    wide = body.find("\uff1a")
    if wide >= 0 and (cut < 0 or wide < cut):
        cut = wide
    label = body[:cut].rstrip(" \t") if cut > 0 else ""
    if not label:
        return None
    value = body[cut + 1:].strip(" \t")
    return len(line) - len(body), label, value or None


def parse_text(text: str) -> list[dict]:
    """The outline of a text output: nodes ``{label, value, children}`` nested by indent."""
    root: dict = {"label": "", "value": None, "children": [], "indent": -1}
    stack = [root]
    count = 0
    for line in text.split("\n"):
        pair = split_line(line.rstrip("\r"))
        if pair is None:
            continue
        count += 1
        if count > MAX_NODES:
            break
        indent, label, value = pair
        node = {"label": label, "value": value, "children": [], "indent": indent}
        while stack[-1]["indent"] >= indent:
            stack.pop()
        stack[-1]["children"].append(node)
        stack.append(node)
    return root["children"]


def _pairs(node: dict) -> dict:
    """A node's direct ``label: value`` children as a JSON-keyed item (``_name``: its label;
    ``_labels``: every label as printed, for readers that look at values)."""
    item: dict = {"_name": node["label"], "_values": []}
    for child in node["children"]:
        if child["value"] is None:
            continue
        item["_values"].append(child["value"])
        key = json_key(child["label"])
        if key and key not in item:
            item[key] = child["value"]
    return item


def _walk(nodes: list[dict]):
    for node in nodes:
        yield node
        yield from _walk(node["children"])


def _values(node: dict) -> list[str]:
    return [n["value"] for n in _walk(node["children"]) if n["value"]]


def section_type(section: dict) -> str | None:
    """Which data type a text section is, from its values and labels."""
    values = _values(section)
    keys = {json_key(n["label"]) for n in _walk(section["children"]) if n["value"]}
    if "product_id" in keys or "location_id" in keys:
        return "SPUSBDataType"
    if {"sppci_model", "spdisplays_vendor", "spdisplays_mtlgpufamilysupport"} & keys or \
            any(_VENDOR_HEX.search(v) for v in values):
        return "SPDisplaysDataType"
    if "machine_model" in keys or any(_MODEL_ID.match(v) for v in values):
        return "SPHardwareDataType"
    if any(_OS_VERSION.match(v) for v in values) and any(_DARWIN.match(v) for v in values):
        return "SPSoftwareDataType"
    if any(_MEM_TYPE.match(v) for v in values):
        return "SPMemoryDataType"
    return None


def _text_items(kind: str, section: dict) -> list[dict]:
    children = [c for c in section["children"] if c["value"] is None]
    if kind == "SPDisplaysDataType":
        return [_pairs(c) for c in children] or [_pairs(section)]     # one GPU, pasted flat
    if kind in ("SPHardwareDataType", "SPSoftwareDataType"):
        item = _pairs(children[0]) if children else _pairs(section)
        if kind == "SPHardwareDataType" and "sppci_cores" in item:
            item["number_processors"] = item.pop("sppci_cores")
        if kind == "SPHardwareDataType" and "number_processors" not in item:
            item["number_processors"] = next((v for v in values(item) if _is_core_split(v)), None)
        return [item]
    if kind == "SPMemoryDataType":
        top = _pairs(section)
        banks = [_pairs(n) for n in _walk(section["children"])
                 if n["value"] is None and any(json_key(c["label"]) == "dimm_size" for c in n["children"])]
        if "physical_memory" in top:
            top["SPMemoryDataType"] = top.pop("physical_memory")
        return [top, *banks]
    return [_pairs(n) for n in _walk(section["children"])          # USB: every device node
            if n["value"] is None and any(json_key(c["label"]) == "product_id" for c in n["children"])]


def _flat_parts(flat: list[dict]) -> list[list[dict]]:
    """Lines pasted without their outline, as sections: the hardware lines, then from
    ``Chipset Model`` on the GPU's (both print a "Total Number of Cores")."""
    if len(flat) < 2:
        return []
    cut = next((i for i, n in enumerate(flat) if i and json_key(n["label"]) == "sppci_model"), None)
    return [flat] if cut is None else [flat[:cut], flat[cut:]]


def _is_core_split(value: str) -> bool:
    """``10 (8 performance and 2 efficiency)`` in any language: a total and its two parts."""
    m = _CORES.match(value)
    return bool(m) and int(m.group(2)) + int(m.group(3)) == int(m.group(1))


def text_data(text: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    nodes = parse_text(text)
    sections = [n for n in nodes if n["value"] is None]
    for part in _flat_parts([n for n in nodes if n["value"] is not None]):
        sections.append({"label": "", "value": None, "children": part, "indent": -1})
    for section in sections:
        kind = section_type(section)
        if kind:
            out.setdefault(kind, []).extend(_text_items(kind, section))
    return out


# ------------------------------------------------------------------ JSON, XML

def _flatten_usb(items: list) -> list[dict]:
    """USB devices are nested under buses and hubs (``_items``): every device, flat."""
    out, todo = [], list(items)
    while todo and len(out) < 1000:
        item = todo.pop(0)
        if not isinstance(item, dict):
            continue
        todo.extend(item.get("_items") or ())
        if any("product" in k.lower() and "id" in k.lower() for k in item):
            out.append(item)
    return out


def structured_data(data) -> dict[str, list[dict]]:
    """``-json`` (a dict of data types) or ``-xml`` (a list of ``{_dataType, _items}``)."""
    out: dict[str, list[dict]] = {}
    if isinstance(data, dict):
        pairs = list(data.items())
    elif isinstance(data, list):
        pairs = [(d.get("_dataType"), d.get("_items")) for d in data if isinstance(d, dict)]
    else:
        return out
    for kind, items in pairs:
        if not isinstance(kind, str) or not isinstance(items, list):
            continue
        kind = "SPUSBDataType" if kind == "SPUSBHostDataType" else kind
        items = [i for i in items if isinstance(i, dict)]
        if kind == "SPUSBDataType":
            items = _flatten_usb(items)
        elif kind == "SPMemoryDataType":
            items = items + [b for i in items for b in (i.get("_items") or ()) if isinstance(b, dict)]
        out.setdefault(kind, []).extend(items)
    return out


def parse(text: str) -> dict[str, list[dict]]:
    """One recorded ``system_profiler`` output as ``{data type: [items]}`` ({} when it is
    none of the three forms, or broken)."""
    head = text.lstrip()[:1]
    if head in ("{", "["):
        try:
            return structured_data(json.loads(text))
        except (ValueError, RecursionError):
            return {}               # cut short (JSON is all or nothing), or nested past reason
    if head == "<":
        import plistlib

        try:
            return structured_data(plistlib.loads(text.encode("utf-8")))
        except Exception:  # noqa: BLE001 - plistlib raises several kinds on broken XML
            return {}
    return text_data(text)


def merged(texts: list[str]) -> dict[str, list[dict]]:
    """Every recorded output's data types together (first output's items first)."""
    out: dict[str, list[dict]] = {}
    for text in texts:
        for kind, items in parse(text).items():
            out.setdefault(kind, []).extend(items)
    return out


def data(ctx) -> dict[str, list[dict]]:
    """The machine's system_profiler data, parsed once per context."""
    return ctx.shared("macos.system_profiler", lambda: merged(ctx.outputs("macos.system_profiler")))


_KHW_ITEM = re.compile(r"^kHW_Apple(M\d+)(Pro|Max|Ultra)?Item$")     # -json's _name on some macOS


def apple_chip(text) -> str | None:
    """``"Apple M2 Pro"`` from a chip, model or brand string, or from the internal item name
    (``kHW_AppleM2ProItem``); None when not an M-series."""
    text = str(text or "").strip()
    m = _APPLE_CHIP.match(text)
    if m:
        return f"Apple {m.group(1)}"
    m = _KHW_ITEM.match(text)
    return " ".join(filter(None, ("Apple", m.group(1), m.group(2)))) if m else None


def values(item: dict) -> list[str]:
    """Every value of a text item (for value-based reading); [] for JSON items."""
    return list(item.get("_values") or ())


def first_value(item: dict, pattern: re.Pattern) -> str | None:
    return next((v for v in values(item) if pattern.match(v)), None)


PATTERNS = {"model_id": _MODEL_ID, "gb": _GB, "hex4": _HEX4, "mem_type": _MEM_TYPE,
            "os_version": _OS_VERSION, "darwin": _DARWIN}
