"""Windows command outputs -> records: WMI objects in any layout, PnP ids, the display class
registry keys, ``dxdiag /t`` and ``nvidia-smi -q`` (text and XML).

Pure functions of decoded text; nothing here raises on a partial, localised or hostile
capture. WMI property names are never localised (``AdapterRAM`` is ``AdapterRAM`` on a German
Windows), values may be: facts are read from names and from values whose form does not
depend on the language (ids, numbers, ``NNNN MB``).
"""

from __future__ import annotations

import re

from accelgui.probes.platforms.windows import text as layouts

AdapterRAM_CAP = 0xFFF00000          # what WMI's 32-bit AdapterRAM reads for 4 GiB and more


# ---------------------------------------------------------------------------- WMI objects

def _is_wmic_list(lines: list[str]) -> bool:
    keyed = [line for line in lines if re.match(r"^[A-Za-z_]\w*=", line)]
    return len(keyed) * 2 > len(lines)


# a shell prompt line pasted with the output ("PS C:\Users\me> Get-CimInstance ...", "C:\>wmic ...")
_PROMPT = re.compile(r"^(?:PS [^\n>]{0,260}>|[A-Za-z]:\\[^\n>]{0,260}>)[^\n]*$", re.M)


def objects(text: str | None) -> list[dict]:
    """The objects of a WMI/PowerShell output, whatever its layout: ``ConvertTo-Json``,
    ``wmic /format:list``, a table (``Format-Table``, wmic's default) or ``Format-List``."""
    if not text or not text.strip():
        return []
    text = _PROMPT.sub("", text)
    stripped = text.lstrip()
    if stripped[:1] in "[{":
        found = layouts.json_objects(stripped)
        if found is not None:
            return found
    lines = [line for line in text.split("\n") if line.strip()]
    if _is_wmic_list(lines):
        return layouts.wmic_list(text)
    listed = layouts.format_list(text)
    if listed and max(len(o) for o in listed) > 1:
        return listed
    return layouts.tables(text) or listed


def field(obj: dict, *names: str):
    """The first of ``names`` the object has a value for (names compared without case);
    empty strings are no value."""
    lower = {k.lower(): v for k, v in obj.items()} if obj else {}
    for name in names:
        value = lower.get(name.lower())
        if isinstance(value, str):
            value = value.strip()
        if value not in (None, "", [], {}):
            return value
    return None


def text_of(obj: dict, *names: str) -> str | None:
    value = field(obj, *names)
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value if v is not None)
    return str(value) if value is not None else None


def number(value) -> int | None:
    """An integer from a WMI value: an int, "4293918720", "-1048576", "0x1F"; None else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, str):
        return None
    value = value.strip()
    try:
        return int(value, 16) if value.lower().startswith("0x") else int(value)
    except ValueError:
        return None


def int_of(obj: dict, *names: str) -> int | None:
    return number(field(obj, *names))


# class -> properties only it has (checked in this order; the first with a hit claims)
_CLASS_KEYS = (
    ("Win32_VideoController", ("AdapterRAM", "VideoProcessor", "AdapterDACType",
                               "VideoModeDescription", "CurrentHorizontalResolution")),
    ("Win32_PhysicalMemory", ("DeviceLocator", "BankLabel", "ConfiguredClockSpeed",
                              "SMBIOSMemoryType")),
    ("Win32_Processor", ("L2CacheSize", "ProcessorId", "NumberOfEnabledCore", "NumberOfCores",
                         "CurrentClockSpeed", "AddressWidth", "MaxClockSpeed")),
    ("Win32_OperatingSystem", ("TotalVisibleMemorySize", "OSArchitecture", "WindowsDirectory",
                               "BuildNumber")),
    ("Win32_ComputerSystem", ("TotalPhysicalMemory", "PCSystemType", "HypervisorPresent",
                              "SystemFamily", "SystemSKUNumber")),
    ("Win32_BIOS", ("SMBIOSBIOSVersion", "BIOSVersion", "SMBIOSMajorVersion")),
    ("Win32_SystemEnclosure", ("SMBIOSAssetTag", "ChassisTypes")),
    ("Win32_BaseBoard", ("HostingBoard",)),
    ("Win32_PnPSignedDriver", ("DriverProviderName", "InfName", "IsSigned")),
    ("Win32_PnPEntity", ("InstanceId", "PNPClass", "ClassGuid", "PNPDeviceID")),
)


def wmi_class(obj: dict) -> str | None:
    """The WMI class an object is of: its ``__CLASS`` or ``CreationClassName`` when it has
    one, else the class whose own properties it has (a ``Select-Object`` of a few)."""
    named = text_of(obj, "__CLASS", "CreationClassName")
    if named:
        hit = next((c for c, _ in _CLASS_KEYS if c.lower() == named.lower()), None)
        if hit:
            return hit
    keys = {k.lower() for k in obj}
    for cls, props in _CLASS_KEYS:
        if any(p.lower() in keys for p in props):
            return cls
    return None


def of_class(texts, cls: str) -> list[dict]:
    """The objects of class ``cls`` in the given outputs."""
    out = []
    for text in texts:
        out.extend(o for o in objects(text) if wmi_class(o) == cls)
    return out


# ---------------------------------------------------------------------------- PnP ids

_BUS = re.compile(r"^(?:enum\\)?([A-Za-z0-9_]+)\\([^\\]*)(?:\\(.*))?$", re.I)
_PART = re.compile(r"(VEN|DEV|SUBSYS|REV|VID|PID|CC)_([0-9A-Za-z]+)", re.I)


def pnp_id(text) -> dict | None:
    """``PCI\\VEN_10DE&DEV_2684&SUBSYS_16F310DE&REV_A1\\4&2283f625&0&0019`` ->
    {bus: "pci", vendor: "10de", device: "2684", subsystem: ("10de", "16f3"), revision: "a1",
    hardware_id: "PCI\\VEN_10DE&DEV_2684&SUBSYS_16F310DE&REV_A1", instance: "4&..."}.
    ACPI ids (``ACPI\\VEN_QCOM&DEV_0C36``, ``ACPI\\QCOM0C36``) keep their 4-letter vendor;
    USB ids give vendor/device from VID/PID. None for text that is no device id."""
    if not isinstance(text, str):
        return None
    m = _BUS.match(text.strip())
    if not m:
        return None
    bus, hwid, instance = m.group(1).lower(), m.group(2), m.group(3)
    parts = {k.upper(): v for k, v in _PART.findall(hwid)}
    vendor = (parts.get("VEN") or parts.get("VID") or "").lower() or None
    device = (parts.get("DEV") or parts.get("PID") or "").lower() or None
    if bus == "acpi" and not vendor:
        legacy = re.fullmatch(r"([A-Za-z]{3,4})([0-9A-Fa-f]{4})", hwid)
        if legacy:
            vendor, device = legacy.group(1).lower(), legacy.group(2).lower()
    sub = parts.get("SUBSYS", "")
    subsystem = (sub[4:8].lower(), sub[0:4].lower()) if re.fullmatch(r"[0-9A-Fa-f]{8}", sub) else None
    if bus == "pci" and not (vendor and re.fullmatch(r"[0-9a-f]{4}", vendor)
                             and device and re.fullmatch(r"[0-9a-f]{4}", device)):
        vendor = device = None
    return {"bus": bus, "vendor": vendor, "device": device, "subsystem": subsystem,
            "revision": (parts.get("REV") or "").lower()[:2] or None,
            "class_code": (parts.get("CC") or "").lower() or None,
            "hardware_id": f"{m.group(1)}\\{hwid}".upper(), "instance": instance}


def same_device(a: dict | None, b: dict | None) -> bool:
    """Two ids of one device: same bus, vendor and device, and the same subsystem (and
    instance) where both say one."""
    if not a or not b or (a["bus"], a["vendor"], a["device"]) != (b["bus"], b["vendor"], b["device"]):
        return False
    if a["vendor"] is None and a["hardware_id"] != b["hardware_id"]:
        return False
    if a["subsystem"] and b["subsystem"] and a["subsystem"] != b["subsystem"]:
        return False
    return not (a["instance"] and b["instance"] and a["instance"].upper() != b["instance"].upper())


_ROOT_BUS_INSTANCE = re.compile(r"^3&[0-9A-Fa-f]+&\d+&([0-9A-Fa-f]{2})$")


def root_bus_location(pnp: dict | None) -> str | None:
    """The PCI location of a function on the root bus, from its PnP instance id: Windows
    names children of the root bus ``3&<parent>&<n>&<devfn>`` with devfn = device * 8 +
    function in hex (``3&11583659&0&10`` is 00:02.0, the Intel iGPU's slot). None for
    functions behind a bridge, whose bus number the id does not hold."""
    m = _ROOT_BUS_INSTANCE.match((pnp or {}).get("instance") or "") if pnp and pnp["bus"] == "pci" else None
    if not m:
        return None
    devfn = int(m.group(1), 16)
    return f"0000:00:{devfn >> 3:02x}.{devfn & 7}"


_LOCATION = re.compile(r"PCI bus (\d+), device (\d+), function (\d+)", re.I)


def pci_location(text) -> str | None:
    """"PCI bus 1, device 0, function 0" (Win32_PnPSignedDriver.Location, English on every
    Windows) -> "0000:01:00.0"."""
    m = _LOCATION.search(text) if isinstance(text, str) else None
    if not m:
        return None
    bus, dev, fn = (int(g) for g in m.groups())
    return f"0000:{bus:02x}:{dev:02x}.{fn}" if bus < 256 and dev < 32 and fn < 8 else None


# ---------------------------------------------------------------------------- registry

_DISPLAY_CLASS = "{4d36e968-e325-11ce-bfc1-08002be10318}"


def display_keys(texts) -> list[dict]:
    """The driver keys of display adapters (``...\\Class\\{4d36e968-...}\\0000``) in ``reg
    export``, ``reg query`` or ``Get-ItemProperty`` outputs: {key, desc, matching_id (a
    pnp_id), driver_version, qw_memory (64-bit), memory (32-bit), chip}."""
    out = []
    for text in texts:
        if "Windows Registry Editor" in text[:200] or "\n[HKEY_" in text or text.startswith("[HKEY_"):
            found = [_export_key(k) for k in layouts.reg_export(text)]
        elif re.search(r"^\s+\S.*\s{2,}REG_[A-Z_]+", text, re.M):
            found = layouts.reg_query(text)
        else:
            found = [dict(o, _key=text_of(o, "PSPath") or "") for o in objects(text)]
        out.extend(_display_key(k) for k in found if _is_display_key(k))
    return out


def _export_key(key: dict) -> dict:
    out = {"_key": key["_key"]}
    for name, raw in key.items():
        if name != "_key":
            wanted = "int" if "MemorySize" in name else "any"
            out[name] = layouts.reg_value(wanted, raw)
    return out


def _is_display_key(key: dict) -> bool:
    path = str(key.get("_key") or "").lower()
    if _DISPLAY_CLASS in path:
        tail = path.split(_DISPLAY_CLASS, 1)[1].strip("\\")
        return bool(re.fullmatch(r"\d{4}", tail))
    return bool(field(key, "HardwareInformation.qwMemorySize", "MatchingDeviceId")
                and field(key, "DriverDesc"))


def _registry_bytes(value) -> bytes | None:
    """A REG_BINARY as Get-ItemProperty shows it: ``{0, 0, 240, 255}`` (Format-List) or
    ``[0, 0, 240, 255]`` (JSON)."""
    if isinstance(value, str) and re.fullmatch(r"\{\s*\d{1,3}(?:\s*,\s*\d{1,3}){0,63}\s*\}", value):
        value = [int(p) for p in value.strip("{} ").split(",")]
    if isinstance(value, list) and value and all(isinstance(b, int) and 0 <= b < 256 for b in value):
        return bytes(value)
    return bytes(value) if isinstance(value, (bytes, bytearray)) else None


def _registry_int(value) -> int | None:
    data = _registry_bytes(value)
    if data is not None:
        return int.from_bytes(data[:8], "little") if data else None
    return number(value)


def _display_key(key: dict) -> dict:
    chip = field(key, "HardwareInformation.ChipType")
    raw = _registry_bytes(chip)
    if raw is not None:
        chip = raw.decode("utf-16-le", errors="replace").rstrip("\x00")
    return {"key": key.get("_key"), "desc": text_of(key, "DriverDesc"),
            "matching_id": pnp_id(text_of(key, "MatchingDeviceId") or ""),
            "driver_version": text_of(key, "DriverVersion"),
            "qw_memory": _registry_int(field(key, "HardwareInformation.qwMemorySize")),
            "memory": _registry_int(field(key, "HardwareInformation.MemorySize")),
            "chip": chip if isinstance(chip, str) else None}


# ---------------------------------------------------------------------------- dxdiag /t

_DASH_LINE = re.compile(r"^-{4,}\s*$")
_LABEL = re.compile(r"^\s*([^:]{1,60}?):\s?(.*)$")
_MB = re.compile(r"^(\d+(?:[.,]\d+)?)\s?MB$", re.I)


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """dxdiag's sections: a title between two lines of dashes, then its lines."""
    lines = text.split("\n")
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        if i + 2 < len(lines) and _DASH_LINE.match(lines[i]) and _DASH_LINE.match(lines[i + 2]):
            out.append((lines[i + 1].strip(), []))
            i += 3
            continue
        if out:
            out[-1][1].append(lines[i])
        i += 1
    return out


def _entries(lines: list[str]) -> list[dict]:
    """The records of one section: a new one starts where its first label comes again."""
    entries: list[dict] = []
    first = None
    for line in lines:
        m = _LABEL.match(line)
        if not m:
            continue
        label, value = m.group(1).strip(), m.group(2).strip()
        if first is None:
            first = label
        if label == first or not entries:
            entries.append({"_order": []})
        entry = entries[-1]
        entry.setdefault(label, value)
        entry["_order"].append((label, value))
    return entries


def _megabytes(value: str) -> int | None:
    m = _MB.match(value.strip())
    return int(float(m.group(1).replace(",", ".")) * (1 << 20)) if m else None


def _display_entry(entry: dict) -> dict:
    order = entry["_order"]
    key = next((pnp_id(v) for _, v in order if re.match(r"(?i)enum\\", v)), None)
    sizes = [(label, _megabytes(v)) for label, v in order if _megabytes(v) is not None]
    dedicated = entry.get("Dedicated Memory")
    dedicated = _megabytes(dedicated) if dedicated else None
    if dedicated is None and len(sizes) == 3:
        dedicated = sizes[1][1]      # Display, Dedicated, Shared: dxdiag's order in every locale
    shared = entry.get("Shared Memory")
    return {"name": order[0][1] if order else None, "pnp": key,
            "dedicated_bytes": dedicated,
            "shared_bytes": _megabytes(shared) if shared else (sizes[2][1] if len(sizes) == 3 else None),
            "hybrid": (entry.get("Hybrid Graphics GPU") or "").lower() or None,
            "driver_version": entry.get("Driver Version"),
            "driver_model": next((v for _, v in order if re.match(r"WDDM \d", v)), None),
            "manufacturer": entry.get("Manufacturer")}


_DRIVER_FILE = re.compile(r"([\w.\-]+)\.sys, (\d+(?:\.\d+){3})\b", re.I)


def _driver_file(order: list[tuple[str, str]]) -> dict:
    """A System Devices entry's driver: the first ``<name>.sys, <version>`` value (the label
    is localised, the value's form is not) -> {driver: service name, driver_version}."""
    for _, value in order:
        m = _DRIVER_FILE.search(value)
        if m:
            version = ".".join(str(int(p)) for p in m.group(2).split("."))
            return {"driver": m.group(1), "driver_version": version}
    return {"driver": None, "driver_version": None}


def dxdiag(text: str | None) -> dict:
    """``dxdiag /t``: {system: {label: value}, displays: [...], devices: [{name, pnp}]}.
    Display devices give their name (the first line), PnP id (the ``Enum\\PCI\\...`` value),
    dedicated memory (``Dedicated Memory``, or the second of the three ``NNNN MB`` values in
    any language) and shared memory."""
    out: dict = {"system": {}, "displays": [], "devices": []}
    if not text:
        return out
    for title, lines in _sections(text):
        entries = _entries(lines)
        if not entries:
            continue
        values = [v for e in entries for _, v in e["_order"]]
        has_keys = any(re.match(r"(?i)enum\\(pci|acpi)\\", v) for v in values)
        if has_keys and any(_megabytes(v) is not None for v in values) or title == "Display Devices":
            out["displays"].extend(_display_entry(e) for e in entries)
        elif any(re.match(r"(?i)(pci|acpi)\\ven_", v) for v in values):
            for e in entries:
                pnp = next((pnp_id(v) for _, v in e["_order"] if re.match(r"(?i)(pci|acpi)\\", v)), None)
                if pnp:
                    out["devices"].append(dict(_driver_file(e["_order"]), name=e["_order"][0][1], pnp=pnp))
        elif not out["system"] and len(entries) == 1:
            out["system"] = {k: v for k, v in entries[0].items() if k != "_order"}
            out["system"]["_order"] = entries[0]["_order"]
    return out


# ---------------------------------------------------------------------------- nvidia-smi

def _mib(value) -> int | None:
    m = re.match(r"^\s*(\d+)\s*MiB", value or "")
    return int(m.group(1)) << 20 if m else None


def _smi_gpu(values: dict) -> dict:
    from accelgui.probes.gpu_nvidia import normalise_bus_id

    dev_id = number(values.get("pci_device_id"))
    sub_id = number(values.get("pci_sub_system_id"))
    return {"name": values.get("product_name"),
            "pci_address": normalise_bus_id(values.get("pci_bus_id") or values.get("id")),
            "pci_id": f"{dev_id & 0xffff:04x}:{dev_id >> 16:04x}" if dev_id else None,
            "subsystem": (f"{sub_id & 0xffff:04x}", f"{sub_id >> 16:04x}") if sub_id else None,
            "memory_bytes": _mib(values.get("fb_memory_usage/total")),
            "driver_model": values.get("driver_model/current_dm") or values.get("driver_model/current"),
            "architecture": values.get("product_architecture"),
            "uuid": values.get("uuid") or values.get("gpu_uuid"),
            "vbios_version": values.get("vbios_version")}


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.strip().lower()).strip("_")


def nvidia_smi_text(text: str | None) -> dict:
    """``nvidia-smi -q``: {driver_version, cuda_version, gpus: [...]} (indented sections
    flattened to ``section/key``)."""
    out: dict = {"driver_version": None, "cuda_version": None, "gpus": []}
    gpu = None
    path: list[tuple[int, str]] = []
    for line in (text or "").split("\n"):
        if not line.strip() or line.startswith("="):
            continue
        indent = len(line) - len(line.lstrip())
        head = re.match(r"^GPU ([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$", line)
        if head:
            gpu = {"id": head.group(1)}
            out["gpus"].append(gpu)
            path = []
            continue
        label, sep, value = line.partition(" : ") if " : " in line else line.partition(":")
        while path and path[-1][0] >= indent:
            path.pop()
        if not sep or (not value.strip() and not label.strip().endswith(":")):
            path.append((indent, _slug(label)))
            continue
        key = "/".join([p for _, p in path] + [_slug(label)])
        target = gpu if gpu is not None and indent > 0 else out
        if target is out:
            if key in ("driver_version", "cuda_version"):
                out[key] = value.strip()
        else:
            gpu.setdefault(key, value.strip())
    out["gpus"] = [_smi_gpu(_smi_aliases(g)) for g in out["gpus"]]
    return out


def _smi_aliases(values: dict) -> dict:
    """nvidia-smi -q's labels as the XML names them."""
    names = {"pci/bus_id": "pci_bus_id", "pci/device_id": "pci_device_id",
             "pci/sub_system_id": "pci_sub_system_id", "gpu_uuid": "uuid"}
    out = dict(values)
    for label, name in names.items():
        if label in values:
            out[name] = values[label]
    return out


def nvidia_smi_xml(text: str | None) -> dict:
    """``nvidia-smi -q -x``: as :func:`nvidia_smi_text`. A document declaring entities is
    refused (None fields), never expanded."""
    import xml.etree.ElementTree as ET

    out: dict = {"driver_version": None, "cuda_version": None, "gpus": []}
    body = re.sub(r"<!DOCTYPE[^\[>]*>", "", text or "", count=1)
    if "<!ENTITY" in body or "<!DOCTYPE" in body:
        return out
    try:
        root = ET.fromstring(body.strip())
    except ET.ParseError:
        return _xml_cut(body, out)
    out["driver_version"] = (root.findtext("driver_version") or "").strip() or None
    out["cuda_version"] = (root.findtext("cuda_version") or "").strip() or None
    for node in root.findall("gpu"):
        values = {"id": node.get("id")}
        for child in node.iter():
            if len(child) == 0 and child.text and child.text.strip():
                values.setdefault(child.tag, child.text.strip())
        pci = node.find("pci")
        if pci is not None:
            for tag in ("pci_bus_id", "pci_device_id", "pci_sub_system_id"):
                values[tag] = (pci.findtext(tag) or "").strip() or None
        values["fb_memory_usage/total"] = node.findtext("fb_memory_usage/total")
        values["driver_model/current_dm"] = node.findtext("driver_model/current_dm")
        out["gpus"].append(_smi_gpu(values))
    return out


_TAG = re.compile(r"<(driver_version|cuda_version|product_name|product_architecture|pci_device_id|"
                  r"pci_bus_id|pci_sub_system_id|current_dm|uuid|vbios_version)>([^<]{0,200})</\1>")
_FB_TOTAL = re.compile(r"<fb_memory_usage>\s*<total>([^<]{0,40})</total>")


def _xml_cut(body: str, out: dict) -> dict:
    """What a truncated ``nvidia-smi -q -x`` still says: its complete simple elements."""
    parts = re.split(r'<gpu id="([^"]{0,40})">', body)
    for tag, value in _TAG.findall(parts[0]):
        if tag in ("driver_version", "cuda_version"):
            out[tag] = value.strip() or None
    for i in range(1, len(parts) - 1, 2):
        values = {"id": parts[i]}
        for tag, value in _TAG.findall(parts[i + 1]):
            values.setdefault(tag, value.strip())
        total = _FB_TOTAL.search(parts[i + 1])
        values["fb_memory_usage/total"] = total.group(1) if total else None
        values["driver_model/current_dm"] = values.get("current_dm")
        out["gpus"].append(_smi_gpu(values))
    return out


_SMI_HEAD = re.compile(r"NVIDIA-SMI\s+\S+\s+Driver Version:\s+(\S+)\s+CUDA Version:\s+(\S+)")
_SMI_ROW = re.compile(r"^\|\s+(\d+)\s+(.+?)\s+(?:WDDM|TCC|MCDM|On|Off)\s+\|\s+"
                      r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])")
_SMI_MEMORY = re.compile(r"(\d+)MiB\s*/\s*(\d+)MiB")


def nvidia_smi_table(text: str | None) -> dict:
    """``nvidia-smi`` with no arguments (the table users paste): driver and CUDA versions,
    each GPU's name (cut short by nvidia-smi past ~20 characters), bus id and total memory;
    no PCI device id (the GPUs are matched to adapters by location or name)."""
    from accelgui.probes.gpu_nvidia import normalise_bus_id

    out: dict = {"driver_version": None, "cuda_version": None, "gpus": []}
    lines = (text or "").split("\n")
    for i, line in enumerate(lines):
        head = _SMI_HEAD.search(line)
        if head:
            out["driver_version"] = head.group(1)
            out["cuda_version"] = head.group(2) if head.group(2) != "N/A" else None
        row = _SMI_ROW.match(line)
        if row:
            memory = _SMI_MEMORY.search(lines[i + 1]) if i + 1 < len(lines) else None
            out["gpus"].append({"name": row.group(2).rstrip(". "), "pci_address": normalise_bus_id(row.group(3)),
                                "pci_id": None, "subsystem": None,
                                "memory_bytes": int(memory.group(2)) << 20 if memory else None,
                                "driver_model": None, "architecture": None, "uuid": None, "vbios_version": None})
    return out
