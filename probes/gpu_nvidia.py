"""NVIDIA GPU details: NVML on the running system, procfs in a recorded tree.

Live, after a cheap check that the driver is there (``/dev/nvidiactl`` or
``/proc/driver/nvidia``), the probe imports ``pynvml`` (nvidia-ml-py) and asks NVML for
each GPU's facts. Every NVML call is wrapped: an ``NVMLError`` (not supported on this GPU,
no permission, a GPU that fell off the bus) leaves that one field ``None`` and the rest
filled. A missing library or an unloaded driver makes the probe ``absent`` with the reason,
never an exception. Under ``--sysroot`` the probe reads ``proc/driver/nvidia/version`` and
``proc/driver/nvidia/gpus/<address>/information`` instead.

Theoretical memory bandwidth, in GB/s (10^9 bytes/s):

    bandwidth_gbps = max_memory_clock_MHz * 1e6 * bus_width_bits * 2 / 8 / 1e9

NVML reports the memory clock such that two transfers happen per reported clock (for HBM
as for GDDR), so an H100 SXM (2619 MHz, 5120 bits) gives 3352 GB/s and an RTX 4090
(10501 MHz, 384 bits) gives 1008 GB/s, matching the data sheets.
"""

from __future__ import annotations

import re

from accelgui.probes.context import ProbeContext

_ARCH = {2: "Kepler", 3: "Maxwell", 4: "Pascal", 5: "Volta", 6: "Turing", 7: "Ampere",
         8: "Ada Lovelace", 9: "Hopper", 10: "Blackwell"}
_VERSION = r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)"


def normalise_bus_id(bus_id) -> str | None:
    """"00000000:17:00.0" (NVML) or "0000:17:00.0" -> "0000:17:00.0"."""
    if isinstance(bus_id, bytes):
        bus_id = bus_id.decode("ascii", "replace")
    if not bus_id:
        return None
    m = re.match(r"^([0-9a-fA-F]+):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$", bus_id.strip())
    if not m:
        return None
    return f"{int(m.group(1), 16):04x}:{m.group(2).lower()}:{m.group(3).lower()}.{m.group(4)}"


def bandwidth_gbps(mem_clock_mhz, bus_width_bits) -> float | None:
    if not mem_clock_mhz or not bus_width_bits:
        return None
    return round(mem_clock_mhz * 1e6 * bus_width_bits * 2 / 8 / 1e9, 1)


def cuda_version(value) -> str | None:
    """12040 -> "12.4" (nvmlSystemGetCudaDriverVersion)."""
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


class _Caller:
    """Calls NVML functions, turning any NVMLError into None and remembering what failed."""

    def __init__(self, nvml):
        self.nvml = nvml
        self.error_type = getattr(nvml, "NVMLError", Exception)
        self.failed: list[str] = []

    def __call__(self, name: str, *args):
        func = getattr(self.nvml, name, None)
        if func is None:
            self.failed.append(f"{name}: not in this pynvml")
            return None
        try:
            return func(*args)
        except self.error_type as exc:
            self.failed.append(f"{name}: {_error_name(exc)}")
            return None
        except (AttributeError, TypeError, ValueError, OSError) as exc:
            self.failed.append(f"{name}: {type(exc).__name__}")
            return None


def _error_name(exc) -> str:
    name = type(exc).__name__
    return name.replace("NVMLError_", "") if name.startswith("NVMLError_") else str(exc) or name


def _init_failure(exc) -> str:
    name = type(exc).__name__
    value = getattr(exc, "value", None)
    if name == "NVMLError_LibraryNotFound" or value == 12:
        return "the NVML library (libnvidia-ml.so.1) was not found"
    if name == "NVMLError_DriverNotLoaded" or value == 9:
        return "the NVIDIA driver is not loaded"
    if name == "NVMLError_NoPermission" or value == 4:
        return "no permission to talk to the NVIDIA driver"
    return f"NVML could not start: {_error_name(exc)}"


def _gpu(call: _Caller, nvml, handle) -> dict:
    sm = getattr(nvml, "NVML_CLOCK_SM", 1)
    mem = getattr(nvml, "NVML_CLOCK_MEM", 2)
    info = {}
    name = _text(call("nvmlDeviceGetName", handle))
    memory = call("nvmlDeviceGetMemoryInfo", handle)
    cc = call("nvmlDeviceGetCudaComputeCapability", handle)
    pci = call("nvmlDeviceGetPciInfo", handle)
    power_mw = call("nvmlDeviceGetPowerManagementLimit", handle)
    enforced_mw = call("nvmlDeviceGetEnforcedPowerLimit", handle)
    mem_clock = call("nvmlDeviceGetMaxClockInfo", handle, mem)
    bus_width = call("nvmlDeviceGetMemoryBusWidth", handle)
    mig = call("nvmlDeviceGetMigMode", handle)
    ecc = call("nvmlDeviceGetEccMode", handle)
    arch = call("nvmlDeviceGetArchitecture", handle)
    info["name"] = name
    info["memory_bytes"] = getattr(memory, "total", None)
    if isinstance(cc, (tuple, list)) and len(cc) == 2:
        info["compute_capability_str"] = f"{cc[0]}.{cc[1]}"
        info["compute_capability"] = float(f"{cc[0]}.{cc[1]}")
    else:
        info["compute_capability_str"] = info["compute_capability"] = None
    info["architecture"] = _ARCH.get(arch) if isinstance(arch, int) else None
    info["power_limit_w"] = round(power_mw / 1000, 1) if isinstance(power_mw, (int, float)) else None
    info["enforced_power_limit_w"] = (round(enforced_mw / 1000, 1)
                                      if isinstance(enforced_mw, (int, float)) else None)
    info["max_sm_clock_mhz"] = call("nvmlDeviceGetMaxClockInfo", handle, sm)
    info["max_mem_clock_mhz"] = mem_clock
    info["memory_bus_width_bits"] = bus_width
    info["memory_bandwidth_gbps"] = bandwidth_gbps(mem_clock, bus_width)
    info["memory_bandwidth_formula"] = ("max memory clock x bus width x 2 / 8 (theoretical)"
                                        if info["memory_bandwidth_gbps"] else None)
    info["pcie_gen_current"] = call("nvmlDeviceGetCurrPcieLinkGeneration", handle)
    info["pcie_gen_max"] = call("nvmlDeviceGetMaxPcieLinkGeneration", handle)
    info["pcie_width_current"] = call("nvmlDeviceGetCurrPcieLinkWidth", handle)
    info["pcie_width_max"] = call("nvmlDeviceGetMaxPcieLinkWidth", handle)
    info["mig_mode"] = _mode(mig)
    info["ecc_mode"] = _mode(ecc)
    info["uuid"] = _text(call("nvmlDeviceGetUUID", handle))
    info["serial"] = _text(call("nvmlDeviceGetSerial", handle))
    info["minor_number"] = call("nvmlDeviceGetMinorNumber", handle)
    bus_id = _text(getattr(pci, "busId", None)) or _text(getattr(pci, "busIdLegacy", None))
    info["pci_address"] = normalise_bus_id(bus_id)
    dev_id = getattr(pci, "pciDeviceId", None)
    info["pci_id"] = (f"{dev_id & 0xffff:04x}:{dev_id >> 16:04x}"
                      if isinstance(dev_id, int) and dev_id else None)
    return info


def _mode(value) -> str | None:
    """(current, pending) -> "enabled" / "disabled" for the current mode."""
    if isinstance(value, (tuple, list)) and value:
        value = value[0]
    if isinstance(value, int):
        return "enabled" if value == 1 else "disabled"
    return None


def query_nvml(nvml=None) -> dict:
    """Everything NVML says about this machine's GPUs; never raises.

    Returns {"ok": bool, "reason": str|None, "driver_version", "cuda_driver", "gpus": [...],
    "errors": [...]}; ``nvml`` is the pynvml module (injected by tests).
    """
    if nvml is None:
        try:
            import pynvml as nvml
        except ImportError:
            return {"ok": False, "reason": "nvidia-ml-py (pynvml) is not installed", "gpus": []}
    error_type = getattr(nvml, "NVMLError", Exception)
    try:
        nvml.nvmlInit()
    except error_type as exc:
        return {"ok": False, "reason": _init_failure(exc), "gpus": []}
    except (OSError, AttributeError) as exc:
        return {"ok": False, "reason": f"NVML could not start: {exc}", "gpus": []}
    call = _Caller(nvml)
    try:
        out = {"ok": True, "reason": None, "source": "nvml",
               "driver_version": _text(call("nvmlSystemGetDriverVersion")),
               "nvml_version": _text(call("nvmlSystemGetNVMLVersion")),
               "gpus": []}
        cuda = call("nvmlSystemGetCudaDriverVersion_v2")
        if cuda is None:
            cuda = call("nvmlSystemGetCudaDriverVersion")
        out["cuda_driver"] = cuda_version(cuda)
        out["nvidia_driver"] = out["driver_version"]
        count = call("nvmlDeviceGetCount") or 0
        for index in range(count):
            handle = call("nvmlDeviceGetHandleByIndex", index)
            if handle is None:
                continue
            gpu = _gpu(call, nvml, handle)
            gpu["index"] = index
            out["gpus"].append(gpu)
        out["errors"] = call.failed
        return out
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:  # noqa: BLE001 - shutting down must not lose the answers
            pass


def read_procfs(ctx: ProbeContext) -> dict:
    """What the nvidia kernel module says under proc/driver/nvidia (works on any tree)."""
    version_text = ctx.read_text("proc/driver/nvidia/version") or ""
    m = re.search(_VERSION, version_text)
    driver = m.group(1) if m else ctx.read_line("sys/module/nvidia/version")
    gpus = []
    for addr in ctx.listdir("proc/driver/nvidia/gpus"):
        text = ctx.read_text(f"proc/driver/nvidia/gpus/{addr}/information") or ""
        fields = {}
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                fields[key.strip()] = value.strip()
        minor = fields.get("Device Minor")
        gpus.append({
            "name": fields.get("Model") or None,
            "uuid": fields.get("GPU UUID") or None,
            "vbios_version": fields.get("Video BIOS") or None,
            "pci_address": normalise_bus_id(fields.get("Bus Location") or addr),
            "minor_number": int(minor) if minor and minor.isdigit() else None,
        })
    return {"ok": bool(driver or gpus), "source": "procfs", "driver_version": driver,
            "nvidia_driver": driver, "cuda_driver": None, "gpus": gpus,
            "reason": None if (driver or gpus) else "no NVIDIA driver (proc/driver/nvidia)"}


def probe(ctx: ProbeContext) -> dict:
    has_driver = ctx.exists("dev/nvidiactl") or ctx.is_dir("proc/driver/nvidia")
    if not has_driver:
        return {"_status": "absent",
                "_reason": "no NVIDIA driver (no /dev/nvidiactl or /proc/driver/nvidia)",
                "nvml": {"ok": False, "gpus": []}}
    if not ctx.live:
        info = read_procfs(ctx)
        fragment = {"nvml": info}
        if not info["ok"]:
            fragment.update(_status="absent", _reason=info["reason"])
        return fragment
    info = query_nvml()
    if not info.get("ok"):
        procfs = read_procfs(ctx)
        procfs["nvml_error"] = info.get("reason")
        return {"_status": "absent", "_reason": info.get("reason"), "nvml": procfs}
    return {"nvml": info}
