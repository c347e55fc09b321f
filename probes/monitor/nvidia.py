"""NVIDIA GPUs through NVML. Every call can fail on its own: that field is null, never an
exception (an NVMLError, a GPU that fell off the bus, a call this pynvml lacks). NVML is
initialised once and kept; when it cannot start (no driver, driver unloaded) the sampler tries
again every ``RETRY_S`` seconds, so a driver reload is picked up without a restart."""

from __future__ import annotations

import re
import time

from accelgui.probes.gpu_nvidia import _Caller, _text, normalise_bus_id
from accelgui.probes.monitor.telemetry import family_telemetry

RETRY_S = 10.0
#: nvml enums (values from nvml.h), used when the module lacks the constant
_TEMPERATURE_GPU, _PCIE_TX, _PCIE_RX = 0, 0, 1
_ECC_CORRECTED, _ECC_UNCORRECTED, _VOLATILE = 0, 1, 0
_LOST = ("GpuIsLost", "Uninitialized", "DriverNotLoaded")


def dcgm_bus_id(address) -> str | None:
    """A PCI address as DCGM exporter and NVML write it ("0000:1b:00.0" -> "00000000:1B:00.0":
    8 hex digits of domain, upper-case hex), so accelgui's series join DCGM's ``pci_bus_id``;
    None for anything that is not a PCI address (a platform device such as "fdab0000.npu")."""
    if isinstance(address, bytes):
        address = address.decode("ascii", "replace")
    m = re.match(r"^([0-9a-fA-F]{1,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$", str(address or "").strip())
    if not m:
        return None
    return f"{int(m.group(1), 16):08X}:{m.group(2).upper()}:{m.group(3).upper()}.{m.group(4)}"


def throttle_names(mask) -> list[str] | None:
    """The NVML clock event (throttle) reason bits of ``mask`` as names, from the data."""
    if not isinstance(mask, int):
        return None
    bits = family_telemetry("nvidia-gpu")["throttle_bits"]
    return [name for name, bit in bits.items() if mask & bit]


class NvmlSource:
    def __init__(self, nvml=None):
        self.nvml = nvml
        self.ready = False
        self.next_try = 0.0
        self.reason: str | None = None
        self.uuids: dict = {}           # PCI address -> NVML UUID: asked once, it never changes

    def _start(self) -> bool:
        now = time.monotonic()
        if self.ready:
            return True
        if now < self.next_try:
            return False
        self.next_try = now + RETRY_S
        nv = self.nvml
        if nv is None:
            try:
                import pynvml as nv
            except ImportError:
                self.reason = "nvidia-ml-py is not installed"
                return False
            self.nvml = nv
        try:
            nv.nvmlInit()
        except Exception as exc:  # noqa: BLE001 - NVMLError, or OSError loading the library
            self.reason = f"NVML could not start: {type(exc).__name__}"
            return False
        self.ready, self.reason = True, None
        return True

    def close(self) -> None:
        if self.ready:
            self.ready = False
            try:
                self.nvml.nvmlShutdown()
            except Exception:  # noqa: BLE001 - shutting down a library that already went away
                pass

    def sample(self) -> list[dict]:
        if not self._start():
            return []
        call = _Caller(self.nvml)
        count = call("nvmlDeviceGetCount")
        if count is None:
            if any(f.split(": ")[-1] in _LOST for f in call.failed):
                self.close()            # the driver went away: start again later
                self.next_try = time.monotonic() + RETRY_S
            return []
        gpus = []
        for index in range(count):
            handle = call("nvmlDeviceGetHandleByIndex", index)
            if handle is not None:
                gpus.append(self._gpu(call, index, handle))
        return gpus

    def _gpu(self, call: _Caller, index: int, handle) -> dict:
        nv = self.nvml
        const = lambda name, default: getattr(nv, name, default)  # noqa: E731
        pci = call("nvmlDeviceGetPciInfo", handle)
        address = normalise_bus_id(getattr(pci, "busId", None))
        util = call("nvmlDeviceGetUtilizationRates", handle)
        memory = call("nvmlDeviceGetMemoryInfo", handle)
        power = call("nvmlDeviceGetPowerUsage", handle)
        limit = call("nvmlDeviceGetEnforcedPowerLimit", handle)
        reasons = call("nvmlDeviceGetCurrentClocksEventReasons", handle) \
            if hasattr(nv, "nvmlDeviceGetCurrentClocksEventReasons") \
            else call("nvmlDeviceGetCurrentClocksThrottleReasons", handle)
        rx = call("nvmlDeviceGetPcieThroughput", handle, const("NVML_PCIE_UTIL_RX_BYTES", _PCIE_RX))
        tx = call("nvmlDeviceGetPcieThroughput", handle, const("NVML_PCIE_UTIL_TX_BYTES", _PCIE_TX))
        ecc = [call("nvmlDeviceGetTotalEccErrors", handle, kind, const("NVML_VOLATILE_ECC", _VOLATILE))
               for kind in (const("NVML_MEMORY_ERROR_TYPE_CORRECTED", _ECC_CORRECTED),
                            const("NVML_MEMORY_ERROR_TYPE_UNCORRECTED", _ECC_UNCORRECTED))]
        max_sm = call("nvmlDeviceGetMaxClockInfo", handle, const("NVML_CLOCK_SM", 1))
        return {
            "id": f"nvidia-gpu:{address or index}",
            "family": "nvidia-gpu",
            "name": _text(call("nvmlDeviceGetName", handle)),
            "address": address,
            "pci_bus_id": dcgm_bus_id(address),
            "index": index,                     # the NVML index: DCGM exporter's ``gpu`` label
            "uuid": self._uuid(call, handle, address),              # DCGM exporter's ``UUID`` label
            "util_pct": getattr(util, "gpu", None),
            "mem_util_pct": getattr(util, "memory", None),
            "memory_used_bytes": getattr(memory, "used", None),
            "memory_total_bytes": getattr(memory, "total", None),
            "temp_c": call("nvmlDeviceGetTemperature", handle, const("NVML_TEMPERATURE_GPU", _TEMPERATURE_GPU)),
            "power_w": None if power is None else power / 1000.0,
            "power_limit_w": None if limit is None else limit / 1000.0,
            "clock_mhz": call("nvmlDeviceGetClockInfo", handle, const("NVML_CLOCK_SM", 1)),
            "mem_clock_mhz": call("nvmlDeviceGetClockInfo", handle, const("NVML_CLOCK_MEM", 2)),
            "max_clock_mhz": max_sm,
            "throttle": throttle_names(reasons),
            "pcie_rx_bytes_per_s": None if rx is None else rx * 1024,
            "pcie_tx_bytes_per_s": None if tx is None else tx * 1024,
            "ecc_corrected": ecc[0],
            "ecc_uncorrected": ecc[1],
            "processes": self._processes(call, handle),
            "mig": self._mig(call, handle),
        }

    def _uuid(self, call: _Caller, handle, address) -> str | None:
        uuid = self.uuids.get(address)
        if uuid is None:
            uuid = _text(call("nvmlDeviceGetUUID", handle))
            if uuid and address and len(self.uuids) < 1024:
                self.uuids[address] = uuid
        return uuid

    @staticmethod
    def _processes(call: _Caller, handle) -> list[dict] | None:
        seen, any_answer = {}, False
        for name in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
            procs = call(name, handle)
            if procs is None:
                continue
            any_answer = True
            for p in procs:
                pid = getattr(p, "pid", None)
                used = getattr(p, "usedGpuMemory", None)
                if pid is not None:
                    entry = seen.setdefault(pid, {"pid": pid, "memory_bytes": None})
                    if isinstance(used, int) and used >= 0:
                        entry["memory_bytes"] = (entry["memory_bytes"] or 0) + used
        return list(seen.values()) if any_answer else None

    @staticmethod
    def _mig(call: _Caller, handle) -> list[dict] | None:
        mode = call("nvmlDeviceGetMigMode", handle)
        if not isinstance(mode, (tuple, list)) or not mode or mode[0] != 1:
            return None
        out = []
        for i in range(call("nvmlDeviceGetMaxMigDeviceCount", handle) or 0):
            mig = call("nvmlDeviceGetMigDeviceHandleByIndex", handle, i)
            if mig is None:
                continue
            memory = call("nvmlDeviceGetMemoryInfo", mig)
            out.append({"index": i, "name": _text(call("nvmlDeviceGetName", mig)),
                        "uuid": _text(call("nvmlDeviceGetUUID", mig)),
                        "memory_used_bytes": getattr(memory, "used", None),
                        "memory_total_bytes": getattr(memory, "total", None)})
        return out
