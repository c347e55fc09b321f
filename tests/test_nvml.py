"""The NVIDIA probe against a fake pynvml module (CI has no GPU).

The fake implements the handful of NVML calls the probe makes, with pynvml's error classes
(NVMLError and the generated NVMLError_<Name> subclasses), so that success, a missing
library, an unloaded driver and errors in the middle of a query can all be exercised.
"""

import sys
import types
from pathlib import Path

import pytest

from accelgui.probes import gpu_nvidia, inventory
from accelgui.probes.context import ProbeContext

MACHINES = Path(__file__).parent / "fixtures" / "machines"


class NVMLError(Exception):
    def __init__(self, value):
        super().__init__(value)
        self.value = value


def _error(name, value):
    return type(f"NVMLError_{name}", (NVMLError,), {"__init__": lambda self: NVMLError.__init__(self, value)})


NotSupported = _error("NotSupported", 3)
NoPermission = _error("NoPermission", 4)
DriverNotLoaded = _error("DriverNotLoaded", 9)
LibraryNotFound = _error("LibraryNotFound", 12)

H100 = {"name": "NVIDIA H100 80GB HBM3", "total": 85520809984, "cc": (9, 0),
        "bus": "00000000:1B:00.0", "pci_id": 0x233010DE, "power": 700000, "sm": 1980,
        "mem": 2619, "width": 5120, "mig": (0, 0), "ecc": (1, 1), "arch": 9,
        "uuid": "GPU-1c3a7b2e-4f5d-6a7b-8c9d-0e1f2a3b4c00", "serial": "1650123456789"}


def fake_nvml(gpus=(H100,), init_error=None, failing=(), driver="550.54.15", cuda=12040):
    """A module object shaped like pynvml; ``failing`` maps function names to errors."""
    nv = types.ModuleType("pynvml")
    nv.NVMLError = NVMLError
    nv.NVMLError_NotSupported = NotSupported
    nv.NVML_CLOCK_SM, nv.NVML_CLOCK_MEM = 1, 2
    nv.calls = []
    nv.shut_down = False
    failing = dict(failing)

    def api(name, func):
        def wrapper(*args):
            nv.calls.append(name)
            if name in failing:
                raise failing[name]()
            return func(*args)
        setattr(nv, name, wrapper)

    def init():
        if init_error:
            raise init_error()
    api("nvmlInit", init)

    def shutdown():
        nv.shut_down = True
    api("nvmlShutdown", shutdown)
    api("nvmlSystemGetDriverVersion", lambda: driver)
    api("nvmlSystemGetNVMLVersion", lambda: "12.550.54.15")
    api("nvmlSystemGetCudaDriverVersion_v2", lambda: cuda)
    api("nvmlDeviceGetCount", lambda: len(gpus))
    api("nvmlDeviceGetHandleByIndex", lambda i: gpus[i])
    api("nvmlDeviceGetName", lambda h: h["name"])
    api("nvmlDeviceGetMemoryInfo", lambda h: types.SimpleNamespace(total=h["total"], used=0))
    api("nvmlDeviceGetCudaComputeCapability", lambda h: h["cc"])
    api("nvmlDeviceGetPciInfo", lambda h: types.SimpleNamespace(busId=h["bus"],
                                                                pciDeviceId=h["pci_id"]))
    api("nvmlDeviceGetPowerManagementLimit", lambda h: h["power"])
    api("nvmlDeviceGetEnforcedPowerLimit", lambda h: h["power"])
    api("nvmlDeviceGetMaxClockInfo", lambda h, kind: h["sm"] if kind == 1 else h["mem"])
    api("nvmlDeviceGetMemoryBusWidth", lambda h: h["width"])
    api("nvmlDeviceGetCurrPcieLinkGeneration", lambda h: 5)
    api("nvmlDeviceGetMaxPcieLinkGeneration", lambda h: 5)
    api("nvmlDeviceGetCurrPcieLinkWidth", lambda h: 16)
    api("nvmlDeviceGetMaxPcieLinkWidth", lambda h: 16)
    api("nvmlDeviceGetMigMode", lambda h: h["mig"])
    api("nvmlDeviceGetEccMode", lambda h: h["ecc"])
    api("nvmlDeviceGetArchitecture", lambda h: h["arch"])
    api("nvmlDeviceGetUUID", lambda h: h["uuid"])
    api("nvmlDeviceGetSerial", lambda h: h["serial"])
    api("nvmlDeviceGetMinorNumber", lambda h: 0)
    return nv


class LiveContext(ProbeContext):
    """A recorded tree treated as the running system (so the probe uses NVML)."""

    @property
    def live(self):
        return True


def test_success_fills_every_field():
    nv = fake_nvml()
    info = gpu_nvidia.query_nvml(nv)
    assert info["ok"] and info["driver_version"] == "550.54.15"
    assert info["cuda_driver"] == "12.4"
    gpu, = info["gpus"]
    assert gpu["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["memory_bytes"] == 85520809984
    assert gpu["compute_capability"] == 9.0 and gpu["compute_capability_str"] == "9.0"
    assert gpu["pci_address"] == "0000:1b:00.0"
    assert gpu["pci_id"] == "10de:2330"
    assert gpu["power_limit_w"] == 700.0
    assert gpu["max_sm_clock_mhz"] == 1980 and gpu["max_mem_clock_mhz"] == 2619
    assert gpu["memory_bandwidth_gbps"] == pytest.approx(3352.3, abs=0.1)
    assert gpu["pcie_gen_current"] == 5 and gpu["pcie_width_max"] == 16
    assert gpu["mig_mode"] == "disabled" and gpu["ecc_mode"] == "enabled"
    assert gpu["architecture"] == "Hopper"
    assert gpu["uuid"].startswith("GPU-")
    assert info["errors"] == []
    assert nv.shut_down


def test_missing_library_is_an_honest_absence(monkeypatch):
    info = gpu_nvidia.query_nvml(fake_nvml(init_error=LibraryNotFound))
    assert not info["ok"] and "libnvidia-ml.so.1" in info["reason"]
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(init_error=LibraryNotFound))
    fragment = gpu_nvidia.probe(LiveContext(root=str(MACHINES / "acc-dgx-h100")))
    assert fragment["_status"] == "absent" and "libnvidia-ml" in fragment["_reason"]
    # what the kernel module says is still used: the GPUs keep their driver's names
    assert len(fragment["nvml"]["gpus"]) == 8 and fragment["nvml"]["source"] == "procfs"


def test_driver_not_loaded():
    nv = fake_nvml(init_error=DriverNotLoaded)
    info = gpu_nvidia.query_nvml(nv)
    assert not info["ok"] and "driver is not loaded" in info["reason"]
    assert "nvmlDeviceGetCount" not in nv.calls


def test_pynvml_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)      # import raises ImportError
    info = gpu_nvidia.query_nvml()
    assert not info["ok"] and "nvidia-ml-py" in info["reason"]


def test_error_in_the_middle_of_a_query_leaves_one_field_null():
    nv = fake_nvml(failing={"nvmlDeviceGetPowerManagementLimit": NotSupported,
                            "nvmlDeviceGetSerial": NoPermission})
    info = gpu_nvidia.query_nvml(nv)
    gpu, = info["gpus"]
    assert gpu["power_limit_w"] is None and gpu["serial"] is None
    assert gpu["memory_bytes"] == 85520809984 and gpu["compute_capability"] == 9.0
    assert gpu["max_mem_clock_mhz"] == 2619                 # calls after the failure still ran
    assert "nvmlDeviceGetPowerManagementLimit: NotSupported" in info["errors"]
    assert nv.shut_down


def test_no_probe_without_a_driver(tmp_path, monkeypatch):
    nv = fake_nvml()
    monkeypatch.setitem(sys.modules, "pynvml", nv)
    fragment = gpu_nvidia.probe(LiveContext(root=str(tmp_path)))
    assert fragment["_status"] == "absent"
    assert nv.calls == []                                   # the cheap check came first


def test_nvml_details_merge_into_the_pci_devices(monkeypatch):
    """NVML facts land on the matching PCI device (by address), never as a second device."""
    gpus = [dict(H100, bus=f"00000000:{b}:00.0", uuid=f"GPU-0000000{i}-aaaa-bbbb-cccc-dddddddddddd")
            for i, b in enumerate(("1B", "43", "52", "61", "9D", "C3", "D1", "DF"))]
    monkeypatch.setitem(sys.modules, "pynvml", fake_nvml(gpus=gpus))
    from accelgui.probes import pci

    ctx = LiveContext(root=str(MACHINES / "acc-dgx-h100"))
    priv = {}
    for mod in (pci, gpu_nvidia):
        priv.update({k: v for k, v in mod.probe(ctx).items() if not k.startswith("_")})
    sections = inventory.finalize({"_private": priv, "software": {"toolkits": {}}})
    devs = sections["devices"]
    assert len(devs) == 8
    first = devs[0]
    assert first["address"] == "0000:1b:00.0"
    assert first["details"]["memory_bytes"] == 85520809984
    assert first["details"]["memory_source"] == "nvml"
    assert first["details"]["memory_bandwidth_gbps"] == pytest.approx(3352.3, abs=0.1)
    assert first["readiness"] == "ready"                    # NVML answered: the runtime is there
    assert sections["software"]["toolkits"]["cuda_driver"] == "12.4"


def test_procfs_under_sysroot():
    info = gpu_nvidia.read_procfs(ProbeContext(root=str(MACHINES / "acc-dgx-h100")))
    assert info["driver_version"] == "550.54.15"
    assert [g["minor_number"] for g in info["gpus"]] == list(range(8))
    assert info["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"


@pytest.mark.parametrize("raw,expected", [
    ("00000000:1B:00.0", "0000:1b:00.0"), ("0000:c3:00.0", "0000:c3:00.0"),
    (b"00000001:01:00.1", "0001:01:00.1"), ("garbage", None), ("", None)])
def test_bus_id_normalisation(raw, expected):
    assert gpu_nvidia.normalise_bus_id(raw) == expected


def test_bandwidth_and_cuda_version_formulas():
    assert gpu_nvidia.bandwidth_gbps(10501, 384) == pytest.approx(1008.1, abs=0.1)  # RTX 4090
    assert gpu_nvidia.bandwidth_gbps(None, 384) is None
    assert gpu_nvidia.cuda_version(12040) == "12.4"
    assert gpu_nvidia.cuda_version(13000) == "13.0"
    assert gpu_nvidia.cuda_version(None) is None
