"""Cost that stays linear on huge machines: the CPU probe's memory at 2,048 CPUs,
and what replaying a recorded tree costs per file. Times are measured in
tests/benchmarks/bench_scale.py, never here."""

from __future__ import annotations

import os
import tracemalloc

from accelgui.probes import cpu
from accelgui.probes.context import ProbeContext


class MemoryTree(ProbeContext):
    """A recorded tree held in memory (relative path -> bytes): what the probe itself costs,
    without the file system (a 2,048-CPU tree on disk takes seconds to write)."""

    __slots__ = ("files", "dirs")

    def __init__(self, files: dict[str, bytes]):
        super().__init__(root="/nonexistent-memory-tree")
        dirs: dict[str, set] = {}
        for rel in files:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                dirs.setdefault("/".join(parts[:i]), set()).add(parts[i])
        object.__setattr__(self, "files", files)
        object.__setattr__(self, "dirs", dirs)

    def _read(self, rel, limit):
        data = self.files.get(rel.strip("/"))
        return (None, False) if data is None else (data[:limit], len(data) > limit)

    def exists(self, rel):
        rel = rel.strip("/")
        return rel in self.files or rel in self.dirs

    def is_dir(self, rel):
        return rel.strip("/") in self.dirs

    def listdir(self, rel):
        return sorted(self.dirs.get(rel.strip("/"), ()))

    def readlink(self, rel):
        return None

    def realpath(self, rel):
        return None


def mask(lo: int, hi: int, nbits: int) -> bytes:
    text = f"{((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1):0{nbits // 4}x}"
    return (",".join(text[i:i + 8] for i in range(0, len(text), 8)) + "\n").encode()


def one_socket_tree(n: int) -> dict[str, bytes]:
    """n CPUs, 2 threads per core, one socket and one NUMA node, an L2 per core and one L3,
    caches without ``id`` files (instances from their shared maps)."""
    base = "sys/devices/system/cpu"
    files = {f"{base}/{k}": f"0-{n - 1}\n".encode() for k in ("possible", "present", "online")}
    whole = mask(0, n - 1, n)
    for c in range(n):
        tp = f"{base}/cpu{c}/topology"
        core = mask(c - c % 2, c - c % 2 + 1, n)
        files.update({f"{tp}/thread_siblings": core, f"{tp}/core_siblings": whole,
                      f"{tp}/core_siblings_list": f"0-{n - 1}\n".encode(),
                      f"{tp}/physical_package_id": b"0\n"})
        for k, (level, size, shared) in enumerate(((2, b"1024K\n", core), (3, b"64M\n", whole))):
            d = f"{base}/cpu{c}/cache/index{k}"
            files.update({f"{d}/level": b"%d\n" % level, f"{d}/type": b"Unified\n",
                          f"{d}/size": size, f"{d}/shared_cpu_map": shared})
    files["sys/devices/system/node/node0/cpulist"] = f"0-{n - 1}\n".encode()
    files["proc/cpuinfo"] = "".join(
        f"processor\t: {c}\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n"
        f"CPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd40\nCPU revision\t: 1\n\n"
        for c in range(n)).encode()
    return files


def test_2048_cpus_keep_the_cpu_section_in_bounded_memory():
    """Before: a frozenset of core_siblings_list per CPU, hundreds of MiB at 2,048 CPUs (and
    past the probe's timeout at 4,096, which cost the report its CPU section)."""
    ctx = MemoryTree(one_socket_tree(2048))
    tracemalloc.start()
    try:
        got = cpu.probe(ctx)["cpu"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (got["logical_cpus"], got["threads_per_core"], got["cores_per_socket"],
            got["sockets"]) == (2048, 2, 1024, 1)
    assert got["caches"] == {"l2": {"size_bytes": 1024 << 20, "instances": 1024},
                             "l3": {"size_bytes": 64 << 20, "instances": 1}}
    assert peak < 24 << 20, f"peak {peak / 2**20:.1f} MiB"


class Calls:
    """Counts the file-system calls the context makes (os.lstat, os.stat, os.read, ...)."""

    NAMES = ("lstat", "stat", "read", "readlink", "open")

    def __init__(self, monkeypatch):
        self.counts = dict.fromkeys(self.NAMES, 0)
        for name in self.NAMES:
            real = getattr(os, name)

            def counted(*a, _real=real, _name=name, **k):
                self.counts[_name] += 1
                return _real(*a, **k)
            monkeypatch.setattr(os, name, counted)


def test_replaying_a_tree_costs_one_lstat_and_one_read_per_file(tmp_path, monkeypatch):
    """Reading many files of a tree whose folders were resolved already (a folder reached
    through a link, as sysfs's bus/pci/devices entries are) costs one lstat and one read per
    file, not three lstat/stat calls and two reads."""
    real = tmp_path / "sys/devices/pci0000:00"
    for i in range(20):
        d = real / f"0000:00:{i:02x}.0"
        d.mkdir(parents=True)
        for name in ("vendor", "device", "class", "numa_node", "irq"):
            (d / name).write_text("0x10de\n")
    bus = tmp_path / "sys/bus/pci/devices"
    bus.mkdir(parents=True)
    for i in range(20):
        os.symlink(f"../../../devices/pci0000:00/0000:00:{i:02x}.0", bus / f"0000:00:{i:02x}.0")
    ctx = ProbeContext(root=str(tmp_path))
    names = ctx.listdir("sys/bus/pci/devices")
    for addr in names:                          # first visit: every folder resolved once
        assert ctx.read_line(f"sys/bus/pci/devices/{addr}/vendor") == "0x10de"
    calls = Calls(monkeypatch)
    files = 0
    for addr in names:
        for name in ("vendor", "device", "class", "numa_node", "irq"):
            assert ctx.read_line(f"sys/bus/pci/devices/{addr}/{name}") == "0x10de"
            files += 1
    assert ctx.read_line("sys/bus/pci/devices/0000:00:00.0/missing") is None
    monkeypatch.undo()
    c = calls.counts
    assert c["lstat"] + c["stat"] <= files + 1, c
    assert c["read"] <= files, c
    assert c["open"] == files, c


def test_a_cached_folder_stays_confined(tmp_path):
    """Folders are resolved once and kept: a folder link out of the tree is refused (and
    reported) on every read through it, a link loop stays a loop, and a relative link inside
    a linked folder still resolves as the kernel does."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("host secret\n")
    root = tmp_path / "tree"
    (root / "sys/devices/real").mkdir(parents=True)
    (root / "sys/devices/real/vendor").write_text("0x10de\n")
    (root / "sys/devices/real/alias").symlink_to("vendor")
    (root / "sys/bus").mkdir(parents=True)
    (root / "sys/bus/dev0").symlink_to("../devices/real")
    (root / "sys/bus/out").symlink_to("../../../outside")
    (root / "sys/bus/loop").symlink_to("loop")
    ctx = ProbeContext(root=str(root))
    for _ in range(2):
        assert ctx.read_line("sys/bus/dev0/vendor") == "0x10de"
        assert ctx.read_line("sys/bus/dev0/alias") == "0x10de"
        assert ctx.read_line("sys/bus/dev0/../real/vendor") == "0x10de"
        assert ctx.read_line("sys/bus/out/secret") is None
        assert ctx.listdir("sys/bus/out") == []
        assert ctx.read_line("sys/bus/loop/x") is None
    assert ctx.faults("") == [("sys/bus/out/secret", "outside-tree"),
                              ("sys/bus/out", "outside-tree"), ("sys/bus/loop/x", "loop")]
