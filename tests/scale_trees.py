"""Synthetic machine trees of any size, for the scale test and benchmark (tests/test_scale.py,
tests/benchmarks/bench_scale.py).

``cpu_tree``: N CPUs laid out as the kernel does (2 threads per core, cores in sockets of
``per_socket`` CPUs, one NUMA node per socket): ``cpuN/topology`` masks and lists,
``cpuN/cache/indexK`` (L1d, L1i, L2 private to the core, L3 per socket; ``with_ids=False``
leaves the cache ``id`` files out, so instances come from the shared maps as on DT Arm
boards), cpufreq limits, a compact Arm cpuinfo. ``gpu_tree``: N PCI display functions (NVIDIA
vendor id) as ``sys/bus/pci/devices`` links into ``sys/devices/pci*/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
from make_cpu_trees import cpumask  # the kernel's %*pb format: one builder for both


def cpulist(lo: int, hi: int) -> str:
    return f"{lo}-{hi}" if hi > lo else f"{lo}"


def _write(path: Path, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def cpu_tree(root: Path, n: int, *, per_socket: int = 128, with_ids: bool = True,
             caches: bool = True, minimal: bool = False) -> Path:
    """``minimal``: only ``thread_siblings``, ``core_siblings_list`` and
    ``physical_package_id`` per CPU (what a quick unit test needs), no caches, no cpufreq."""
    base = root / "sys/devices/system/cpu"
    base.mkdir(parents=True, exist_ok=True)
    for name in ("possible", "present", "online"):
        _write(base / name, cpulist(0, n - 1) + "\n")
    nsock = max(1, (n + per_socket - 1) // per_socket)
    masks: dict[tuple, str] = {}           # identical texts written from one string

    def mask(lo, hi):
        key = (lo, hi)
        if key not in masks:
            masks[key] = cpumask(range(lo, hi + 1), n) + "\n"
        return masks[key]

    for cpu in range(n):
        core0 = cpu - cpu % 2
        s = cpu // per_socket
        slo, shi = s * per_socket, min(n, (s + 1) * per_socket) - 1
        tp = base / f"cpu{cpu}/topology"
        tp.mkdir(parents=True)
        _write(tp / "thread_siblings", mask(core0, min(core0 + 1, n - 1)))
        _write(tp / "core_siblings_list", cpulist(slo, shi) + "\n")
        _write(tp / "physical_package_id", f"{s}\n")
        if minimal:
            continue
        _write(tp / "thread_siblings_list", cpulist(core0, min(core0 + 1, n - 1)) + "\n")
        _write(tp / "core_siblings", mask(slo, shi))
        _write(tp / "core_id", f"{(cpu - slo) // 2}\n")
        if caches:
            for k, (level, ctype, size, lo, hi, cid) in enumerate((
                    (1, "Data", "64K", core0, core0 + 1, core0 // 2),
                    (1, "Instruction", "64K", core0, core0 + 1, core0 // 2),
                    (2, "Unified", "1024K", core0, core0 + 1, core0 // 2),
                    (3, "Unified", "32768K", slo, shi, s))):
                d = base / f"cpu{cpu}/cache/index{k}"
                d.mkdir(parents=True)
                _write(d / "level", f"{level}\n")
                _write(d / "type", f"{ctype}\n")
                _write(d / "size", f"{size}\n")
                _write(d / "shared_cpu_map", mask(lo, min(hi, n - 1)))
                if with_ids:
                    _write(d / "id", f"{cid}\n")
        fq = base / f"cpu{cpu}/cpufreq"
        fq.mkdir()
        _write(fq / "cpuinfo_max_freq", "3000000\n")
        _write(fq / "cpuinfo_min_freq", "1000000\n")
    for s in range(nsock):
        d = root / f"sys/devices/system/node/node{s}"
        d.mkdir(parents=True)
        _write(d / "cpulist", cpulist(s * per_socket, min(n, (s + 1) * per_socket) - 1) + "\n")
    (root / "proc").mkdir(exist_ok=True)
    block = ("BogoMIPS\t: 2000.00\nFeatures\t: fp asimd atomics cpuid asimdrdm\n"
             "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\n"
             "CPU part\t: 0xd40\nCPU revision\t: 1\n\n")
    with open(root / "proc/cpuinfo", "w") as f:
        for cpu in range(n):
            f.write(f"processor\t: {cpu}\n{block}")
    return root


def gpu_tree(root: Path, n: int) -> Path:
    """N NVIDIA display functions (10de:2330, class 0x030200) under 8 host bridges."""
    bus = root / "sys/bus/pci/devices"
    bus.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        dom, b = i // 256, i % 256
        bridge = f"pci{dom:04x}:00"
        addr = f"{dom:04x}:{b:02x}:00.0"
        d = root / "sys/devices" / bridge / addr
        d.mkdir(parents=True)
        for name, value in (("vendor", "0x10de"), ("device", "0x2330"), ("class", "0x030200"),
                            ("subsystem_vendor", "0x10de"), ("subsystem_device", "0x16c1"),
                            ("numa_node", str(dom)), ("current_link_speed", "32.0 GT/s PCIe"),
                            ("current_link_width", "16"), ("max_link_speed", "32.0 GT/s PCIe"),
                            ("max_link_width", "16")):
            _write(d / name, value + "\n")
        os.symlink(f"../../../devices/{bridge}/{addr}", bus / addr)
    return root
