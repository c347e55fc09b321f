"""Reports for the GUI tests and screenshots: a rich laptop with a GPU and an NPU and benchmark
results, and a CPU-only cloud VM. Built from public facts (real PCI ids, cache sizes).

When tests/fixtures/reports/rich.json exists (written by the exporters' tests) it is preferred.
"""

from __future__ import annotations

import math
import os
import sys

from accelgui.report import (Cpu, Device, Memory, Platform, ProbeResult, Report,
                             RouteAssessment, Software)

HERE = os.path.dirname(os.path.abspath(__file__))
RICH_JSON = os.path.join(HERE, "fixtures", "reports", "rich.json")
GIB = 1024 ** 3

# A fake benchmark child: prints JSON lines like python -m accelgui.probes.kernels.
FAKE_CHILD = r"""
import json, sys, time, signal
mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
if mode == "ok":
    for i, stage in enumerate(("stream", "fma", "cache_sweep")):
        out({"type": "progress", "stage": stage, "fraction": (i + 1) / 4, "message": stage + " running"})
        time.sleep(0.05)
    out({"type": "result", "benchmarks": {"cpu": {"stream": {"threads": 2, "triad_gbps": 21.5},
         "fma": {"fp64_gflops_1t": 30.0, "fp64_gflops_mt": 58.0}},
         "roofline": {"peak_gflops": 58.0, "peak_gbps": 21.5, "ridge_flops_per_byte": 2.7}}})
elif mode == "crash":
    out({"type": "progress", "stage": "stream", "fraction": 0.1, "message": "warming up"})
    sys.stderr.write("Traceback (most recent call last):\nMemoryError: cannot allocate the STREAM arrays\n")
    sys.stderr.flush()
    sys.exit(3)
elif mode == "error":
    out({"type": "error", "message": "numba is not installed"})
    sys.exit(1)
elif mode == "slow":
    out({"type": "progress", "stage": "stream", "fraction": 0.05, "message": "running"})
    while True:
        time.sleep(0.05)
"""


def fake_child_argv(mode: str) -> list[str]:
    return [sys.executable, "-c", FAKE_CHILD, mode]


def _sweep() -> list[dict]:
    points = []
    for k in range(12, 29):                # 4 KiB .. 256 MiB
        for frac in (0.0, 0.5):
            size = 2 ** (k + frac)
            if size <= 48 * 1024:
                bw = 180.0
            elif size <= 2 * 1024 ** 2:
                bw = 95.0 - 10 * math.log2(size / (48 * 1024)) / 5.4
            elif size <= 24 * 1024 ** 2:
                bw = 48.0 - 4 * math.log2(size / (2 * 1024 ** 2)) / 3.6
            else:
                bw = 19.0
            points.append({"bytes": int(size), "gbps": round(bw, 1)})
    return points


BENCHMARKS = {
    "cpu": {
        "stream": {"threads": 22, "array_bytes": 268435456, "copy_gbps": 62.1, "scale_gbps": 61.4,
                   "add_gbps": 66.8, "triad_gbps": 67.2,
                   "single_thread": {"copy_gbps": 19.2, "scale_gbps": 18.7, "add_gbps": 21.0,
                                     "triad_gbps": 21.3}},
        "fma": {"fp64_gflops_1t": 71.3, "fp64_gflops_mt": 598.0, "fp32_gflops_1t": 142.1,
                "fp32_gflops_mt": 1190.0},
        "latency_ns": {"l1": 1.1, "l2": 4.0, "l3": 17.5, "dram": 98.0},
        "cache_sweep": _sweep(),
        "gemm": {"n": 1024, "dgemm_gflops": 402.0},
        "theoretical": {"fp64_gflops_1t": 72.0, "fp64_gflops_mt": 633.6, "fp32_gflops_1t": 144.0,
                        "fp32_gflops_mt": 1267.2, "clock_mhz": 4500.0, "clock_source": "cpufreq",
                        "vector_bits": 256, "fma_pipes": 2},
    },
    "roofline": {"peak_gflops": 598.0, "peak_gbps": 67.2, "ridge_flops_per_byte": 8.9},
}

ROUTES = [
    RouteAssessment("cpu", "ready", ["22 logical CPUs with avx2, fma, avx_vnni",
                                     "measured triad bandwidth 67.2 GB/s"],
                    ["cpu.numpy-vectorise", "cpu.numba-parallel"], [], "CPU"),
    RouteAssessment("gpu", "ready", ["NVIDIA GeForce RTX 4070 Laptop GPU, compute capability 8.9, driver ready",
                                     "torch 2.9.1 installed"],
                    ["gpu.setup-check", "gpu.gpu-arrays", "gpu.train-pytorch"], [], "GPU"),
    RouteAssessment("npu", "partial", ["Intel NPU (Meteor Lake) bound to intel_vpu",
                                       "OpenVINO is not installed"],
                    [], [{"requirement": "npu.runtime", "fix": "pip install openvino",
                          "fallback": "none"}], "NPU"),
    RouteAssessment("tpu", "remote", ["no TPU on this machine"],
                    ["tpu.jax-basics"], [{"requirement": "tpu.cloud-tpu",
                                          "fix": "Use a Cloud TPU VM or Colab", "fallback": "cloud"}], "TPU"),
    RouteAssessment("fpga", "unavailable", ["no FPGA card and no vendor toolchain"], [],
                    [{"requirement": "fpga.board", "fix": "a supported FPGA board",
                      "fallback": "none"}], "FPGA"),
]

PROBES = [ProbeResult(n, "ok", 3.5, None) for n in
          ("platform", "cpu", "memory", "pci", "usb", "accel", "soc", "nvidia", "software")] + \
         [ProbeResult("amd", "absent", 0.4, "no AMD GPU driver (amdgpu) loaded")]


def rich_report() -> Report:
    if os.path.exists(RICH_JSON):
        from accelgui.report import load_report

        try:
            report = load_report(RICH_JSON)
            if report.devices and report.benchmarks:
                return report
        except ValueError:
            pass
    return built_rich_report()


def built_rich_report() -> Report:
    return Report(
        created="2026-11-29T10:12:00+00:00",
        platform=Platform(os="Linux", os_release="Ubuntu 24.04.1 LTS", kernel="6.8.0-49-generic",
                          machine="x86_64", hostname="lab-laptop-07"),
        cpu=Cpu(vendor_id="GenuineIntel", vendor="intel", model_name="Intel(R) Core(TM) Ultra 7 155H",
                arch="x86_64", microarchitecture="meteorlake", logical_cpus=22, threads_per_core=2,
                cores_per_socket=16, sockets=1, numa_nodes=1,
                flags=["fpu", "sse2", "avx", "avx2", "fma", "avx_vnni", "sha_ni"],
                features=["sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni", "aes", "sha"],
                caches={"l1d": {"size_bytes": 48 * 1024 * 16, "instances": 16},
                        "l2": {"size_bytes": 2 * 1024 ** 2 * 8, "instances": 8},
                        "l3": {"size_bytes": 24 * 1024 ** 2, "instances": 1}},
                max_mhz=4800.0, min_mhz=400.0),
        memory=Memory(total_bytes=32 * GIB, available_bytes=int(21.4 * GIB), numa_nodes=1),
        devices=[
            Device(kind="gpu", vendor="nvidia", name="NVIDIA GeForce RTX 4070 Laptop GPU", bus="pci",
                   address="0000:01:00.0", pci_id="10de:2860", driver="nvidia", readiness="ready",
                   details={"memory_bytes": 8 * GIB, "compute_capability": 8.9,
                            "driver_version": "550.120", "uuid": "GPU-5b7c2e1a-9f0d-4c1e-8a55-0c3d2f1e4b6a"}),
            Device(kind="gpu", vendor="intel", name="Intel Arc Graphics (Meteor Lake-P)", bus="pci",
                   address="0000:00:02.0", pci_id="8086:7d55", driver="i915", integrated=True,
                   readiness="runtime-missing", readiness_reason="no oneAPI / OpenVINO GPU runtime found",
                   fix="pip install openvino (or install Intel's compute-runtime)"),
            Device(kind="npu", vendor="intel", name="Intel NPU (Meteor Lake)", bus="pci",
                   address="0000:00:0b.0", pci_id="8086:7d1d", driver="intel_vpu", integrated=True,
                   readiness="runtime-missing", readiness_reason="/dev/accel/accel0 present; OpenVINO not installed",
                   fix="pip install openvino"),
        ],
        software=Software(packages={"numpy": "2.1.3", "torch": "2.9.1", "numba": "0.62.1",
                                    "onnxruntime": "1.20.1"},
                          toolkits={"cuda_driver": "12.4", "cuda_toolkit": None},
                          providers=["onnxruntime:CPUExecutionProvider"]),
        benchmarks=BENCHMARKS,
        routes=list(ROUTES),
        probes=list(PROBES),
    )


def cpu_only_report() -> Report:
    """A cloud VM with no accelerator and a probe that failed."""
    return Report(
        created="2026-11-29T11:00:00+00:00",
        platform=Platform(os="Linux", os_release="Debian GNU/Linux 12 (bookworm)", kernel="6.1.0-27-cloud-amd64",
                          machine="x86_64", hostname="vm-build-3", virtualization="kvm",
                          cloud={"provider": "gcp", "instance_type": "n2d-standard-4"}),
        cpu=Cpu(vendor_id="AuthenticAMD", vendor="amd", model_name="AMD EPYC 7B13", arch="x86_64",
                microarchitecture="zen3", logical_cpus=4, threads_per_core=2, cores_per_socket=2,
                sockets=1, numa_nodes=1, features=["avx", "avx2", "fma"],
                caches={"l1d": {"size_bytes": 64 * 1024, "instances": 2},
                        "l2": {"size_bytes": 1024 ** 2, "instances": 2},
                        "l3": {"size_bytes": 32 * 1024 ** 2, "instances": 1}}),
        memory=Memory(total_bytes=16 * GIB, available_bytes=14 * GIB, numa_nodes=1),
        devices=[],
        routes=[RouteAssessment("cpu", "ready", ["4 logical CPUs with avx2"], ["cpu.numpy-vectorise"]),
                RouteAssessment("gpu", "remote", ["no GPU found"], ["gpu.setup-check"],
                                [{"requirement": "gpu.compute-gpu", "fix": None, "fallback": "cloud"}])],
        probes=[ProbeResult("platform", "ok", 2.0), ProbeResult("cpu", "ok", 5.0),
                ProbeResult("pci", "ok", 1.0),
                ProbeResult("nvidia", "error", 12.0, "NVMLError: driver/library version mismatch (gpu_nvidia.py:88)"),
                ProbeResult("usb", "timeout", 5000.0, "no answer within 5 s")],
    )
