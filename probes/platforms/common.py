"""What every command-output backend (macOS, Windows) builds its fragments with.

Devices go through the same inventory as on Linux (:mod:`accelgui.probes.inventory`):
a backend hands it PCI functions, SoC devices and USB devices in the records the Linux
probes write, so classification, families, specification rows, readiness and estimates are
the same whatever the OS. Sizes and numbers are read from the text the OS prints
(``"16 GB"``, ``"8192 MB"``, ``"0x1002"``) by the small parsers here.
"""

from __future__ import annotations

import re

_SIZE = re.compile(r"^\s*([0-9]+(?:[.,][0-9]+)?)\s*([A-Za-z]*)")
_POWERS = {"": 0, "b": 0, "byte": 0, "bytes": 0,
           **{f"{p}{suffix}": n for n, p in enumerate("kmgt", 1) for suffix in ("", "b", "ib")}}


def size_bytes(text, binary: bool = True) -> int | None:
    """``"16 GB"`` -> 17179869184 (operating systems print memory in binary units under
    decimal names; ``binary=False`` for disk-style decimal sizes); a bare number, ``B`` or
    ``bytes`` is bytes. None when the text is not a size."""
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, float)):
        return int(text) if text >= 0 else None
    m = _SIZE.match(str(text))
    if not m:
        return None
    power = _POWERS.get(m.group(2).lower())
    if power is None:
        return None
    return int(float(m.group(1).replace(",", ".")) * (1024 if binary else 1000) ** power)


def hex_id(text, digits: int = 4) -> str | None:
    """``"0x1002"``, ``"1002"``, ``"Apple (0x106b)"`` -> ``"1002"`` / ``"106b"`` (lower-case,
    ``digits`` hex digits); None when there is none."""
    if text is None:
        return None
    m = re.search(r"0x([0-9a-fA-F]{1,%d})\b" % digits, str(text)) or \
        re.fullmatch(r"\s*([0-9a-fA-F]{%d})\s*" % digits, str(text))
    return m.group(1).lower().zfill(digits) if m else None


def to_int(text) -> int | None:
    """The first integer in ``text`` (``"10 (8 performance and 2 efficiency)"`` -> 10)."""
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, int):
        return text
    m = re.search(r"-?\d+", str(text))
    return int(m.group(0)) if m else None


def key_values(text: str | None, sep: str = ":") -> dict[str, str]:
    """``key: value`` lines (sysctl, sw_vers) as a dict, the first of a repeated key kept."""
    out: dict[str, str] = {}
    for line in (text or "").split("\n"):
        key, found, value = line.partition(sep)
        key = key.strip()
        if found and key and key not in out:
            out[key] = value.strip()
    return out


def pci_function(vendor_id: str, device_id: str, address: str, class_code: str = "030000",
                 name: str | None = None, memory_bytes: int | None = None,
                 memory_source: str | None = None, driver: str | None = None,
                 driver_evidence: dict | None = None, integrated: bool | None = None,
                 subsystem: str | None = None, revision: str | None = None) -> dict | None:
    """A PCI function as the Linux pci probe records it (for ``fragment["pci_functions"]``),
    classified by the same rules; None when it is not a compute device (a BMC's display,
    a virtual adapter). ``driver_evidence``: the l10n message that says the OS's own driver
    drives it (no device files to look at on macOS or Windows)."""
    from accelgui.probes import inventory

    vendor_id, device_id = (vendor_id or "").lower(), (device_id or "").lower()
    if not (re.fullmatch(r"[0-9a-f]{4}", vendor_id) and re.fullmatch(r"[0-9a-f]{4}", device_id)):
        return None
    verdict = inventory.classify_pci(vendor_id, device_id, class_code)
    if verdict is None:
        return None
    sub_vendor, _, sub_device = (subsystem or "").partition(":")
    rec = {"address": address, "vendor_id": vendor_id, "device_id": device_id,
           "class": class_code, "subsystem_vendor_id": sub_vendor or None,
           "subsystem_device_id": sub_device or None, "revision": revision,
           "numa_node": None, "pcie": None, "driver": driver, "nodes": {},
           "display_name": name, "memory_bytes": memory_bytes, "memory_source": memory_source,
           "driver_evidence": driver_evidence, "integrated": integrated,
           "pci_ids_vendor": None, "pci_ids_device": None}
    rec.update(verdict)
    return rec


def soc_device(kind: str, vendor: str, name: str, address: str, family: str | None,
               soc: str | None = None, details: dict | None = None,
               driver_evidence: dict | None = None) -> dict:
    """An on-chip device (Apple GPU, Neural Engine) as the soc probe records it (for
    ``fragment["soc_devices"]``). ``soc``: the chip id the family's specification rows are
    keyed by (``"t8103"``: ``apple,t8103``)."""
    info = dict(details or {})
    if soc:
        info["soc"] = soc
    return {"kind": kind, "vendor": vendor, "name": name, "address": address, "driver": None,
            "family": family, "details": info, "nodes": {}, "driver_evidence": driver_evidence}


def usb_device(vendor_id: str, product_id: str, address: str, product: str | None = None,
               manufacturer: str | None = None, speed_mbps: float | None = None) -> dict | None:
    """A USB device as the usb probe records it (for ``fragment["usb_devices"]``), or None
    when no table knows it as an accelerator (the Linux probe keeps only those)."""
    from accelgui.probes import ids

    vendor_id, product_id = (vendor_id or "").lower(), (product_id or "").lower()
    key = f"{vendor_id}:{product_id}"
    entry = ids.curated().get("usb_devices", {}).get(key)
    if entry is None:
        return None
    return {"address": address, "vendor_id": vendor_id, "product_id": product_id,
            "manufacturer": manufacturer, "product": product, "serial": None,
            "usb_ids_product": None, "speed_mbps": speed_mbps, "driver": None,
            "node": None, "node_exists": None, "access": None}


def unsupported_probe(ctx) -> dict:
    """The only probe of an OS whose backend is not installed: what the machine is."""
    names = {"macos": "macOS", "windows": "Windows"}
    return {"_status": "absent", "_reason": f"no {ctx.platform} backend installed",
            "platform": {"os": names.get(ctx.platform, ctx.platform), "dmi": {}}}
