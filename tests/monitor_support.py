"""Recorded telemetry for the monitor's tests, the benchmark and the screenshots.

``TelemetryTree(root)`` lays out, in a temporary directory, the files the sampler reads on a
machine with 4 CPUs, 2 NUMA nodes, RAPL, coretemp, an AMD GPU (amdgpu), an Intel Arc GPU (i915,
one client busy in /proc/<pid>/fdinfo), an Intel NPU (intel_vpu) and a Rockchip NPU (devfreq);
``advance(seconds, ...)`` rewrites the counters as the next sample would find them, and
``unplug`` / ``replug`` remove and restore a device, as a hot-unplug or driver reload does.
The file layouts follow the kernel's documentation (cited in the telemetry entries of probes/data/families/*.json).

``monitor_nvml(gpus)`` grows the fake pynvml of tests/test_nvml.py with the calls the sampler
makes; each GPU is a dict the test may change between samples, and ``failing`` (a dict on the
module) can be changed between samples too.
"""

from __future__ import annotations

import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_nvml import H100, NVMLError, _error, fake_nvml

GpuIsLost = _error("GpuIsLost", 15)
DriverNotLoaded = _error("DriverNotLoaded", 9)
NotSupported = _error("NotSupported", 3)


class TelemetryTree:
    def __init__(self, root: str, cpus: int = 4):
        self.root = str(root)
        self.cpus = cpus
        self.ticks = [[1000, 0, 500, 8000, 100, 0, 0, 0] for _ in range(cpus)]
        self.ctxt = 1_000_000
        self.energy_uj = 5_000_000
        self.npu_busy_us = 1_000_000
        self.engine_ns = 10_000_000_000
        self.mhz = [3700.0] * cpus
        self.throttle = 0
        self.temp_c = 62.0
        self.build()

    def write(self, rel: str, text) -> None:
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(f"{text}\n")

    def link(self, rel: str, target: str) -> None:
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(target, path)

    def build(self) -> None:
        w = self.write
        w("proc/loadavg", "1.50 1.20 0.90 2/300 4242")
        w("proc/meminfo", "MemTotal:       32768000 kB\nMemFree:        16000000 kB\n"
                          "MemAvailable:   20000000 kB\nSwapTotal:       2097148 kB\nSwapFree:        1048574 kB")
        for node, free in ((0, 8000000), (1, 8000000)):
            w(f"sys/devices/system/node/node{node}/meminfo",
              f"Node {node} MemTotal:       16384000 kB\nNode {node} MemFree:        {free} kB")
        w("sys/class/powercap/intel-rapl:0/name", "package-0")
        w("sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850")
        w("sys/class/powercap/intel-rapl:0:0/name", "core")
        w("sys/class/hwmon/hwmon0/name", "coretemp")
        w("sys/class/hwmon/hwmon0/temp1_label", "Package id 0")
        w("sys/class/hwmon/hwmon0/temp1_max", "80000")
        w("sys/class/hwmon/hwmon0/temp1_crit", "100000")
        w("sys/class/hwmon/hwmon1/name", "nct6775")
        w("sys/class/hwmon/hwmon1/fan1_input", "1200")
        self.plug_amd()
        self.plug_intel_gpu()
        self.plug_npu()
        w("sys/devices/platform/fdab0000.npu/devfreq/fdab0000.npu/load", "40@1000000000Hz")
        w("sys/devices/platform/fdab0000.npu/devfreq/fdab0000.npu/cur_freq", "1000000000")
        w("sys/devices/platform/fdab0000.npu/devfreq/fdab0000.npu/max_freq", "1000000000")
        self.link("sys/class/devfreq/fdab0000.npu", "../../devices/platform/fdab0000.npu/devfreq/fdab0000.npu")
        self.link("sys/devices/platform/fdab0000.npu/devfreq/fdab0000.npu/device", "../../../fdab0000.npu")
        self.update()

    def _pci(self, bdf: str, cls: str, node: str, driver: str) -> str:
        dev = f"sys/devices/pci0000:00/{bdf}"
        self.link(f"{dev}/driver", f"../../../bus/pci/drivers/{driver}")
        os.makedirs(os.path.join(self.root, f"{dev}/{cls}/{node}"), exist_ok=True)
        self.link(f"{dev}/{cls}/{node}/device", "../../../" + bdf)
        self.link(f"sys/class/{cls}/{node}", f"../../devices/pci0000:00/{bdf}/{cls}/{node}")
        return dev

    def plug_amd(self) -> None:
        dev = self._pci("0000:03:00.0", "drm", "card1", "amdgpu")
        w = self.write
        w(f"{dev}/gpu_busy_percent", "87")
        w(f"{dev}/mem_busy_percent", "35")
        w(f"{dev}/mem_info_vram_used", str(6 << 30))
        w(f"{dev}/mem_info_vram_total", str(16 << 30))
        w(f"{dev}/hwmon/hwmon5/temp1_input", "71000")
        w(f"{dev}/hwmon/hwmon5/power1_average", "245000000")
        w(f"{dev}/hwmon/hwmon5/power1_cap", "300000000")
        w(f"{dev}/pp_dpm_sclk", "0: 500Mhz\n1: 1800Mhz\n2: 2500Mhz *")
        w(f"{dev}/pp_dpm_mclk", "0: 96Mhz\n1: 1250Mhz *")

    def plug_intel_gpu(self) -> None:
        dev = self._pci("0000:04:00.0", "drm", "card2", "i915")
        self.write(f"{dev}/drm/card2/gt_act_freq_mhz", "2050")
        self.write(f"{dev}/hwmon/hwmon6/temp1_input", "55000")

    def plug_npu(self) -> None:
        dev = self._pci("0000:00:0b.0", "accel", "accel0", "intel_vpu")
        self.write(f"{dev}/npu_current_frequency_mhz", "1400")
        self.write(f"{dev}/npu_max_frequency_mhz", "1850")
        self.write(f"{dev}/npu_memory_utilization", str(512 << 20))

    def unplug(self, node: str) -> None:
        """The class link and the driver disappear, as on a hot-unplug or an unbound driver."""
        for cls in ("drm", "accel"):
            path = os.path.join(self.root, f"sys/class/{cls}/{node}")
            if os.path.lexists(path):
                os.unlink(path)

    def update(self) -> None:
        w = self.write
        lines = []
        total = [sum(col) for col in zip(*self.ticks)]
        lines.append("cpu  " + " ".join(map(str, total)))
        lines += [f"cpu{i} " + " ".join(map(str, t)) for i, t in enumerate(self.ticks)]
        lines.append(f"ctxt {self.ctxt}")
        w("proc/stat", "\n".join(lines))
        for i, mhz in enumerate(self.mhz):
            w(f"sys/devices/system/cpu/cpu{i}/cpufreq/scaling_cur_freq", str(int(mhz * 1000)))
            w(f"sys/devices/system/cpu/cpu{i}/thermal_throttle/package_throttle_count", str(self.throttle))
        w("sys/class/powercap/intel-rapl:0/energy_uj", str(self.energy_uj))
        w("sys/class/powercap/intel-rapl:0:0/energy_uj", str(self.energy_uj // 2))
        w("sys/class/hwmon/hwmon0/temp1_input", str(int(self.temp_c * 1000)))
        w("sys/devices/pci0000:00/0000:00:0b.0/npu_busy_time_us", str(self.npu_busy_us))
        # one process with the Intel GPU open twice (the same client through a dup'ed fd)
        self.write("proc/4242/comm", "blender")
        for fd in ("5", "6"):
            self.link(f"proc/4242/fd/{fd}", "/dev/dri/renderD129")
            w(f"proc/4242/fdinfo/{fd}", "pos:\t0\nflags:\t02100002\ndrm-driver:\ti915\n"
                                        "drm-pdev:\t0000:04:00.0\ndrm-client-id:\t17\n"
                                        f"drm-engine-render:\t{self.engine_ns} ns\n"
                                        "drm-engine-video:\t0 ns\ndrm-memory-local:\t2048 KiB")
        self.link("proc/4242/fd/0", "/dev/null")

    def advance(self, seconds: float, busy: float = 0.5, watts: float = 65.0, npu_busy: float = 0.25,
                render_busy: float = 0.8) -> None:
        """Counters as ``seconds`` later: each CPU ``busy`` of the time, the package drawing
        ``watts``, the NPU busy ``npu_busy``, the Intel GPU's render engine ``render_busy``."""
        ticks = int(seconds * 100)
        for t in self.ticks:
            t[0] += int(ticks * busy)
            t[3] += ticks - int(ticks * busy)
        self.ctxt += int(5000 * seconds)
        self.energy_uj += int(watts * seconds * 1e6)
        self.npu_busy_us += int(npu_busy * seconds * 1e6)
        self.engine_ns += int(render_busy * seconds * 1e9)
        self.update()


class FakeClock:
    """time.monotonic for the sampler under test, moved by hand."""

    def __init__(self, start: float = 1000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now


def gpu(i: int, **over) -> dict:
    g = dict(H100, bus=f"00000000:{0x1b + i:02X}:00.0", uuid=f"GPU-0000000{i}-aaaa-bbbb-cccc-dddddddddddd",
             util=(50 + i, 20), used=(10 + i) << 30, temp=60 + i, power_mw=400000 + i * 1000,
             clock=(1980, 2619), reasons=0, pcie=(1000, 2000), ecc_counts=(0, 0),
             procs=[types.SimpleNamespace(pid=1000 + i, usedGpuMemory=(2 << 30))], mig_devices=[])
    g.update(over)
    return g


def monitor_nvml(gpus, failing=None):
    """The fake pynvml of test_nvml with the telemetry calls; ``gpus`` is a list the test
    may change (append, pop) between samples; ``nv.failing`` maps call names to errors."""
    nv = fake_nvml(gpus=gpus)
    nv.failing = dict(failing or {})
    nv.NVML_TEMPERATURE_GPU = 0
    nv.NVML_PCIE_UTIL_TX_BYTES, nv.NVML_PCIE_UTIL_RX_BYTES = 0, 1
    nv.NVML_MEMORY_ERROR_TYPE_CORRECTED, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 0, 1
    nv.NVML_VOLATILE_ECC = 0

    def api(name, func):
        def wrapper(*args):
            nv.calls.append(name)
            if name in nv.failing:
                raise nv.failing[name]()
            return func(*args)
        setattr(nv, name, wrapper)

    for name in [n for n in vars(nv) if n.startswith("nvml")]:
        api(name, getattr(nv, name))       # nv.failing applies to the fake's own calls too
    api("nvmlDeviceGetCount", lambda: len(gpus))
    api("nvmlDeviceGetHandleByIndex", lambda i: gpus[i])
    api("nvmlDeviceGetUtilizationRates", lambda h: types.SimpleNamespace(gpu=h["util"][0], memory=h["util"][1]))
    api("nvmlDeviceGetMemoryInfo", lambda h: types.SimpleNamespace(total=h["total"], used=h["used"],
                                                                    free=h["total"] - h["used"]))
    api("nvmlDeviceGetTemperature", lambda h, sensor: h["temp"])
    api("nvmlDeviceGetPowerUsage", lambda h: h["power_mw"])
    api("nvmlDeviceGetClockInfo", lambda h, kind: h["clock"][0] if kind == 1 else h["clock"][1])
    api("nvmlDeviceGetCurrentClocksEventReasons", lambda h: h["reasons"])
    api("nvmlDeviceGetPcieThroughput", lambda h, kind: h["pcie"][kind])
    api("nvmlDeviceGetTotalEccErrors", lambda h, kind, counter: h["ecc_counts"][kind])
    api("nvmlDeviceGetComputeRunningProcesses", lambda h: h["procs"])
    api("nvmlDeviceGetGraphicsRunningProcesses", lambda h: [])
    api("nvmlDeviceGetMaxMigDeviceCount", lambda h: len(h["mig_devices"]))
    api("nvmlDeviceGetMigDeviceHandleByIndex", lambda h, i: h["mig_devices"][i])
    return nv


__all__ = ["H100", "NVMLError", "GpuIsLost", "DriverNotLoaded", "NotSupported", "TelemetryTree", "FakeClock",
           "gpu", "monitor_nvml"]
