"""The words of the human-readable reports, from the ``app`` area of the message catalogue
(``accelgui/l10n/<lang>/app.json``: ``app.label.<key>`` for headings and field labels,
``app.word.<value>`` for readiness, route and probe status and device kind words)."""

from __future__ import annotations

import re

from accelgui import l10n

LANGS = l10n.LANGUAGES


def known(id_: str, lang: str, fallback, **fmt):
    """The catalogue text ``id_`` in ``lang`` when the catalogue has that id, else ``fallback``
    (an open vocabulary: field names, toolkit ids, probe names the catalogue may not know)."""
    return l10n.tr(id_, lang, **fmt) if id_ in l10n.catalogue("en") else fallback


def label(key: str, lang: str = "en", **fmt) -> str:
    """The label ``key`` (``app.label.<key>``) in ``lang``; an unknown key is returned as it is."""
    return known("app.label." + key, lang, key, **fmt)


def word(value, lang: str = "en") -> str:
    """Translate a readiness / route status / probe status / kind word; others pass through."""
    from accelgui.export.sanitize import clean

    if value is None:
        return label("unknown", lang)
    return known("app.word." + str(value).replace(" ", "_"), lang, None) or clean(value)


def html_lang(lang: str) -> str:
    return "zh-CN" if l10n.lang_code(lang) == "zh" else "en"


def tr(obj, lang: str = "en") -> str | None:
    """A knowledge-base text ({"en":..,"zh":..}), a message or a plain string, in ``lang``."""
    if obj is None:
        return None
    if l10n.is_message(obj):
        return l10n.render(obj, lang)
    if isinstance(obj, dict):
        key = l10n.lang_code(lang)
        return obj.get(key) or obj.get("en") or next((v for v in obj.values() if v), None)
    return str(obj)


_UNIT_SUFFIXES = ("_bytes", "_gbps", "_gflops", "_tflops", "_mhz", "_ns", "_ms", "_s", "_w",
                  "_pct", "_percent")


def field_label(key: str, lang: str = "en") -> str:
    """A report field's label in ``lang``: the catalogue's (``app.hw.<key>``), else the name in
    words without its unit suffix ("memory_cap_bytes" -> "Memory cap"); the unit goes into the
    value."""
    text = known("app.hw." + key, lang, None)
    if text is not None:
        return text
    base = key
    for suffix in _UNIT_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    words = base.replace("_", " ").replace("-", " ").strip()
    return (words[:1].upper() + words[1:]) if words else key


#: a report field named by its path inside a text ("measured (benchmarks.gpu.0.triad_gbps)")
_FIELD_PATH = re.compile(r"\b(?:benchmarks|memory|cpu|devices\[\d+\])(?:\.[A-Za-z_][A-Za-z0-9_]*|\.\d+)+")


def field_path_words(path: str, lang: str = "en") -> str:
    """The words for a report field path: the ``refs.<path>`` catalogue entry, indices left out
    (``devices[2].details.memory_bytes`` -> ``refs.devices.details.memory_bytes``), else the
    label of its last part."""
    norm = re.sub(r"\[\d+\]", "", re.sub(r"\.\d+(?=\.|$)", "", path))
    return known("refs." + norm, lang, None) or field_label(norm.rsplit(".", 1)[-1], lang).lower()


def in_words(text: str, lang: str = "en") -> str:
    """``text`` with every report field path in it replaced by words."""
    return _FIELD_PATH.sub(lambda m: field_path_words(m.group(0), lang), text) if text else text


def toolkit_label(toolkit_id: str, lang: str = "en") -> str:
    """A toolkit or driver of the report's ``software.toolkits`` by its product name: the
    catalogue's (``app.hw.toolkit.<id>``), else the runtime table's name
    (``probes/data/runtimes.json``, "the CUDA toolkit" -> "CUDA toolkit"), else the id in words."""
    text = known("app.hw.toolkit." + toolkit_id, lang, None)
    if text is not None:
        return text
    from accelgui.probes.software import runtime_name

    name = runtime_name(toolkit_id) or ""
    name = name[4:] if name.startswith("the ") else name
    return (name[:1].upper() + name[1:]) if name else field_label(toolkit_id, lang)


def vendor_label(vendor: str | None, lang: str = "en") -> str | None:
    """How a vendor spells itself (``probes/data/vendors.json``: "nvidia" -> "NVIDIA"), else
    the report's own word; None for none."""
    if not vendor:
        return None
    from accelgui.probes.ids import vendor_name

    return vendor_name(vendor, lang) or vendor


def probe_label(name, lang: str = "en") -> str:
    """A probe's name in words ("pci" -> "PCI bus"); a probe the catalogue lacks by its name,
    its words apart ("gpu_x" -> "gpu x")."""
    return known("app.hw.probe." + str(name), lang, None) or str(name).replace("_", " ")


#: how buses spell themselves (report values are lower-case ids)
BUS_NAMES = {"pci": "PCI", "usb": "USB", "pcie": "PCIe"}


def bus_label(bus: str | None) -> str | None:
    """"pci" -> "PCI"; another bus word as it is; None for none."""
    return BUS_NAMES.get(str(bus).lower(), str(bus)) if bus else None
