"""Memory probe, platform part: peak bandwidth from SMBIOS or the dated table, cgroup limits,
NUMA nodes with memory and no CPUs (probes/memory.py, probes/data/memory_configs.json).

This file is also the generator of the SMBIOS table of the recorded laptop tree::

    .venv/bin/python tests/test_memory_platform.py      # rewrites mem-laptop-smbios/.../DMI

``smbios_type17`` writes Memory Device structures as SMBIOS 3.3 (DSP0134 7.18, 0x5C bytes)
lays them out; the laptop's two structures follow what dmidecode shows on Intel 12th-gen
laptops with two DDR5 SODIMMs: "Controller0-ChannelA-DIMM0" / "Controller1-ChannelA-DIMM0",
bank "BANK 0", Form Factor SODIMM, Data Width 64 bits, Speed and Configured Memory Speed 4800
MT/s (one 64-bit channel per controller: 128 bits, 76.8 GB/s).
"""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui.probes import memory
from accelgui.probes.context import ProbeContext

ROOT = Path(__file__).resolve().parent.parent
MACHINES = Path(__file__).parent / "fixtures" / "machines"
DMI = "sys/firmware/dmi/tables/DMI"
GIB = 1 << 30


# ------------------------------------------------------------------ SMBIOS generator

def _strings(*items: str) -> bytes:
    items = [s for s in items if s]
    return (b"\x00".join(s.encode() for s in items) + b"\x00\x00") if items else b"\x00\x00"


def smbios_type17(handle: int, locator: str, bank: str, size_mib: int, width: int = 64,
                  mem_type: int = 0x22, form: int = 0x0D, speed: int = 4800,
                  configured: int | None = None, length: int = 0x5C) -> bytes:
    """One SMBIOS Memory Device (type 17) structure, formatted area cut to ``length``."""
    configured = speed if configured is None else configured
    size = 0x7FFF if size_mib >= 0x7FFF else size_mib
    area = bytearray(0x5C)
    area[0], area[1] = 17, length
    struct.pack_into("<H", area, 0x02, handle)
    struct.pack_into("<HH", area, 0x04, 0x0040, 0xFFFE)     # array handle, no error info
    struct.pack_into("<HH", area, 0x08, width, width)       # total width, data width
    struct.pack_into("<H", area, 0x0C, size if size_mib else 0)
    area[0x0E], area[0x0F] = form, 0
    area[0x10], area[0x11] = 1, 2                           # device locator, bank locator
    area[0x12] = mem_type
    struct.pack_into("<H", area, 0x13, 0x0080)              # synchronous
    struct.pack_into("<H", area, 0x15, speed)
    area[0x17], area[0x18], area[0x19], area[0x1A] = 3, 0, 0, 4
    area[0x1B] = 1
    struct.pack_into("<I", area, 0x1C, size_mib if size == 0x7FFF else 0)
    struct.pack_into("<H", area, 0x20, configured)
    struct.pack_into("<HHH", area, 0x22, 1100, 1100, 1100)
    area[0x28] = 0x03                                       # DRAM
    return bytes(area[:length]) + _strings(locator, bank, "Samsung", "M425R2GA3BB0-CQKOD")


def smbios_table(*structs: bytes) -> bytes:
    """Structures, preceded by a BIOS (type 0) one and ended by type 127, as the kernel's
    ``/sys/firmware/dmi/tables/DMI`` holds them (no entry point)."""
    bios = bytes([0, 0x1A]) + struct.pack("<H", 0) + bytes(0x1A - 4) + _strings("Vendor", "1.0")
    end = bytes([127, 4]) + struct.pack("<H", 0xFEFF) + b"\x00\x00"
    return bios + b"".join(structs) + end


def laptop_table() -> bytes:
    return smbios_table(smbios_type17(0x41, "Controller0-ChannelA-DIMM0", "BANK 0", 16384),
                        smbios_type17(0x42, "Controller1-ChannelA-DIMM0", "BANK 0", 16384))


def write_fixture_tables() -> None:
    path = MACHINES / "mem-laptop-smbios" / DMI
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(laptop_table())


# ------------------------------------------------------------------ helpers

def probe(root) -> dict:
    return memory.probe(ProbeContext(root=str(root)))["memory"]


def _faults(root) -> list[tuple[str, str]]:
    ctx = ProbeContext(root=str(root))
    with ctx.bound("memory"):
        memory.probe(ctx)
    return ctx.faults("memory")


def _tree(tmp_path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "tree"
    base = {"proc/meminfo": "MemTotal:  16000000 kB\nMemAvailable:  8000000 kB\n",
            "proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                            "model\t\t: 154\nmodel name\t: Test CPU\n"}
    for rel, data in {**base, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            continue
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
    return root


def _cli(name: str) -> dict:
    out = subprocess.run([str(ROOT / ".venv/bin/accelgui"), "--probe", "--sysroot",
                          str(MACHINES / name), "--format", "json", "--no-advice"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _report_has_fields() -> bool:
    from accelgui.report import Memory

    return "bandwidth_spec_gbps" in Memory.fields


needs_report_fields = pytest.mark.skipif(
    not _report_has_fields(),
    reason="accelgui.report.Memory does not carry the new memory fields yet (integrator)")


# ------------------------------------------------------------------ the recorded trees

def test_the_laptop_table_is_what_the_generator_writes():
    assert (MACHINES / "mem-laptop-smbios" / DMI).read_bytes() == laptop_table()


def test_laptop_bandwidth_from_smbios():
    got = probe(MACHINES / "mem-laptop-smbios")
    assert got["bandwidth_spec_source"] == "smbios"
    assert got["bandwidth_spec_gbps"] == 76.8
    spec = got["bandwidth_spec"]
    assert spec["memory_type"] == "DDR5" and spec["speed_mts"] == 4800
    assert spec["channels"] == 2 and spec["bus_width_bits"] == 128 and spec["modules"] == 2
    assert spec["channels_from"] == "locators" and spec["source"] == "smbios"
    assert got["cgroup_limit_bytes"] is None and got["numa_memory_only_nodes"] == []
    assert _faults(MACHINES / "mem-laptop-smbios") == []


def test_container_limits():
    got = probe(MACHINES / "mem-container-limit")
    assert got["cgroup_limit_bytes"] == 128 * GIB
    assert got["cgroup_cpu_limit"] == 4.0
    assert got["total_bytes"] > 1024 * GIB          # the host's memory, not the container's


def test_socketed_epyc_gets_only_an_upper_bound():
    got = probe(MACHINES / "mem-container-limit")   # AMD family 25 model 17, no DMI table
    assert got["bandwidth_spec_gbps"] is None and got["bandwidth_spec_source"] is None
    spec = got["bandwidth_spec"]
    assert spec["row"] == "amd-epyc-genoa" and spec["fixed"] is False
    assert spec["max_gbps"] == 460.8 and spec["channels"] == 12


def test_gh200_memory_only_node():
    got = probe(MACHINES / "mem-gh200-node")
    hbm = 97_517_568 * 1024
    assert got["numa_memory_only_nodes"] == [1]
    assert got["numa_memory_only_bytes"] == hbm
    assert got["total_bytes"] - got["numa_memory_only_bytes"] == 490_031_104 * 1024
    assert got["numa_nodes"] == 10
    assert got["bandwidth_spec_gbps"] is None
    assert got["bandwidth_spec"]["row"] == "nvidia-grace" and got["bandwidth_spec"]["max_gbps"] == 512


@needs_report_fields
@pytest.mark.parametrize("name, expect", [
    ("mem-laptop-smbios", {"bandwidth_spec_gbps": 76.8, "bandwidth_spec_source": "smbios",
                           "cgroup_limit_bytes": None, "numa_memory_only_nodes": []}),
    ("mem-container-limit", {"bandwidth_spec_gbps": None, "cgroup_limit_bytes": 128 * GIB,
                             "cgroup_cpu_limit": 4.0}),
    ("mem-gh200-node", {"numa_memory_only_nodes": [1],
                        "numa_memory_only_bytes": 97_517_568 * 1024}),
])
def test_cli_report_fields(name, expect):
    mem = _cli(name)["memory"]
    for key, value in expect.items():
        assert mem[key] == value, key


def test_existing_trees_are_unchanged_in_meaning():
    got = probe(MACHINES / "cpu-intel-desktop")
    assert got["bandwidth_spec_gbps"] is None and got["cgroup_limit_bytes"] is None
    assert got["numa_memory_only_nodes"] == [] and got["numa_memory_only_bytes"] == 0
    jetson = probe(MACHINES / "acc-jetson-orin")    # nvidia,p3701-0005: AGX Orin 64GB
    assert jetson["bandwidth_spec_gbps"] == 204.8 and jetson["bandwidth_spec_source"] == "table"
    assert jetson["bandwidth_spec"]["row"] == "nvidia-jetson-agx-orin"
    gb10 = probe(MACHINES / "cpu-arm-gb10")
    assert gb10["bandwidth_spec_gbps"] == 273


# ------------------------------------------------------------------ SMBIOS rules

def test_two_dimms_in_one_channel_do_not_add(tmp_path):
    table = smbios_table(*(smbios_type17(0x40 + i, f"Channel{c}-DIMM{d}", f"BANK {i}", 8192,
                                         mem_type=0x1A, form=0x09, speed=3200)
                           for i, (c, d) in enumerate(("A0", "A1", "B0", "B1"))))
    got = probe(_tree(tmp_path, {DMI: table}))
    assert got["bandwidth_spec"]["channels"] == 2 and got["bandwidth_spec"]["modules"] == 4
    assert got["bandwidth_spec_gbps"] == 51.2


def test_amd_bank_locators_name_the_channel(tmp_path):
    table = smbios_table(smbios_type17(1, "DIMM 0", "P0 CHANNEL A", 16384, form=0x09, speed=5600),
                         smbios_type17(2, "DIMM 0", "P0 CHANNEL B", 16384, form=0x09, speed=5600))
    got = probe(_tree(tmp_path, {DMI: table}))
    assert got["bandwidth_spec_gbps"] == 89.6


def test_server_locators_and_an_empty_slot(tmp_path):
    structs = [smbios_type17(i, f"CPU{s}_DIMM_{c}1", "", 32768, form=0x09, speed=4800)
               for i, (s, c) in enumerate((("1", "A"), ("1", "B"), ("2", "A"), ("2", "B")))]
    structs.append(smbios_type17(9, "CPU2_DIMM_C1", "", 0, speed=0))    # not installed
    got = probe(_tree(tmp_path, {DMI: smbios_table(*structs)}))
    assert got["bandwidth_spec"]["channels"] == 4 and got["bandwidth_spec_gbps"] == 153.6


def test_lpddr5_devices_use_their_own_width(tmp_path):
    structs = [smbios_type17(i, f"Controller{i // 4}-Channel{'ABCD'[i % 4]}", "BANK 0", 2048,
                             width=16, mem_type=0x23, form=0x0B, speed=8533)
               for i in range(8)]
    got = probe(_tree(tmp_path, {DMI: smbios_table(*structs)}))
    assert got["bandwidth_spec"]["bus_width_bits"] == 128
    assert got["bandwidth_spec_gbps"] == 136.53
    assert got["bandwidth_spec"]["memory_type"] == "LPDDR5"


def test_ddr5_dimm_reporting_a_subchannel_counts_64_bits(tmp_path):
    table = smbios_table(smbios_type17(1, "DIMM_A1", "", 16384, width=32, form=0x0D, speed=5600))
    got = probe(_tree(tmp_path, {DMI: table}))
    assert got["bandwidth_spec"]["bus_width_bits"] == 64 and got["bandwidth_spec_gbps"] == 44.8


def test_numbered_slots_count_modules_capped_by_the_table(tmp_path):
    structs = [smbios_type17(i, f"PROC 1 DIMM {i}", "", 32768, form=0x09, speed=4800)
               for i in range(24)]                  # 2 DIMMs per channel on 12 channels
    cpuinfo = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
               "physical id\t: 0\n")
    got = probe(_tree(tmp_path, {DMI: smbios_table(*structs), "proc/cpuinfo": cpuinfo}))
    spec = got["bandwidth_spec"]
    assert spec["channels_from"] == "modules" and spec["channels"] == 12
    assert got["bandwidth_spec_gbps"] == 460.8 and spec["row"] == "amd-epyc-genoa"


def test_configured_speed_wins_over_rated_speed(tmp_path):
    table = smbios_table(smbios_type17(1, "ChannelA-DIMM0", "BANK 0", 8192, form=0x0D,
                                       speed=3200, configured=2933))
    assert probe(_tree(tmp_path, {DMI: table}))["bandwidth_spec"]["speed_mts"] == 2933


@pytest.mark.parametrize("case, reason", [
    ("zero speed", "out-of-range"),
    ("truncated", "truncated"),
    ("bogus length", "unparseable"),
    ("no string terminator", "truncated"),
])
def test_bad_tables_give_no_figure_and_a_warning(tmp_path, case, reason):
    good = smbios_type17(1, "ChannelA-DIMM0", "BANK 0", 8192)
    table = {
        "zero speed": smbios_table(smbios_type17(1, "ChannelA-DIMM0", "BANK 0", 8192,
                                                 speed=0, configured=0)),
        "truncated": smbios_table(good)[:40 + 0x30],
        "bogus length": smbios_table(bytes([17, 2, 0, 0]) + b"\x00\x00"),
        "no string terminator": smbios_table(good)[:-8].rstrip(b"\x00") + b"x",
    }[case]
    root = _tree(tmp_path, {DMI: table})
    got = probe(root)
    assert got["bandwidth_spec_gbps"] is None
    assert (DMI, reason) in _faults(root)


def test_garbage_table_is_quick(tmp_path):
    import time

    root = _tree(tmp_path, {DMI: bytes([17, 0x5C]) * (1 << 19)})
    start = time.monotonic()
    probe(root)
    assert time.monotonic() - start < 1.0


def test_old_short_structures_are_read(tmp_path):
    """SMBIOS 2.3 (0x1B bytes): speed but no configured speed."""
    table = smbios_table(smbios_type17(1, "ChannelA-DIMM0", "BANK 0", 4096, mem_type=0x18,
                                       form=0x09, speed=1600, length=0x1B),
                         smbios_type17(2, "ChannelB-DIMM0", "BANK 2", 4096, mem_type=0x18,
                                       form=0x09, speed=1600, length=0x1B))
    got = probe(_tree(tmp_path, {DMI: table}))
    assert got["bandwidth_spec_gbps"] == 25.6 and got["bandwidth_spec"]["memory_type"] == "DDR3"


def test_unreadable_table_on_the_live_system_is_no_warning(monkeypatch):
    import os

    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    ctx = ProbeContext(root="/")
    with ctx.bound("memory"):
        memory.smbios_bandwidth(ctx)
    assert (DMI, "unreadable") not in ctx.faults("memory")


def test_a_virtual_machines_dimms_are_not_the_memory(tmp_path):
    """QEMU and the clouds list virtual DIMMs ("DIMM 0", often of unknown speed): with the
    x86 hypervisor flag the SMBIOS table is not read, so there is no figure and no warning."""
    cpuinfo = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
               "flags\t\t: fpu sse2 lm hypervisor\n")
    table = smbios_table(smbios_type17(1, "DIMM 0", "", 16384, mem_type=0x07, form=0x09,
                                       speed=0, configured=0))
    root = _tree(tmp_path, {DMI: table, "proc/cpuinfo": cpuinfo})
    got = probe(root)
    assert got["bandwidth_spec_source"] is None and got["bandwidth_spec"]["row"] == "amd-epyc-genoa"
    assert _faults(root) == []


# ------------------------------------------------------------------ cgroups and nodes

def test_cgroup_v1_limits(tmp_path):
    root = _tree(tmp_path, {
        "proc/self/cgroup": "4:memory:/kubepods/pod1/abc\n3:cpu,cpuacct:/kubepods/pod1/abc\n",
        "sys/fs/cgroup/memory/kubepods/pod1/abc/memory.limit_in_bytes": "9223372036854771712\n",
        "sys/fs/cgroup/memory/kubepods/pod1/memory.limit_in_bytes": "8589934592\n",
        "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        "sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/abc/cpu.cfs_quota_us": "150000\n",
        "sys/fs/cgroup/cpu,cpuacct/kubepods/pod1/abc/cpu.cfs_period_us": "100000\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
        "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
    })
    got = probe(root)
    assert got["cgroup_limit_bytes"] == 8 * GIB and got["cgroup_cpu_limit"] == 1.5


def test_cgroup_v2_unlimited_and_garbage(tmp_path):
    root = _tree(tmp_path, {
        "proc/self/cgroup": "0::/user.slice\n",
        "sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
        "sys/fs/cgroup/user.slice/memory.max": "max\n",
        "sys/fs/cgroup/user.slice/cpu.max": "max 100000\n",
    })
    got = probe(root)
    assert got["cgroup_limit_bytes"] is None and got["cgroup_cpu_limit"] is None
    (root / "sys/fs/cgroup/user.slice/memory.max").write_text("lots\n")
    assert probe(root)["cgroup_limit_bytes"] is None
    assert ("sys/fs/cgroup/user.slice/memory.max", "unparseable") in _faults(root)


def test_a_cgroup_path_cannot_climb_out(tmp_path):
    root = _tree(tmp_path, {"proc/self/cgroup": "0::/../../../../etc\n",
                            "sys/fs/cgroup/cgroup.controllers": "memory\n"})
    assert probe(root)["cgroup_limit_bytes"] is None


def test_node_with_unreadable_cpulist_is_not_memory_only(tmp_path):
    root = _tree(tmp_path, {
        "sys/devices/system/node/node0/cpulist": "0-3\n",
        "sys/devices/system/node/node0/meminfo": "Node 0 MemTotal:  1000 kB\n",
        "sys/devices/system/node/node1/meminfo": "Node 1 MemTotal:  2000 kB\n",
        "sys/devices/system/node/node2/cpulist": "\n",
        "sys/devices/system/node/node2/meminfo": "Node 2 MemTotal:  3000 kB\n",
    })
    got = probe(root)
    assert got["numa_memory_only_nodes"] == [2] and got["numa_memory_only_bytes"] == 3000 * 1024


def test_tree_without_nodes(tmp_path):
    got = probe(_tree(tmp_path, {}))
    assert got["numa_memory_only_nodes"] == [] and got["numa_memory_only_bytes"] is None


# ------------------------------------------------------------------ recording

def test_the_recorded_table_keeps_type17_without_serials():
    dimm = bytearray(smbios_type17(1, "ChannelA-DIMM0", "BANK 0", 8192))
    dimm[0x18] = 5                                          # serial number: a 5th string
    dimm = bytes(dimm[:-1]) + b"S3CR3T-DIMM\x00\x00"
    system = bytes([1, 0x1B]) + bytes(0x1B - 2) + _strings("Maker", "Box", "1", "S3CR3T-SYS")
    system = system[:7] + b"\x04" + system[8:]             # type 1 serial: the 4th string
    table = smbios_table(system, dimm)
    kept = memory.smbios_memory_only(table)
    assert b"S3CR3T" not in kept and b"ChannelA-DIMM0" in kept and b"Samsung" in kept
    devices, problem = memory.parse_smbios_memory(kept)
    assert problem is None and len(devices) == 1 and devices[0]["locator"] == "ChannelA-DIMM0"
    assert devices[0]["configured_speed"] == 4800
    assert memory.smbios_memory_only(smbios_table()) is None


@pytest.mark.parametrize("name", ["mem-laptop-smbios", "mem-container-limit", "mem-gh200-node"])
def test_record_inputs_let_a_recorded_tree_replay(tmp_path, name):
    """probes/record.py plus memory.record_inputs (the integrator's hook) keep what the
    memory probe reads: the replayed memory section is the original's."""
    from accelgui.probes import record

    src = MACHINES / name
    record.record_tree(str(tmp_path), source_root=str(src))
    memory.record_inputs(record._Recorder(str(tmp_path), str(src)), record._scrub_ids)
    assert probe(tmp_path) == probe(src)


def test_record_inputs_follow_a_scrubbed_cgroup_path(tmp_path):
    from accelgui.probes import record

    scope = "docker-" + "ab12" * 16 + ".scope"
    src = _tree(tmp_path, {
        "proc/self/cgroup": f"0::/system.slice/{scope}\n",
        "sys/fs/cgroup/cgroup.controllers": "memory cpu\n",
        f"sys/fs/cgroup/system.slice/{scope}/memory.max": "1073741824\n",
        f"sys/fs/cgroup/system.slice/{scope}/cpu.max": "200000 100000\n",
    })
    dest = tmp_path / "rec"
    record.record_tree(str(dest), source_root=str(src))
    memory.record_inputs(record._Recorder(str(dest), str(src)), record._scrub_ids)
    assert "ab12" not in (dest / "proc/self/cgroup").read_text()
    got = probe(dest)
    assert got["cgroup_limit_bytes"] == GIB and got["cgroup_cpu_limit"] == 2.0


# ------------------------------------------------------------------ the table

def test_table_rows_are_sourced_and_consistent():
    data = json.loads((ROOT / "probes/data/memory_configs.json").read_text())
    seen = set()
    for row in data["rows"]:
        assert row["source"].startswith("https://"), row["id"]
        assert row["as_of"] and isinstance(row["fixed"], bool)
        for key in row["ids"]:
            assert key.split(":", 1)[0] in ("dt", "soc_id", "x86", "arm_cpus"), key
            assert key not in seen, key
            seen.add(key)
        if row["fixed"]:
            assert isinstance(row["gbps"], (int, float)) and "max_gbps" not in row
            if row.get("speed_mts") and row.get("bus_width_bits"):
                peak = row["speed_mts"] * row["bus_width_bits"] / 8 / 1000
                assert math.isclose(peak, row["gbps"], rel_tol=0.05), row["id"]
        else:
            assert "gbps" not in row and isinstance(row["max_gbps"], (int, float))


if __name__ == "__main__":
    write_fixture_tables()
    print("wrote", MACHINES / "mem-laptop-smbios" / DMI, file=sys.stderr)
