"""Memory probe: meminfo under the root; psutil only for the live system."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelgui.probes import memory
from accelgui.probes.context import ProbeContext

MACHINES = Path(__file__).parent / "fixtures" / "machines"


def probe(root) -> dict:
    return memory.probe(ProbeContext(root=str(root)))["memory"]


@pytest.mark.parametrize("name, total_kib, avail_kib, nodes", [
    ("cpu-intel-desktop", 65_564_972, 58_112_340, 1),
    ("cpu-amd-epyc-2s", 263_727_332, 251_002_112, 2),
    ("cpu-aarch64-board", 8_245_008, 7_402_112, 1),
    ("cpu-cloud-vm-aws", 32_386_772, 30_901_456, 1),
])
def test_fixture_memory(name, total_kib, avail_kib, nodes):
    got = probe(MACHINES / name)
    assert {k: got[k] for k in ("total_bytes", "available_bytes", "numa_nodes")} == {
        "total_bytes": total_kib * 1024, "available_bytes": avail_kib * 1024, "numa_nodes": nodes}


def test_garbage_meminfo_is_unknown():
    got = probe(MACHINES / "cpu-broken")
    assert got["total_bytes"] is None and got["available_bytes"] is None
    assert got["numa_nodes"] == 1


def test_old_kernel_without_memavailable(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/meminfo").write_text("MemTotal:  1000 kB\nMemFree:  100 kB\n"
                                           "Buffers:  20 kB\nCached:  300 kB\nSReclaimable: 5 kB\n")
    got = probe(tmp_path)
    assert got["total_bytes"] == 1000 * 1024 and got["available_bytes"] == 425 * 1024


def test_tree_without_meminfo_never_asks_psutil(tmp_path, monkeypatch):
    import psutil

    monkeypatch.setattr(psutil, "virtual_memory", lambda: pytest.fail("psutil asked for a tree"))
    got = probe(tmp_path)
    assert {k: got[k] for k in ("total_bytes", "available_bytes", "numa_nodes")} == {
        "total_bytes": None, "available_bytes": None, "numa_nodes": None}
    assert got["bandwidth_spec_gbps"] is None and got["cgroup_limit_bytes"] is None


def test_live_matches_psutil():
    psutil = pytest.importorskip("psutil")
    got = probe("/")
    assert got["total_bytes"] == psutil.virtual_memory().total
    assert 0 < got["available_bytes"] <= got["total_bytes"]


def test_live_falls_back_to_psutil_when_meminfo_unreadable(monkeypatch):
    psutil = pytest.importorskip("psutil")
    real = ProbeContext.read_text
    monkeypatch.setattr(ProbeContext, "read_text", lambda self, rel, *a, **k:
                        None if rel == "proc/meminfo" else real(self, rel, *a, **k))
    got = probe("/")
    assert got["total_bytes"] == psutil.virtual_memory().total


def test_parse_meminfo_units():
    got = memory.parse_meminfo("MemTotal: 2 kB\nHugePages_Total:  4\nbad line\n")
    assert got == {"MemTotal": 2048, "HugePages_Total": 4}
