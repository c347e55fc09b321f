"""CPU probe against recorded machine trees, cross-checked with ``lscpu --sysroot``.

Every ``cpu-*`` tree under tests/fixtures/machines/ (built by make_cpu_trees.py the way the
kernel lays out procfs and sysfs) has its expected lscpu-style figures written out below,
so the tests run anywhere; where util-linux's lscpu is installed the same figures are also
compared with what it prints for the tree.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui.probes import cpu
from accelgui.probes.context import ProbeContext

MACHINES = Path(__file__).parent / "fixtures" / "machines"
KIB, MIB = 1024, 1024 * 1024


def c(l1d, l1d_n, l1i, l1i_n, l2, l2_n, l3=None, l3_n=None):
    out = {"l1d": {"size_bytes": l1d, "instances": l1d_n},
           "l1i": {"size_bytes": l1i, "instances": l1i_n},
           "l2": {"size_bytes": l2, "instances": l2_n}}
    if l3 is not None:
        out["l3"] = {"size_bytes": l3, "instances": l3_n}
    return out


# util-linux's dump arm-A510-A710-A715-X3 (a 5.15 kernel numbers each DT cluster as a
# package) and the same SoC as a 6.x kernel lays it out (package 0, cluster_id per cluster)
_SM8550 = dict(
    vendor_id="ARM", vendor="arm", arch="aarch64", model_name="Cortex-A510",
    microarchitecture="neoverse_n1", logical_cpus=8, online_cpus=8, threads_per_core=1,
    cores_per_socket=8, sockets=1, max_mhz=3187.2, min_mhz=307.2, hypervisor_vendor=None,
    caches=c(416 * KIB, 8, 416 * KIB, 8, 3456 * KIB, 7, 8 * MIB, 1))

# lscpu-style figures per tree (what `lscpu --sysroot TREE` prints, see lscpu_fields below)
EXPECTED = {
    "cpu-intel-desktop": dict(
        vendor_id="GenuineIntel", vendor="intel", arch="x86_64",
        model_name="13th Gen Intel(R) Core(TM) i9-13900K", microarchitecture="raptorlake",
        logical_cpus=32, online_cpus=32, threads_per_core=2, cores_per_socket=24, sockets=1,
        numa_nodes=1, max_mhz=5800.0, min_mhz=800.0, hypervisor_vendor=None,
        caches=c(896 * KIB, 24, 1280 * KIB, 24, 32 * MIB, 12, 36 * MIB, 1)),
    "cpu-amd-epyc-2s": dict(
        vendor_id="AuthenticAMD", vendor="amd", arch="x86_64",
        model_name="AMD EPYC 7252 8-Core Processor", microarchitecture="zen2",
        logical_cpus=32, online_cpus=32, threads_per_core=2, cores_per_socket=8, sockets=2,
        numa_nodes=2, max_mhz=3200.0, min_mhz=1500.0, hypervisor_vendor=None,
        caches=c(512 * KIB, 16, 512 * KIB, 16, 8 * MIB, 16, 128 * MIB, 8)),
    "cpu-aarch64-board": dict(
        vendor_id="ARM", vendor="arm", arch="aarch64", model_name="Cortex-A76",
        microarchitecture="neoverse_n1", logical_cpus=4, online_cpus=4, threads_per_core=1,
        cores_per_socket=4, sockets=1, numa_nodes=1, max_mhz=2400.0, min_mhz=1500.0,
        hypervisor_vendor=None, caches=c(256 * KIB, 4, 256 * KIB, 4, 2 * MIB, 4, 2 * MIB, 1)),
    "cpu-aarch64-server": dict(
        vendor_id="ARM", vendor="arm", arch="aarch64", model_name="Neoverse-V2",
        microarchitecture="neoverse_v2", logical_cpus=16, online_cpus=16, threads_per_core=1,
        cores_per_socket=16, sockets=1, numa_nodes=1, max_mhz=None, min_mhz=None,
        hypervisor_vendor="KVM", caches=c(1 * MIB, 16, 1 * MIB, 16, 32 * MIB, 16, 36 * MIB, 1)),
    "cpu-cloud-vm-aws": dict(
        vendor_id="GenuineIntel", vendor="intel", arch="x86_64",
        model_name="Intel(R) Xeon(R) Platinum 8488C", microarchitecture="sapphirerapids",
        logical_cpus=8, online_cpus=8, threads_per_core=2, cores_per_socket=4, sockets=1,
        numa_nodes=1, max_mhz=None, min_mhz=None, hypervisor_vendor="KVM",
        caches=c(192 * KIB, 4, 128 * KIB, 4, 8 * MIB, 4, 105 * MIB, 1)),
    "cpu-cloud-vm-gcp": dict(
        vendor_id="GenuineIntel", vendor="intel", arch="x86_64",
        model_name="Intel(R) Xeon(R) CPU @ 2.60GHz", microarchitecture="icelake",
        logical_cpus=4, online_cpus=4, threads_per_core=2, cores_per_socket=2, sockets=1,
        numa_nodes=1, max_mhz=None, min_mhz=None, hypervisor_vendor="KVM",
        caches=c(96 * KIB, 2, 64 * KIB, 2, 2560 * KIB, 2, 54 * MIB, 1)),
    "cpu-cloud-vm-azure": dict(
        vendor_id="AuthenticAMD", vendor="amd", arch="x86_64",
        model_name="AMD EPYC 7763 64-Core Processor", microarchitecture="zen3",
        logical_cpus=8, online_cpus=8, threads_per_core=2, cores_per_socket=4, sockets=1,
        numa_nodes=1, max_mhz=None, min_mhz=None, hypervisor_vendor="Microsoft",
        caches=c(128 * KIB, 4, 128 * KIB, 4, 2 * MIB, 4, 32 * MIB, 1)),
    "cpu-broken": dict(
        vendor_id="GenuineIntel", vendor="intel", arch="x86_64",
        model_name="Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz", microarchitecture="skylake",  # by family/model
        logical_cpus=4, online_cpus=3, threads_per_core=1, cores_per_socket=3, sockets=1,
        numa_nodes=1, max_mhz=3400.0, min_mhz=800.0, hypervisor_vendor=None,
        caches=c(64 * KIB, 2, 64 * KIB, 2, 512 * KIB, 2, 8 * MIB, 1)),
    "cpu-ppc64le": dict(
        vendor_id=None, vendor="ibm", arch="ppc64le",
        model_name="POWER9 (architected), altivec supported", microarchitecture="power9le",
        logical_cpus=16, online_cpus=16, threads_per_core=4, cores_per_socket=4, sockets=1,
        numa_nodes=1, max_mhz=None, min_mhz=None, hypervisor_vendor="pHyp",
        caches=c(128 * KIB, 4, 128 * KIB, 4, 2 * MIB, 4, 40 * MIB, 4)),
    "cpu-s390x": dict(
        vendor_id="IBM/S390", vendor="ibm", arch="s390x", model_name=None,
        microarchitecture=None, logical_cpus=8, online_cpus=8, threads_per_core=2,
        cores_per_socket=2, sockets=1, numa_nodes=1, max_mhz=5200.0, min_mhz=None,
        hypervisor_vendor="IBM",             # sockets: per book, as lscpu prints for s390
        caches={"l1d": {"size_bytes": 512 * KIB, "instances": 4},
                "l1i": {"size_bytes": 512 * KIB, "instances": 4},
                "l2d": {"size_bytes": 16 * MIB, "instances": 4},
                "l2i": {"size_bytes": 16 * MIB, "instances": 4},
                "l3": {"size_bytes": 256 * MIB, "instances": None},
                "l4": {"size_bytes": 960 * MIB, "instances": None}}),
    "cpu-riscv64": dict(
        vendor_id="0x710", vendor="spacemit", arch="riscv64", model_name="Spacemit(R) X60",
        microarchitecture="x60", logical_cpus=8, online_cpus=8, threads_per_core=1,
        cores_per_socket=8, sockets=1, numa_nodes=1, max_mhz=1600.0, min_mhz=614.4,
        hypervisor_vendor=None, caches=c(256 * KIB, 8, 256 * KIB, 8, 1 * MIB, 2)),
    "cpu-loongarch64": dict(
        vendor_id=None, vendor="loongson", arch="loongarch64", model_name="Loongson-3A5000",
        microarchitecture=None, logical_cpus=4, online_cpus=4, threads_per_core=1,
        cores_per_socket=4, sockets=1, numa_nodes=1, max_mhz=2500.0, min_mhz=312.5,
        hypervisor_vendor=None, caches=c(256 * KIB, 4, 256 * KIB, 4, 1 * MIB, 4, 16 * MIB, 1)),
    "cpu-sparc64": dict(
        vendor_id=None, vendor="oracle", arch="sparc64", model_name="UltraSparc T4 (Niagara4)",
        microarchitecture=None, logical_cpus=16, online_cpus=16, threads_per_core=8,
        cores_per_socket=2, sockets=1, numa_nodes=1, max_mhz=None, min_mhz=None,
        hypervisor_vendor=None, caches=c(256 * KIB, 16, 256 * KIB, 16, 2 * MIB, 16)),
    "cpu-arm-soc-3clusters": dict(_SM8550),
    "cpu-arm-soc-3clusters-k6": dict(_SM8550),
    # the kernel's (and hwloc's) view where lscpu 2.38 differs, see LSCPU_DIFFERS below
    "cpu-arm-gb10": dict(
        vendor_id="ARM", vendor="arm", arch="aarch64", model_name="Cortex-A725",
        microarchitecture="neoverse_v3ae", logical_cpus=20, online_cpus=20, threads_per_core=1,
        cores_per_socket=20, sockets=1, numa_nodes=1, max_mhz=3900.0, min_mhz=338.0,
        hypervisor_vendor=None, caches=c(1280 * KIB, 20, 1280 * KIB, 20, 25 * MIB, 20, 24 * MIB, 2)),
    "cpu-xeon-4s-bad-mask": dict(
        vendor_id="GenuineIntel", vendor="intel", arch="x86_64",
        model_name="Intel(R) Xeon(R) CPU E7- 4870  @ 2.40GHz", microarchitecture="westmere",
        logical_cpus=80, online_cpus=80, threads_per_core=2, cores_per_socket=10, sockets=4,
        numa_nodes=4, max_mhz=2400.0, min_mhz=1064.0, hypervisor_vendor=None,
        caches=c(1280 * KIB, 40, 1280 * KIB, 40, 10 * MIB, 40, 120 * MIB, 4)),
    "cpu-armv7-nonuma": dict(
        vendor_id="ARM", vendor="arm", arch="armv7l", model_name="Cortex-A7",
        microarchitecture=None, logical_cpus=4, online_cpus=4, threads_per_core=1,
        cores_per_socket=4, sockets=1, numa_nodes=1, max_mhz=900.0, min_mhz=600.0,
        hypervisor_vendor=None, caches={}),
    "cpu-ia64": dict(
        vendor_id="GenuineIntel", vendor="intel", arch="ia64",
        model_name="Dual-Core Intel(R) Itanium(R) 2 Processor 9040", microarchitecture=None,
        logical_cpus=8, online_cpus=8, threads_per_core=2, cores_per_socket=2, sockets=2,
        numa_nodes=1, max_mhz=None, min_mhz=None, hypervisor_vendor=None,
        caches={"l1d": {"size_bytes": 64 * KIB, "instances": 4},
                "l1i": {"size_bytes": 64 * KIB, "instances": 4},
                "l2d": {"size_bytes": 1 * MIB, "instances": 4},
                "l2i": {"size_bytes": 4 * MIB, "instances": 4},
                "l3": {"size_bytes": 36 * MIB, "instances": 4}}),
}

# Where accelgui deliberately counts as the kernel and hwloc do, not as lscpu 2.38:
# every core type counted (lscpu: the first type's cores per socket; the per-type view is
# core_types), sockets by a vote of all sources (lscpu: distinct core_siblings masks, so
# one bad mask makes a fifth socket), caches with an all-zero shared_cpu_map per core
# (lscpu: one per thread).
LSCPU_DIFFERS = {
    "cpu-arm-gb10": {"cores_per_socket"},
    "cpu-xeon-4s-bad-mask": {"sockets", "cores_per_socket"},
    "cpu-ia64": {"l1d", "l1i", "l3"},
}

FEATURES = {   # (must have, must not have)
    "cpu-intel-desktop": ({"avx2", "fma", "avx_vnni", "sha", "vaes"}, {"avx512f", "amx_tile"}),
    "cpu-cloud-vm-aws": ({"avx512f", "avx512_bf16", "avx512_vnni", "avx512_fp16", "avx_vnni",
                          "amx_tile", "amx_bf16", "amx_int8"}, set()),
    "cpu-cloud-vm-gcp": ({"avx512f", "avx512_vnni"}, {"avx512_bf16", "amx_tile", "avx_vnni"}),
    "cpu-amd-epyc-2s": ({"avx2", "fma", "sha"}, {"avx512f"}),
    "cpu-aarch64-board": ({"neon", "fp16", "asimdhp", "dotprod", "lse"}, {"sve", "i8mm", "bf16"}),
    "cpu-aarch64-server": ({"neon", "sve", "sve2", "i8mm", "bf16", "fp16", "dotprod"}, {"sme"}),
    "cpu-ppc64le": ({"altivec", "vsx"}, {"mma"}),
    "cpu-s390x": ({"vx", "vxe", "vxe2"}, {"nnpa"}),
    "cpu-riscv64": ({"rvv", "v", "zvfh", "zba", "zbb"}, set()),
    "cpu-loongarch64": ({"lsx", "lasx"}, set()),
    "cpu-sparc64": ({"vis", "vis2", "vis3"}, set()),
}

LSCPU = shutil.which("lscpu")


def probe(root) -> dict:
    return cpu.probe(ProbeContext(root=str(root)))["cpu"]


@pytest.fixture(scope="module")
def results():
    return {name: probe(MACHINES / name) for name in EXPECTED}


def test_every_cpu_tree_has_expectations():
    trees = {p.name for p in MACHINES.glob("cpu-*") if p.is_dir()}
    assert trees == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tree_lscpu_style_fields(name, results):
    got = results[name]
    for key, value in EXPECTED[name].items():
        assert got[key] == value, f"{name}: {key}"


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_tree_features(name, results):
    need, never = FEATURES[name]
    got = set(results[name]["features"])
    assert need <= got, f"missing {need - got}"
    assert not (never & got), f"unexpected {never & got}"


def test_flags_are_the_kernel_spelling(results):
    assert "avx512_bf16" in results["cpu-cloud-vm-aws"]["flags"]
    assert "asimd" in results["cpu-aarch64-server"]["flags"]
    assert "sha_ni" in results["cpu-intel-desktop"]["flags"]
    assert results["cpu-s390x"]["flags"][:3] == ["esan3", "zarch", "stfle"]


# ------------------------------------------------------------------ lscpu cross-check

def lscpu_fields(root) -> dict | None:
    """The figures lscpu prints for a tree: summary (-J) and cache totals in bytes (-B)."""
    run = subprocess.run([LSCPU, "-J", "--sysroot", str(root)], capture_output=True, text=True,
                         timeout=30)
    if run.returncode != 0:
        return None
    fields: dict = {}
    for entry in json.loads(run.stdout)["lscpu"]:
        fields.setdefault(entry["field"].rstrip(":"), entry.get("data"))
    text = subprocess.run([LSCPU, "-B", "--sysroot", str(root)], capture_output=True, text=True,
                          timeout=30).stdout
    caches = {}
    for line in text.splitlines():
        m = re.match(r"(L\w+) cache:\s+(\d+)", line)
        if m:
            caches[m.group(1).lower()] = int(m.group(2))
    per_cache = subprocess.run([LSCPU, "-B", "--sysroot", str(root), "-C=NAME,ALL-SIZE"],
                               capture_output=True, text=True, timeout=30).stdout
    for line in per_cache.splitlines()[1:]:
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            caches.setdefault(parts[0].lower(), int(parts[1]))
    fields["caches"] = caches
    return fields


def lscpu_version() -> tuple[int, int]:
    out = subprocess.run([LSCPU, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def compare_with_lscpu(ours: dict, theirs: dict) -> tuple[int, list[str]]:
    """(fields compared, disagreements) over the fields lscpu printed for the tree."""
    def value(key):
        v = theirs.get(key)
        return None if v in (None, "-") else v

    pairs = {
        "logical_cpus": value("CPU(s)"),
        "threads_per_core": value("Thread(s) per core"),
        "cores_per_socket": value("Core(s) per socket") or value("Core(s) per cluster"),
        "sockets": value("Socket(s)") or value("Socket(s) per book"),
        "numa_nodes": value("NUMA node(s)"),
        "model_name": value("Model name"),
        "vendor_id": value("Vendor ID"),
    }
    compared, bad = 0, []
    for key, theirs_value in pairs.items():
        if theirs_value is None:
            continue
        compared += 1
        mine = ours[key]
        if key == "cores_per_socket" and ours.get("core_types"):
            # lscpu 2.38 prints one block per CPU type, the first type's first; accelgui
            # counts the cores of every type and keeps lscpu's per-type view in core_types
            mine = ours["core_types"][0]["cores_per_socket"]
        if isinstance(mine, int):
            theirs_value = int(theirs_value)
        if mine != theirs_value:
            bad.append(f"{key}: accelgui={mine!r} lscpu={theirs_value!r}")
    for name in ("l1d", "l1i", "l2", "l3"):
        if name not in theirs["caches"]:
            continue
        compared += 1
        mine = (ours["caches"].get(name) or {}).get("size_bytes")
        if mine != theirs["caches"][name]:
            bad.append(f"{name}: accelgui={mine!r} lscpu={theirs['caches'][name]!r}")
    return compared, bad


@pytest.mark.skipif(LSCPU is None, reason="util-linux lscpu not installed")
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tree_agrees_with_lscpu(name, results):
    theirs = lscpu_fields(MACHINES / name)
    assert theirs is not None, "lscpu could not read the tree"
    compared, bad = compare_with_lscpu(results[name], theirs)
    differs = LSCPU_DIFFERS.get(name, set())
    assert {b.split(":", 1)[0] for b in bad} <= differs, bad
    bad = [b for b in bad if b.split(":", 1)[0] not in differs]
    if name == "cpu-loongarch64" and lscpu_version() < (2, 39):
        # lscpu < 2.39 does not know loongarch's "Model Name" key and prints "-"
        bad = [b for b in bad if not b.startswith("model_name")]
    assert compared >= 6
    assert not bad


def test_hybrid_arm_keeps_the_per_type_view(results):
    assert results["cpu-arm-gb10"]["core_types"] == [
        {"model_name": "Cortex-A725", "cpus": 10, "cores": 10, "cores_per_socket": 10},
        {"model_name": "Cortex-X925", "cpus": 10, "cores": 10, "cores_per_socket": 10}]


def test_a_contradictory_mask_is_outvoted_and_reported():
    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(root=str(MACHINES / "cpu-xeon-4s-bad-mask")), timeout_s=10)
    assert (report.cpu.sockets, report.cpu.cores_per_socket) == (4, 10)
    probe_cpu = next(p for p in report.probes if p.name == "cpu")
    assert probe_cpu.status == "partial"
    assert [(w["path"], w["reason"]) for w in probe_cpu.warnings] == [
        ("sys/devices/system/cpu/cpu3/topology/core_siblings", "disagree")]


@pytest.mark.skipif(LSCPU is None, reason="util-linux lscpu not installed")
def test_live_machine_agrees_with_lscpu():
    ours = probe("/")
    theirs = lscpu_fields("/")
    assert theirs is not None
    compared, bad = compare_with_lscpu(ours, theirs)
    assert compared >= 8
    assert not bad


# ------------------------------------------------------------------ microarchitecture

@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_microarchitecture_matches_archspec_api(name, results):
    """The fast path (archspec's JSON) picks what archspec's own objects pick."""
    pytest.importorskip("archspec")
    ctx = ProbeContext(root=str(MACHINES / name))
    info = cpu.parse_cpuinfo(ctx.read_text("proc/cpuinfo"))
    impl = info.type.get("vendor")
    part = info.type.get("model") if impl and impl.startswith("0x") else None
    got = results[name]
    reference = cpu._microarchitecture_archspec(
        got["arch"], impl, got["flags"], part, impl, got["model_name"], info.first.get("uarch"))
    if got["arch"] == "x86_64":     # parts newer than archspec's data: the dated table decides
        reference = cpu._x86_uarch(impl, info.type, reference)[0]
    assert got["microarchitecture"] == reference


def test_microarchitecture_of_live_cpu_is_archspec_host():
    archspec_cpu = pytest.importorskip("archspec.cpu")
    assert probe("/")["microarchitecture"] == (
        None if archspec_cpu.host().name == os.uname().machine else archspec_cpu.host().name)


def test_microarchitecture_unknown_arch_is_none():
    assert cpu.microarchitecture("s390x", "IBM/S390", ["vx"]) is None
    assert cpu.microarchitecture("x86_64", "GenuineIntel", []) is None  # generic x86_64 only


# ------------------------------------------------------------------ ARM names

def test_arm_decode_names_from_data_table():
    assert cpu.arm_decode("0x41", "0xd0b") == ("ARM", "Cortex-A76", "arm")
    assert cpu.arm_decode("0x41", "0xd4f")[1] == "Neoverse-V2"
    assert cpu.arm_decode("0x48", "0xd01")[:2] == ("HiSilicon", "Kunpeng-920")
    assert cpu.arm_decode("0xc0", "0xac3")[:2] == ("Ampere", "Ampere-1")
    assert cpu.arm_decode("0x41", "0xfff") == ("ARM", None, "arm")
    assert cpu.arm_decode("0x7f", "0x001") == (None, None, None)
    assert cpu.arm_decode("ARM", "0xd0b") == (None, None, None)


def test_arm_table_has_sources_and_hex_keys():
    data = cpu._tables()
    assert data["sources"] and data["arm"]
    for impl, entry in data["arm"].items():
        int(impl, 16)
        assert entry["name"] and entry["vendor"] == entry["vendor"].lower()
        for part in entry["parts"]:
            int(part, 16)


def test_arm_big_little_counts_every_core_type(tmp_path):
    """RK3588-like: 4x Cortex-A55 + 4x Cortex-A76 in one package: 8 cores per socket, as the
    kernel and hwloc count them. lscpu describes each CPU type on its own (4 cores per socket
    of Cortex-A55 first): that view is kept in core_types, and agrees with lscpu."""
    base = "sys/devices/system/cpu"
    blocks = []
    for i in range(8):
        part, variant = ("0xd05", "0x2") if i < 4 else ("0xd0b", "0x4")
        blocks.append(f"processor\t: {i}\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd asimddp\n"
                      f"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: {variant}\n"
                      f"CPU part\t: {part}\nCPU revision\t: 0\n")
        write(tmp_path, f"{base}/cpu{i}/topology/thread_siblings", f"{1 << i:02x}\n")
        write(tmp_path, f"{base}/cpu{i}/topology/core_siblings", "ff\n")
        write(tmp_path, f"{base}/cpu{i}/topology/core_id", f"{i}\n")
        write(tmp_path, f"{base}/cpu{i}/topology/physical_package_id", "0\n")
    write(tmp_path, "proc/cpuinfo", "\n".join(blocks))
    write(tmp_path, f"{base}/possible", "0-7\n")
    write(tmp_path, f"{base}/present", "0-7\n")
    got = probe(tmp_path)
    assert (got["vendor_id"], got["model_name"], got["logical_cpus"]) == ("ARM", "Cortex-A55", 8)
    assert (got["threads_per_core"], got["cores_per_socket"], got["sockets"]) == (1, 8, 1)
    assert got["core_types"] == [
        {"model_name": "Cortex-A55", "cpus": 4, "cores": 4, "cores_per_socket": 4},
        {"model_name": "Cortex-A76", "cpus": 4, "cores": 4, "cores_per_socket": 4}]
    if LSCPU:
        compared, bad = compare_with_lscpu(got, lscpu_fields(tmp_path))
        assert compared >= 6 and not bad


def test_unknown_arm_implementer_keeps_raw_vendor(tmp_path):
    write(tmp_path, "proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd\n"
                                    "CPU implementer\t: 0x7f\nCPU part\t: 0x001\n")
    got = probe(tmp_path)
    assert (got["vendor_id"], got["model_name"], got["vendor"], got["arch"]) == \
        ("0x7f", None, None, "aarch64")


# ------------------------------------------------------------------ robustness

def write(root: Path, rel: str, content) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def test_empty_tree_is_all_unknown(tmp_path):
    got = probe(tmp_path)
    for key in ("vendor_id", "vendor", "model_name", "arch", "microarchitecture",
                "logical_cpus", "threads_per_core", "cores_per_socket", "sockets",
                "numa_nodes", "max_mhz", "min_mhz", "hypervisor_vendor"):
        assert got[key] is None, key
    assert got["flags"] == [] and got["features"] == [] and got["caches"] == {}


def test_random_bytes_never_raise(tmp_path):
    rng = random.Random(1234)
    for i in range(40):
        root = tmp_path / f"t{i}"
        write(root, "proc/cpuinfo", bytes(rng.randrange(256) for _ in range(rng.randrange(4000))))
        for rel in ("sys/devices/system/cpu/possible", "sys/devices/system/cpu/present",
                    "sys/devices/system/cpu/cpu0/topology/thread_siblings",
                    "sys/devices/system/cpu/cpu0/topology/core_siblings",
                    "sys/devices/system/cpu/cpu0/cache/index0/size",
                    "sys/devices/system/cpu/cpu0/cache/index0/level",
                    "sys/devices/system/cpu/cpu0/cache/index0/type",
                    "sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_map",
                    "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"):
            write(root, rel, bytes(rng.randrange(256) for _ in range(rng.randrange(40))))
        got = probe(root)          # never raises, and never makes up a count from garbage
        for key in ("logical_cpus", "online_cpus", "threads_per_core", "cores_per_socket",
                    "sockets", "numa_nodes"):
            assert got[key] is None or (type(got[key]) is int and got[key] >= 1), (i, key, got[key])
        for key in ("max_mhz", "min_mhz"):
            assert got[key] is None or got[key] > 0, (i, key, got[key])
        for name, cache in got["caches"].items():
            assert cache["size_bytes"] is None or cache["size_bytes"] > 0, (i, name, cache)
        assert all(isinstance(f, str) and f for f in got["flags"]), i


def test_unreadable_files_are_unknown_not_errors(tmp_path):
    base = "sys/devices/system/cpu"
    write(tmp_path, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t: lm\n")
    write(tmp_path, f"{base}/possible/README", "a directory where a file belongs")
    write(tmp_path, f"{base}/cpu0/topology/thread_siblings/README", "directory")
    write(tmp_path, "sys/devices/system/node/node0/cpumap/README", "directory")
    os.symlink("nowhere", tmp_path / f"{base}/present")
    got = probe(tmp_path)
    assert got["vendor_id"] == "GenuineIntel"
    assert got["logical_cpus"] == 1          # from cpuinfo: possible/present unreadable
    assert got["numa_nodes"] == 1


def test_masks_missing_fall_back_to_lists(tmp_path):
    base = "sys/devices/system/cpu"
    write(tmp_path, "proc/cpuinfo", "".join(f"processor\t: {i}\nvendor_id\t: GenuineIntel\n\n"
                                            for i in range(4)))
    write(tmp_path, f"{base}/possible", "0-3\n")
    write(tmp_path, f"{base}/present", "0-3\n")
    for i in range(4):
        write(tmp_path, f"{base}/cpu{i}/topology/thread_siblings_list", f"{i - i % 2}-{i - i % 2 + 1}\n")
        write(tmp_path, f"{base}/cpu{i}/topology/core_siblings_list", "0-3\n")
    got = probe(tmp_path)
    assert (got["threads_per_core"], got["cores_per_socket"], got["sockets"]) == (2, 2, 1)


def test_no_sysfs_topology_uses_x86_cpuinfo(tmp_path):
    blocks = [f"processor\t: {i}\nvendor_id\t: GenuineIntel\nphysical id\t: {i // 4}\n"
              f"siblings\t: 4\ncore id\t\t: {i % 2}\ncpu cores\t: 2\nflags\t\t: fpu lm\n"
              for i in range(8)]
    write(tmp_path, "proc/cpuinfo", "\n".join(blocks))
    got = probe(tmp_path)
    assert (got["logical_cpus"], got["threads_per_core"], got["cores_per_socket"],
            got["sockets"]) == (8, 2, 2, 2)


def test_riscv_without_cpu_type_lines_still_counts(tmp_path):
    """Mainline riscv cpuinfo has no key lscpu 2.38 knows (it then prints no topology at
    all); later lscpu reads mvendorid and uarch, and so do we."""
    src = MACHINES / "cpu-riscv64"
    shutil.copytree(src, tmp_path / "t", symlinks=True)
    info = tmp_path / "t/proc/cpuinfo"
    info.write_text(info.read_text().replace("model name\t: Spacemit(R) X60\n",
                                             "uarch\t\t: spacemit,x60\n"))
    got = probe(tmp_path / "t")
    assert (got["model_name"], got["vendor_id"], got["microarchitecture"]) == \
        ("spacemit,x60", "0x710", "x60")
    assert (got["logical_cpus"], got["cores_per_socket"], got["sockets"]) == (8, 8, 1)
    assert got["caches"]["l2"] == {"size_bytes": 1 * MIB, "instances": 2}


def test_cache_instances_follow_ids_then_shared_maps(tmp_path):
    """Same id -> one instance even with different maps; no id -> one per distinct map."""
    base = "sys/devices/system/cpu"
    write(tmp_path, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: X\n\nprocessor\t: 1\nvendor_id\t: X\n")
    write(tmp_path, f"{base}/possible", "0-1\n")
    write(tmp_path, f"{base}/present", "0-1\n")
    for i in range(2):
        d = f"{base}/cpu{i}/cache"
        for k, (level, ctype, size, cid, mask) in enumerate(
                [(2, "Unified", "1024K", "0", f"{1 << i:x}"), (3, "Unified", "8M", None, f"{1 << i:x}")]):
            write(tmp_path, f"{d}/index{k}/level", f"{level}\n")
            write(tmp_path, f"{d}/index{k}/type", f"{ctype}\n")
            write(tmp_path, f"{d}/index{k}/size", f"{size}\n")
            write(tmp_path, f"{d}/index{k}/shared_cpu_map", f"{mask}\n")
            if cid is not None:
                write(tmp_path, f"{d}/index{k}/id", f"{cid}\n")
    got = probe(tmp_path)["caches"]
    assert got["l2"] == {"size_bytes": 1 * MIB, "instances": 1}
    assert got["l3"] == {"size_bytes": 16 * MIB, "instances": 2}


def test_offline_cpu_is_counted_present_not_online(results):
    got = results["cpu-broken"]
    assert (got["logical_cpus"], got["online_cpus"]) == (4, 3)


def test_parsers():
    assert cpu.parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert cpu.parse_cpulist("") == set()
    assert cpu.parse_cpulist("3-1") is None and cpu.parse_cpulist("x") is None
    assert cpu.parse_cpulist("0-99999999") is None
    assert cpu.parse_cpumask("00000000,00000003\n") == 3
    assert cpu.parse_cpumask("zz") is None
    assert cpu.parse_size("32K") == 32768 and cpu.parse_size("36M") == 36 * MIB
    assert cpu.parse_size("512") == 512 and cpu.parse_size("garbage") is None


def test_cpuinfo_parser_follows_lscpu_type_rules():
    info = cpu.parse_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: First\n"
                             "flags\t\t: a\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n"
                             "model name\t: First\nflags\t\t: b\n\nprocessor\t: 2\n"
                             "model name\t: Second\n")
    assert [t.get("modelname") for t in info.types] == ["First", "Second"]
    assert info.type["flags"] == "b"                 # same type: the last flags line wins
    s390 = cpu.parse_cpuinfo("cache4 : level=3 type=Unified scope=Shared size=262144K "
                             "line_size=256 associativity=32\n"
                             "cache0 : level=1 type=Data scope=Private size=128K line_size=256 "
                             "associativity=8\nprocessor 0: version = 00\n")
    assert s390.ecaches == [{"name": "L3", "size": 256 * MIB}]
    assert 0 in s390.cpus


# ------------------------------------------------------------------ fall back off Linux

def test_py_cpuinfo_only_off_linux(monkeypatch):
    calls = []
    fake = {"vendor_id_raw": "GenuineIntel", "brand_raw": "Intel(R) Core(TM) i7-8700",
            "flags": ["avx2", "fma", "sse4_2"], "l2_cache_size": 262144,
            "hz_advertised": [3200000000, 0]}
    monkeypatch.setattr(cpu, "_py_cpuinfo_raw", lambda: calls.append(1) or fake)
    # on Linux, even a tree without cpuinfo never asks py-cpuinfo
    got = cpu.probe(ProbeContext(root="/nonexistent-tree"))["cpu"]
    assert calls == [] and got["model_name"] is None
    # live, no procfs, not Linux: py-cpuinfo
    monkeypatch.setattr(cpu, "on_linux", lambda: False)
    real_text = ProbeContext.read_text
    monkeypatch.setattr(ProbeContext, "read_text", lambda self, rel, *a, **k:
                        None if rel == "proc/cpuinfo" else real_text(self, rel, *a, **k))
    got = cpu.probe(ProbeContext(root="/"))["cpu"]
    assert calls == [1]
    assert got["model_name"] == "Intel(R) Core(TM) i7-8700"
    assert {"avx2", "fma"} <= set(got["features"]) and got["max_mhz"] == 3200.0
    assert got["logical_cpus"] == os.cpu_count()


def test_linux_path_imports_neither_py_cpuinfo_nor_archspec_package():
    code = ("import sys; from accelgui.probes.context import ProbeContext;"
            "from accelgui.probes import cpu, platform, memory;"
            "[m.probe(ProbeContext(root=r)) for r in ('/', sys.argv[1]) for m in (cpu, platform, memory)];"
            "print(sorted(m for m in ('cpuinfo', 'archspec.cpu', 'psutil', 'socket') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(MACHINES / "cpu-amd-epyc-2s")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ end to end

def test_cli_probe_sysroot_json():
    out = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--no-advice", "--sysroot",
                          str(MACHINES / "cpu-amd-epyc-2s"), "--format", "json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    got = report["cpu"]
    assert (got["sockets"], got["cores_per_socket"], got["threads_per_core"], got["numa_nodes"]) \
        == (2, 8, 2, 2)
    assert got["caches"]["l3"] == {"size_bytes": 128 * MIB, "instances": 8}
    assert report["memory"]["numa_nodes"] == 2
    assert report["platform"]["os_release"] == "Rocky Linux 9.4 (Blue Onyx)"
    status = {p["name"]: p["status"] for p in report["probes"]}
    assert status["cpu"] == status["platform"] == status["memory"] == "ok"


def test_broken_tree_still_gives_a_report():
    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(root=str(MACHINES / "cpu-broken")), timeout_s=10)
    status = {p.name: p.status for p in report.probes}
    # what could not be used is said, per probe: the garbage meminfo, the DMI folder (read
    # by the platform probe, and by the cpu probe for its hypervisor check)
    assert status["cpu"] == status["platform"] == status["memory"] == "partial"
    warned = {p.name: {(w["path"], w["reason"]) for w in p.warnings} for p in report.probes}
    assert warned["memory"] == {("proc/meminfo", "unparseable")}
    assert ("sys/class/dmi/id/product_name", "not-a-file") in warned["platform"]
    assert warned["cpu"] == {("sys/class/dmi/id/product_name", "not-a-file")}
    assert report.cpu.logical_cpus == 4 and report.memory.total_bytes is None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tree_report_matches_the_schema(name):
    pytest.importorskip("jsonschema")
    from accelgui.report import validate
    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(root=str(MACHINES / name)), timeout_s=10)
    validate(json.loads(report.to_json()))


@pytest.mark.timeout(30)
def test_fifo_in_a_tree_does_not_hang(tmp_path):
    (tmp_path / "proc").mkdir()
    os.mkfifo(tmp_path / "proc/cpuinfo")
    (tmp_path / "sys/devices/system/cpu").mkdir(parents=True)
    os.mkfifo(tmp_path / "sys/devices/system/cpu/present")
    got = probe(tmp_path)
    assert got["logical_cpus"] is None and got["model_name"] is None


# ------------------------------------------------------------------ Arm SoC clusters

@pytest.mark.parametrize("name", ["cpu-arm-soc-3clusters", "cpu-arm-soc-3clusters-k6"])
def test_arm_soc_clusters_are_one_socket(name):
    """An Arm SoC whose kernel numbers its DT clusters as packages (physical_package_id
    0/1/2, core_siblings per cluster, as in util-linux's A510/A710/A715/X3 dump) is one
    socket of 8 cores, as lscpu says (one socket per CPU type) and as a 6.x kernel says;
    the per-type view keeps lscpu's cores per socket (3 + 2 + 2 + 1) and names the lone
    Cortex-X3 as lscpu >= 2.39 does, and nothing is reported as a disagreement."""
    from accelgui.runner import run_probes

    report = run_probes(ProbeContext(root=str(MACHINES / name)), timeout_s=10)
    got = report.to_dict()["cpu"]
    assert (got["sockets"], got["cores_per_socket"], got["threads_per_core"]) == (1, 8, 1)
    assert [(t["model_name"], t["cores"], t["cores_per_socket"]) for t in got["core_types"]] == [
        ("Cortex-A510", 3, 3), ("Cortex-A710", 2, 2), ("Cortex-A715", 2, 2), ("Cortex-X3", 1, 1)]
    probe_cpu = next(p for p in report.probes if p.name == "cpu")
    assert not [w for w in probe_cpu.warnings if w["reason"] == "disagree"]
    if LSCPU:
        theirs = lscpu_fields(MACHINES / name)
        assert theirs is not None and int(theirs["Socket(s)"]) == got["sockets"]


def test_homogeneous_sockets_are_still_counted(results):
    """The rule above does not merge real sockets: packages holding the same core type."""
    assert results["cpu-amd-epyc-2s"]["sockets"] == 2
    assert results["cpu-xeon-4s-bad-mask"]["sockets"] == 4


def test_cpu_lists_parse_to_bitmasks_once_per_text():
    """Identical *_list texts (every CPU of a socket has the same one) are parsed once and
    give the same mask object; a malformed list is still None."""
    a = cpu.parse_cpulist_mask("0-4095\n")
    b = cpu.parse_cpulist_mask("0-4095\n")
    assert a == (1 << 4096) - 1 and a is b
    assert cpu.parse_cpulist_mask("0-3,8,10-11") == 0b110100001111
    assert cpu.parse_cpulist_mask("") == 0
    assert cpu.parse_cpulist_mask("3-1") is None and cpu.parse_cpulist_mask("0-99999999") is None
