"""macOS devices and software: GPUs from SPDisplaysDataType, the Neural Engine by chip, USB
accelerators from SPUSBDataType, through the same inventory as Linux.

An Apple GPU is a SoC device of the ``apple-gpu`` family, keyed by its chip's SoC id so the
family's specification rows name it; its memory is the unified memory, and the share macOS
lets the GPU wire (``gpu_memory_limit_bytes``) is what the estimates budget. An AMD, NVIDIA
or Intel GPU (Intel Macs, eGPUs) is a PCI function of its vendor and device id, with the VRAM
system_profiler prints (``VRAM (Total)``: dedicated; ``VRAM (Dynamic, Max)``: a share of RAM,
not counted as its own memory).
"""

from __future__ import annotations

import re

from accelgui.probes.platforms import common
from accelgui.probes.platforms.macos import profiler, system

# spdisplays_vendor tokens and vendor names -> PCI vendor ids
_VENDORS = {"apple": "106b", "amd": "1002", "ati": "1002", "intel": "8086", "nvidia": "10de"}


def _vendor_id(gpu: dict) -> str | None:
    text = str(gpu.get("spdisplays_vendor") or "")
    found = common.hex_id(text)
    if found:
        return found
    word = re.sub(r"^sppci_vendor_", "", text, flags=re.I).strip().split(" ")[0].lower()
    if word in _VENDORS:
        return _VENDORS[word]
    for value in profiler.values(gpu):               # a label no table knows: "Name (0x1002)"
        m = re.search(r"\(0x([0-9a-fA-F]{4})\)", value)
        if m:
            return m.group(1).lower()
    name = str(gpu.get("sppci_model") or gpu.get("_name") or "").split(" ")[0].lower()
    return _VENDORS.get(name)


def _device_id(gpu: dict) -> str | None:
    found = common.hex_id(gpu.get("spdisplays_device-id"))
    if found:
        return found
    for value in profiler.values(gpu):               # the first bare 0x.... is the device id
        if re.fullmatch(r"0x[0-9a-fA-F]{4}", value) and value != gpu.get("spdisplays_revision-id"):
            return value[2:].lower()
    return None


def _metal(gpu: dict) -> str | None:
    """``"Metal 3"`` from ``spdisplays_metal3`` / ``Metal Support: Metal 3`` / ``Supported,
    feature set macOS GPUFamily2 v1``; None when the GPU has no Metal."""
    text = str(gpu.get("spdisplays_mtlgpufamilysupport") or gpu.get("spdisplays_metal") or "")
    if not text:
        return None
    m = re.search(r"metal\s*(\d+)", text, re.I)
    if m:
        return f"Metal {m.group(1)}"
    m = re.search(r"GPUFamily\s*(\d+)\s*(v\d+)?", text)
    if m:
        return f"Metal (GPUFamily{m.group(1)}{' ' + m.group(2) if m.group(2) else ''})"
    if _has_word(text, "not_supported"):
        return None
    return "Metal"


def _has_word(text: str, kind: str) -> bool:
    low = text.lower()
    return any(w in low for w in profiler.words(kind))


def _is_builtin(gpu: dict) -> bool:
    return _has_word(str(gpu.get("sppci_bus") or ""), "builtin")


def _is_external(gpu: dict) -> bool:
    texts = [str(gpu.get(k) or "") for k in ("sppci_slot_name", "sppci_bus", "sppci_device_type", "_name")]
    return any(_has_word(t, "external") for t in texts) or any(
        "egpu" in k.lower() for k in gpu if isinstance(k, str))


def _apple_gpu(ctx, gpu: dict, index: int, chip: str | None) -> dict:
    from accelgui import l10n

    name = chip or profiler.apple_chip(gpu.get("sppci_model")) or gpu.get("sppci_model") or "Apple GPU"
    facts = system.chip_facts(chip)
    cores = common.to_int(gpu.get("sppci_cores"))
    if cores is None:       # labelled in a language no table lists: the entry's bare number
        cores = next((int(v) for v in profiler.values(gpu) if re.fullmatch(r"\d{1,3}", v)), None)
    total, source = system.total_memory(ctx)
    limit, why = system.gpu_memory_limit(ctx, total)
    metal = _metal(gpu)
    details = {"gpu_cores": cores, "metal": metal, "memory_shared": True,
               "memory_bytes": total, "memory_source": f"unified memory ({source})" if source else None,
               "gpu_memory_limit_bytes": limit, "gpu_memory_limit_source": why}
    bandwidth = (facts.get("bandwidth_by_gpu_cores") or {}).get(str(cores)) or facts.get("bandwidth_gbps")
    if bandwidth:
        details.update(memory_bandwidth_gbps=bandwidth, memory_bandwidth_source="specification",
                       memory_bandwidth_reference=facts["sources"].get(facts.get("source")))
    return common.soc_device("gpu", "apple", f"{name} GPU", f"macos-gpu{index}", "apple-gpu",
                             soc=facts.get("soc"), details=details,
                             driver_evidence=l10n.msg("devices.ladder.driver_macos", metal=metal or "-"))


def _pci_gpu(ctx, gpu: dict, index: int, vendor: str) -> dict | None:
    from accelgui import l10n

    device = _device_id(gpu)
    if device is None:
        ctx.fault(f"SPDisplaysDataType/{gpu.get('_name') or index}", "unparseable")
        return None
    builtin = _is_builtin(gpu)
    dedicated = None if builtin else common.size_bytes(gpu.get("spdisplays_vram"))
    revision = (common.hex_id(gpu.get("spdisplays_revision-id")) or "")[-2:] or None
    rec = common.pci_function(vendor, device, f"macos-gpu{index}",
                              name=gpu.get("sppci_model") or gpu.get("_name"), memory_bytes=dedicated,
                              memory_source="system_profiler VRAM (Total)" if dedicated else None,
                              driver_evidence=l10n.msg("devices.ladder.driver_macos", metal=_metal(gpu) or "-"),
                              integrated=builtin, revision=revision)
    if rec is not None:
        rec["product_name"] = gpu.get("sppci_model")
        if _is_external(gpu):
            rec["external"] = True
    return rec


def gpus(ctx) -> tuple[list[dict], list[dict]]:
    """(SoC devices, PCI functions) of the GPUs system_profiler lists."""
    chip = system.chip_name(ctx)
    socs, funcs = [], []
    for i, gpu in enumerate(profiler.data(ctx).get("SPDisplaysDataType") or ()):
        vendor = _vendor_id(gpu)
        if vendor == "106b" or (vendor is None and profiler.apple_chip(gpu.get("sppci_model") or gpu.get("_name"))):
            socs.append(_apple_gpu(ctx, gpu, i, chip))
        elif vendor:
            rec = _pci_gpu(ctx, gpu, i, vendor)
            if rec is not None:
                funcs.append(rec)
    return socs, funcs


def neural_engine(ctx) -> dict | None:
    """The Neural Engine of an Apple M-series chip (every one has one)."""
    from accelgui import l10n

    chip = system.chip_name(ctx)
    if not chip:
        return None
    facts = system.chip_facts(chip)
    details = {"cores": facts.get("ane_cores"), "tops_int8_spec": facts.get("ane_tops"),
               "tops_note": "operations per second as Apple states them (precision not given)",
               "tops_reference": facts.get("sources", {}).get(facts.get("source")),
               "memory_shared": True}
    return common.soc_device("npu", "apple", f"{chip} Neural Engine", "macos-ane0", "apple-ane",
                             soc=facts.get("soc"), details=details,
                             driver_evidence=l10n.msg("devices.ladder.driver_macos_ane"))


def usb_devices(ctx) -> list[dict]:
    found = []
    for i, dev in enumerate(profiler.data(ctx).get("SPUSBDataType") or ()):
        vid = pid = None
        for key, value in dev.items():
            low = str(key).lower()
            if "vendor" in low and "id" in low:
                vid = vid or common.hex_id(value)
            elif "product" in low and "id" in low:
                pid = pid or common.hex_id(value)
        speed = re.search(r"(\d+(?:\.\d+)?)\s*([GM])b/s", str(dev.get("device_speed") or dev.get("speed") or ""))
        rec = common.usb_device(vid or "", pid or "", str(dev.get("location_id") or f"macos-usb{i}"),
                                product=dev.get("_name"), manufacturer=dev.get("manufacturer"),
                                speed_mbps=float(speed.group(1)) * (1000 if speed.group(2) == "G" else 1)
                                if speed else None)
        if rec is not None:
            found.append(rec)
    return found


def probe(ctx) -> dict:
    socs, funcs = gpus(ctx)
    ane = neural_engine(ctx)
    if ane:
        socs.append(ane)
    usb = usb_devices(ctx)
    # "live" there means Linux's user-space libraries were searched for each family's runtime
    # (ROCm, Mesa...): not on macOS, where Metal drives every GPU, so runtimes are not judged
    fragment = {"soc_devices": socs, "pci_functions": funcs, "usb_devices": usb,
                "pci_meta": {"live": False, "functions_scanned": len(funcs), "dev_recorded": False,
                             "root": ctx.root}}
    if not (socs or funcs or usb) and not profiler.data(ctx):
        fragment.update(_status="absent", _reason="no system_profiler output")
    return fragment


def software_probe(ctx) -> dict:
    """Metal on the Macs whose GPU has it (part of macOS, nothing to install); Python
    environments live (a recorded folder does not say which packages are installed)."""
    metal = [m for g in profiler.data(ctx).get("SPDisplaysDataType") or () if (m := _metal(g))]
    toolkits: dict = {"metal": metal[0]} if metal else {}
    envs: list = []
    if ctx.live:
        from accelgui.probes import software

        try:
            envs = software.environments(ctx)
        except Exception:  # noqa: BLE001 - environments are extras; the probe still reports
            envs = []
    packages = {k: v for e in envs for k, v in (e.get("packages") or {}).items()}
    return {"software": {"packages": packages, "toolkits": toolkits, "providers": [], "compilers": {},
                         "packages_known": ctx.live, "environments": envs},
            "software_meta": {"live": False, "libs_recorded": False, "packages_known": ctx.live}}
