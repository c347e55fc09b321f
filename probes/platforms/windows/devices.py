"""Windows GPUs and NPUs: every display and compute adapter the recorded (or live) outputs
name, merged by PnP device id, with the dedicated memory the hardware really has.

Sources, each optional: ``Win32_VideoController``, ``Get-PnpDevice`` / ``Win32_PnPEntity``
(the ``Display`` and ``ComputeAccelerator`` setup classes), ``Win32_PnPSignedDriver`` (driver
version, PCI location), the display class registry keys, ``dxdiag /t`` and ``nvidia-smi``.
PCI devices go through the Linux inventory's classification and specification rows by their
ids (``PCI\\VEN_10DE&DEV_2684``); on-chip ACPI devices (Snapdragon's Adreno and Hexagon) are
SoC devices. Adapters on no hardware bus (``ROOT\\``, ``SWD\\``, ``VMBUS\\``: Remote Display,
Basic Render, Hyper-V video, Parsec and other virtual displays) are no GPUs.

Dedicated memory, best first: nvidia-smi's framebuffer total, the registry's 64-bit
``HardwareInformation.qwMemorySize``, dxdiag's "Dedicated Memory" (DXGI), the 32-bit registry
``MemorySize`` and WMI's ``AdapterRAM`` below 4 GiB, and those only where no specification
row knows the card (some drivers wrap them). Both 32-bit fields read 0xFFF00000 for every
card of 4 GiB or more: such a value is kept as a lower bound, never as the size.
"""

from __future__ import annotations

import re

from accelgui.probes.platforms.windows import records
from accelgui.probes.platforms.windows.hardware import outputs, wmi

_HARDWARE_BUSES = ("pci", "acpi")
_CLASS_CODES = {"display": "030000", "computeaccelerator": "120000"}
_ACPI_VENDORS = {"qcom": "qualcomm"}        # ACPI vendor ids of SoC GPUs/NPUs (uefi.org/PNP_ACPI_Registry)
_BASIC_DISPLAY = re.compile(r"Microsoft Basic Display", re.I)
# names Windows gives a device whose driver names it no better (the class's generic name):
# the device is named from its id instead
_GENERIC = re.compile(r"\s*(?:NPU )?Compute Accelerator Device\s*$"
                      r"|\s*Video Controller(?: \(VGA Compatible\))?\s*$", re.I)


def _new(name, pnp, source: str) -> dict:
    return {"name": name, "pnp": pnp, "sources": [source], "cls": None, "status": None,
            "problem": None, "service": None, "driver_version": None, "location": None,
            "adapter_ram": None, "dedicated": None, "hybrid": None, "registry": None,
            "smi": None, "provider": None}


def _merge(adapters: list[dict], taken: set, name, pnp, source: str, create: bool = True):
    """The adapter ``pnp`` names (not yet taken by this source), or a new one."""
    for i, adapter in enumerate(adapters):
        if i not in taken and records.same_device(adapter["pnp"], pnp):
            taken.add(i)
            adapter["sources"].append(source)
            if pnp.get("instance") and not adapter["pnp"].get("instance"):
                adapter["pnp"] = pnp
            if name and (not adapter["name"] or _BASIC_DISPLAY.search(adapter["name"])):
                adapter["name"] = name
            return adapter
    if not create:
        return None
    adapters.append(_new(name, pnp, source))
    taken.add(len(adapters) - 1)
    return adapters[-1]


def _problem(obj: dict):
    """The device's problem code (``ConfigManagerErrorCode``/``Problem``: a number, or the
    name PowerShell 7 prints, ``CM_PROB_FAILED_START``); None when it has none."""
    value = records.field(obj, "ConfigManagerErrorCode", "Problem")
    if isinstance(value, str) and value.upper().startswith("CM_PROB_"):
        return None if value.upper() == "CM_PROB_NONE" else value
    return records.number(value) or None


def _from_video(adapters: list[dict], ctx) -> None:
    taken: set = set()
    for obj in wmi(ctx, "windows.video_controller", "Win32_VideoController"):
        pnp = records.pnp_id(records.text_of(obj, "PNPDeviceID"))
        if pnp is None:
            continue
        a = _merge(adapters, taken, records.text_of(obj, "Name", "Caption"), pnp, "Win32_VideoController")
        a["cls"] = a["cls"] or "display"
        a["adapter_ram"] = records.int_of(obj, "AdapterRAM")
        a["driver_version"] = a["driver_version"] or records.text_of(obj, "DriverVersion")
        a["problem"] = _problem(obj) or a["problem"]


def _pnp_objects(ctx) -> list[dict]:
    out = []
    for text in outputs(ctx, "windows.pnp_devices"):
        out.extend(records.objects(text))
    return out


def _from_pnp(adapters: list[dict], ctx) -> None:
    taken: set = set()
    for obj in _pnp_objects(ctx):
        pnp = records.pnp_id(records.text_of(obj, "InstanceId", "Instance ID", "PNPDeviceID", "DeviceID"))
        cls = (records.text_of(obj, "Class", "PNPClass", "Class Name") or "").lower()
        if pnp is None or not (cls.startswith(("display", "computea")) or _npu_by_id(pnp)):
            continue            # (early NPU drivers installed them as System devices)
        present = records.field(obj, "Present")
        if (records.text_of(obj, "Status") or "").lower() == "unknown" or present in (False, "False"):
            continue        # a device Windows remembers but that is not there now
        cls = "display" if cls.startswith("display") else "computeaccelerator"     # an NPU
        a = _merge(adapters, taken, records.text_of(obj, "FriendlyName", "Name", "Device Description"),
                   pnp, "PnP")
        a["cls"] = cls
        a["status"] = records.text_of(obj, "Status")
        a["service"] = a["service"] or records.text_of(obj, "Service")
        a["problem"] = _problem(obj) or a["problem"]


def _from_drivers(adapters: list[dict], ctx) -> None:
    taken: set = set()
    for obj in wmi(ctx, "windows.signed_drivers", "Win32_PnPSignedDriver"):
        pnp = records.pnp_id(records.text_of(obj, "DeviceID"))
        cls = (records.text_of(obj, "DeviceClass") or "").lower()
        if pnp is None or not (cls in _CLASS_CODES or _npu_by_id(pnp)):
            continue
        cls = cls if cls in _CLASS_CODES else "computeaccelerator"
        a = _merge(adapters, taken, records.text_of(obj, "DeviceName", "FriendlyName"), pnp,
                   "Win32_PnPSignedDriver")
        a["cls"] = a["cls"] or cls
        a["driver_version"] = records.text_of(obj, "DriverVersion") or a["driver_version"]
        a["provider"] = records.text_of(obj, "DriverProviderName")
        a["location"] = records.pci_location(records.text_of(obj, "Location")) or a["location"]


def _from_dxdiag(adapters: list[dict], ctx) -> None:
    from accelgui.probes.platforms.windows.hardware import dxdiag

    found = dxdiag(ctx)
    taken: set = set()
    for entry in found["displays"]:
        if entry["pnp"] is None:
            continue
        a = _merge(adapters, taken, entry["name"], entry["pnp"], "dxdiag")
        a["cls"] = a["cls"] or "display"
        a["dedicated"] = entry["dedicated_bytes"]
        a["hybrid"] = entry["hybrid"]
        a["driver_version"] = a["driver_version"] or entry["driver_version"]
    taken = set()
    for entry in found["devices"]:       # System Devices: an NPU by its id, whatever its class
        a = _merge(adapters, taken, entry["name"], entry["pnp"], "dxdiag", create=False)
        if a is None and _npu_by_id(entry["pnp"]):
            a = _merge(adapters, taken, entry["name"], entry["pnp"], "dxdiag")
            a["cls"] = "computeaccelerator"
        if a is not None:
            a["service"] = a["service"] or entry["driver"]
            a["driver_version"] = a["driver_version"] or entry["driver_version"]


def _npu_by_id(pnp: dict) -> bool:
    """A PCI function the curated tables know as an NPU (Intel AI Boost, AMD XDNA)."""
    from accelgui.probes import inventory

    if pnp["bus"] != "pci" or not pnp["vendor"]:
        return False
    verdict = inventory.classify_pci(pnp["vendor"], pnp["device"], "")
    return bool(verdict and verdict.get("kind") == "npu")


def _attach_registry(adapters: list[dict], ctx) -> None:
    """Each adapter's display class key: the one whose MatchingDeviceId its id starts with,
    the one of its driver version where old drivers left keys behind. Keys enrich adapters
    other outputs name, never make one: a removed card's key stays in the registry."""
    keys = ctx.shared("windows.display_keys",
                      lambda: records.display_keys(outputs(ctx, "windows.display_registry")))
    for a in adapters:
        pnp = a["pnp"]
        hits = [k for k in keys if k["matching_id"] and pnp["hardware_id"].startswith(k["matching_id"]["hardware_id"])]
        same = [k for k in hits if a["driver_version"] and k["driver_version"] == a["driver_version"]]
        if same or hits:
            a["registry"] = (same or hits)[-1]
            a["name"] = a["name"] or a["registry"]["desc"]
            if a["pnp"]["bus"] in _HARDWARE_BUSES:
                a["cls"] = a["cls"] or "display"


def nvidia_smi(ctx) -> dict:
    """nvidia-smi's report (``-q -x`` preferred, else ``-q``, else the plain table), parsed
    once."""
    def parse() -> dict:
        for key, parse in (("windows.nvidia_smi_xml", records.nvidia_smi_xml),
                           ("windows.nvidia_smi", records.nvidia_smi_text),
                           ("windows.nvidia_smi_table", records.nvidia_smi_table)):
            texts = outputs(ctx, key)
            if texts:
                return parse(texts[0])
        return records.nvidia_smi_text(None)
    return ctx.shared("windows.nvidia_smi", parse)


def _attach_smi(adapters: list[dict], smi: dict) -> None:
    """nvidia-smi's GPUs onto the adapters: by PCI location where the adapter knows its own
    (two identical cards), else by ids in order; a GPU no adapter names becomes one."""
    by_location = {a["location"]: i for i, a in enumerate(adapters) if a.get("location")}
    taken: set = set()
    rest = []
    for gpu in smi["gpus"]:
        i = by_location.get(gpu["pci_address"])
        if i is not None and i not in taken:
            taken.add(i)
            adapters[i]["smi"] = gpu
            adapters[i]["sources"].append("nvidia-smi")
        elif gpu["pci_id"]:
            rest.append(gpu)
        else:
            _by_name(adapters, taken, gpu)
    for gpu in rest:
        vendor, device = gpu["pci_id"].split(":")
        sub = f"SUBSYS_{gpu['subsystem'][1]}{gpu['subsystem'][0]}".upper() if gpu["subsystem"] else ""
        pnp = records.pnp_id(f"PCI\\VEN_{vendor}&DEV_{device}&{sub}".rstrip("&"))
        a = _merge(adapters, taken, gpu["name"], pnp, "nvidia-smi")
        a["cls"] = a["cls"] or "display"
        a["smi"] = gpu
        a["location"] = gpu["pci_address"] or a["location"]


def _by_name(adapters: list[dict], taken: set, gpu: dict) -> None:
    """An nvidia-smi table's GPU (no device id) onto the first NVIDIA adapter not taken whose
    name starts with the (possibly cut) name nvidia-smi prints."""
    name = (gpu.get("name") or "").lower()
    for i, a in enumerate(adapters):
        if i not in taken and a["pnp"]["vendor"] == "10de" and (a.get("name") or "").lower().startswith(name):
            taken.add(i)
            a["smi"] = gpu
            a["sources"].append("nvidia-smi")
            a["location"] = gpu["pci_address"] or a["location"]
            return


def adapters(ctx) -> list[dict]:
    """Every display and compute adapter of the machine, merged across the outputs; each
    marked ``virtual`` when it sits on no hardware bus."""
    def build() -> list[dict]:
        found: list[dict] = []
        for step in (_from_video, _from_pnp, _from_drivers, _from_dxdiag):
            step(found, ctx)
        _attach_smi(found, nvidia_smi(ctx))
        _attach_registry(found, ctx)
        for a in found:
            a["virtual"] = a["pnp"]["bus"] not in _HARDWARE_BUSES
        return found
    return ctx.shared("windows.adapters", build)


# ---------------------------------------------------------------------------- memory

def dedicated_memory(a: dict) -> tuple[int | None, str | None, int | None]:
    """(bytes, source, lower bound): the adapter's dedicated memory by the best source."""
    smi = a.get("smi") or {}
    reg = a.get("registry") or {}
    if smi.get("memory_bytes"):
        return smi["memory_bytes"], "nvidia-smi", None
    if reg.get("qw_memory") and reg["qw_memory"] > 0:
        return reg["qw_memory"], "registry HardwareInformation.qwMemorySize", None
    if a.get("dedicated"):
        return a["dedicated"], "dxdiag Dedicated Memory", None
    lower = None
    for value, source in ((reg.get("memory"), "registry HardwareInformation.MemorySize (32-bit)"),
                          (a.get("adapter_ram"), "WMI AdapterRAM (32-bit)")):
        if value is None:
            continue
        value &= 0xFFFFFFFF              # a signed reading (-1048576) is the same 0xFFF00000
        if value >= records.AdapterRAM_CAP:
            lower = max(lower or 0, value)
        elif value >= 1 << 20:
            return value, source, None
    return None, None, lower


# ---------------------------------------------------------------------------- fragments

def _driver(a: dict) -> tuple[str | None, dict | None, dict | None]:
    """(driver service name or None, evidence message, state): the evidence says a vendor
    driver runs the device (a PnP status OK, a driver version or nvidia-smi's answer); when
    there is none, ``state`` says what is known for the inventory's ladder: ``missing`` (the
    Basic Display driver stands in for the vendor's, a problem code or an Error status) or
    ``unknown`` (the outputs say nothing about its driver), with the reason and fix."""
    from accelgui import l10n

    service = a.get("service")
    if _BASIC_DISPLAY.search(a.get("name") or "") or (service or "").lower() == "basicdisplay":
        return None, None, {"state": "missing", "reason": l10n.msg("windows.driver.basic_display"),
                            "fix": l10n.msg("windows.fix.driver")}
    if a.get("problem") or (a.get("status") or "").lower() in ("error", "degraded", "unknown"):
        problem = a.get("problem") or a.get("status")
        return None, None, {"state": "missing", "reason": l10n.msg("windows.driver.problem", problem=str(problem)),
                            "fix": l10n.msg("windows.fix.driver")}
    version = a.get("driver_version") or (a.get("smi") or {}).get("driver_version")
    if not (service or version or a.get("smi") or (a.get("status") or "").lower() in ("ok", "started")):
        return None, None, {"state": "unknown", "reason": l10n.msg("windows.driver.unknown"),
                            "fix": l10n.msg("windows.fix.record_driver")}
    if service and version:
        return service, l10n.msg("windows.driver.bound", driver=service, version=version), None
    if version:
        return service, l10n.msg("windows.driver.version", version=version), None
    return service, l10n.msg("windows.driver.running"), None


def _address(a: dict) -> str:
    pnp = a["pnp"]
    path = pnp["hardware_id"] + (f"\\{pnp['instance']}" if pnp["instance"] else "")
    return a.get("location") or records.root_bus_location(pnp) or "win:" + path


def _pci(a: dict) -> dict | None:
    from accelgui.probes.platforms import common

    pnp = a["pnp"]
    driver, evidence, state = _driver(a)
    size, source, lower = dedicated_memory(a)
    name = a["name"] if a.get("name") and not (_BASIC_DISPLAY.search(a["name"]) or _GENERIC.match(a["name"])) \
        else None
    integrated = True if a.get("hybrid") == "integrated" else (False if a.get("hybrid") == "discrete" else None)
    rec = common.pci_function(pnp["vendor"], pnp["device"], _address(a),
                              class_code=pnp.get("class_code") or _CLASS_CODES.get(a["cls"] or "", ""),
                              name=name, memory_bytes=size, memory_source=source, driver=driver,
                              driver_evidence=evidence, integrated=integrated,
                              subsystem=":".join(pnp["subsystem"]) if pnp["subsystem"] else None,
                              revision=pnp["revision"])
    if rec is not None and source and "(32-bit)" in source and _spec_memory(rec):
        # a 32-bit field below 4 GiB can still be a larger card's size wrapped around: the
        # specification row's figure stands where there is one
        rec["memory_bytes"], rec["memory_source"] = None, None
    if rec is not None:     # the Windows details of the device, for the inventory to merge
        extra = {"pnp_id": _hardware_id(pnp), "memory_lower_bound_bytes": lower,
                 # (a stopped or stand-in driver's version is not the device's driver)
                 "driver_version": a.get("driver_version") if evidence else None}
        rec["details"] = {k: v for k, v in extra.items() if v is not None}
        rec["driver_state"] = state
    return rec


def _hardware_id(pnp: dict) -> str:
    """The device's PnP hardware id (``PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1``): no
    instance part (where a USB device keeps its serial number), and no part a table cut
    short (``&R...``)."""
    hardware_id = pnp["hardware_id"]
    if hardware_id.endswith(("...", "\u2026")):
        hardware_id = hardware_id.rstrip(".\u2026").rpartition("&")[0] or hardware_id
    return hardware_id


def _spec_memory(rec: dict) -> int | None:
    """The memory size of the device's specification row (by its PCI id), or None."""
    from accelgui.probes import families

    sub = f"{rec['subsystem_vendor_id']}:{rec['subsystem_device_id']}" \
        if rec.get("subsystem_vendor_id") and rec.get("subsystem_device_id") else None
    spec = families.device_spec(rec.get("family"), pci_id=f"{rec['vendor_id']}:{rec['device_id']}",
                                subsystem=sub, revision=rec.get("revision"))
    return spec.get("memory_bytes") if spec and spec.get("match") == "id" else None


def _soc(a: dict) -> dict | None:
    """An on-chip ACPI device of a known SoC vendor in the Display or ComputeAccelerator
    class: its GPU or NPU, memory shared with the CPU."""
    from accelgui.probes.platforms import common

    pnp = a["pnp"]
    vendor = _ACPI_VENDORS.get(pnp["vendor"] or "")
    if vendor is None or a["cls"] not in _CLASS_CODES:
        return None
    driver, evidence, state = _driver(a)
    kind = "gpu" if a["cls"] == "display" else "npu"
    details = {"memory_shared": True, "pnp_id": _hardware_id(pnp),
               "driver_version": a.get("driver_version") if evidence else None}
    dev = common.soc_device(kind, vendor, a.get("name") or f"{vendor} {kind}", _address(a),
                            acpi_family(pnp, vendor, kind),
                            details={k: v for k, v in details.items() if v is not None},
                            driver_evidence=evidence)
    dev["driver"] = driver
    dev["driver_state"] = state
    return dev


def acpi_family(pnp: dict, vendor: str, kind: str) -> str | None:
    """The device family of an on-chip ACPI device: the one whose ``claims.acpi`` lists its
    id (``QCOM0C36``), else the one family of that vendor and kind that claims ACPI devices
    (a later chip's Adreno or Hexagon, by its setup class); None when there is none."""
    from accelgui.probes import families

    acpi_id = f"{pnp['vendor']}{pnp['device'] or ''}".upper()
    candidates = []
    for fid, entry in families.load_families().items():
        claimed = (entry.get("claims") or {}).get("acpi") or ()
        if acpi_id in claimed:
            return fid
        if claimed and entry.get("vendor") == vendor and entry.get("kind") == kind:
            candidates.append(fid)
    return candidates[0] if len(candidates) == 1 else None


def _nvml(smi: dict) -> dict | None:
    gpus = [dict((k, v) for k, v in g.items() if k not in ("subsystem", "driver_model")
                 and v is not None) for g in smi["gpus"] if g.get("pci_address")]
    for gpu in gpus:
        gpu.setdefault("driver_version", smi.get("driver_version"))
    if not gpus and not smi.get("driver_version"):
        return None
    return {"ok": True, "source": "nvidia-smi", "reason": None,
            "driver_version": smi.get("driver_version"), "nvidia_driver": smi.get("driver_version"),
            "cuda_driver": smi.get("cuda_version"), "gpus": gpus}


def _live_nvml(ctx) -> dict | None:
    """NVML on the running Windows machine (WDDM): the same query as on Linux."""
    if not ctx.live:
        return None
    from accelgui.probes import gpu_nvidia

    info = gpu_nvidia.query_nvml()
    if not info.get("ok"):
        return None
    for gpu in info.get("gpus") or ():
        gpu.setdefault("driver_version", info.get("driver_version"))
    return info


def probe(ctx) -> dict:
    found = adapters(ctx)
    functions, socs = [], []
    for a in found:
        if a["virtual"]:
            continue
        if a["pnp"]["bus"] == "pci":
            rec = _pci(a)
            if rec is not None:
                functions.append(rec)
        else:
            dev = _soc(a)
            if dev is not None:
                socs.append(dev)
    fragment: dict = {"pci_functions": functions, "soc_devices": socs,
                      # "live" there means Linux libraries and device files were looked at
                      "pci_meta": {"functions_scanned": len(found), "live": False,
                                   "dev_recorded": False, "root": ctx.root}}
    nvml = _live_nvml(ctx) or _nvml(nvidia_smi(ctx))
    if nvml:
        fragment["nvml"] = nvml
    if not found and not (nvml or {}).get("gpus"):
        fragment.update(_status="absent", _reason="no display or compute adapter in the outputs")
    return fragment
