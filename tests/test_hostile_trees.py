"""Hostile trees: links out of the tree, FIFOs, devices, loops, huge lines, garbage values.

Every node used here is made inside tmp_path (never a real /dev node or system file). The
probes must stay inside the tree, stay fast, and say which inputs they could not use.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from accelgui.probes.context import LINE_LIMIT, ProbeContext
from accelgui.runner import run_probes

MACHINES = Path(__file__).parent / "fixtures" / "machines"
SECRET = "root:$6$hostsecret-from-outside-the-tree:19000:0:99999:7:::"


def _tree(tmp_path) -> Path:
    root = tmp_path / "tree"
    for rel, text in {
        "proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\n"
                        "flags\t\t: fpu lm sse sse2\n",
        "proc/meminfo": "MemTotal:       8000000 kB\nMemAvailable:   4000000 kB\n",
        "sys/devices/system/cpu/present": "0\n",
        "sys/class/dmi/id/product_name": "Box\n",
        "etc/os-release": 'PRETTY_NAME="Test OS"\n',
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _warnings(report, probe: str) -> set[tuple[str, str]]:
    return {(w["path"], w["reason"]) for p in report.probes if p.name == probe for w in p.warnings}


def _secret_file(tmp_path) -> Path:
    outside = tmp_path / "outside" / "shadow"
    outside.parent.mkdir()
    outside.write_text(SECRET + "\n")
    return outside


def test_a_link_out_of_the_tree_is_never_read_and_is_reported(tmp_path):
    root = _tree(tmp_path)
    outside = _secret_file(tmp_path)
    link = root / "sys/class/dmi/id/sys_vendor"
    link.symlink_to(os.path.relpath(outside, link.parent))     # ../../../../../outside/shadow
    (root / "etc/hostname").symlink_to("../../outside/shadow")
    report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
    text = report.to_json()
    assert "hostsecret" not in text
    assert ("sys/class/dmi/id/sys_vendor", "outside-tree") in _warnings(report, "platform")
    assert {p.name: p.status for p in report.probes}["platform"] == "partial"


def test_an_absolute_link_is_taken_from_the_trees_root(tmp_path):
    root = _tree(tmp_path)
    (root / "sys/class/dmi/id/product_name").unlink()
    (root / "sys/devices/virtual/dmi/id").mkdir(parents=True)
    (root / "sys/devices/virtual/dmi/id/product_name").write_text("Inside\n")
    (root / "sys/class/dmi/id/product_name").symlink_to("/sys/devices/virtual/dmi/id/product_name")
    assert ProbeContext(root=str(root)).read_line("sys/class/dmi/id/product_name") == "Inside"


def test_the_recorder_copies_nothing_from_outside_and_writes_through_no_link(tmp_path):
    from accelgui.probes.record import record_tree

    root = _tree(tmp_path)
    outside = _secret_file(tmp_path)
    (root / "sys/class/dmi/id/sys_vendor").symlink_to(
        os.path.relpath(outside, root / "sys/class/dmi/id"))
    (root / "etc/nv_tegra_release").symlink_to(outside)             # absolute: re-rooted, missing
    dest = tmp_path / "dest"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    dest.mkdir()
    (dest / "etc").symlink_to("../elsewhere")
    record_tree(str(dest), str(root))
    assert list(elsewhere.iterdir()) == []                           # nothing written through the link
    assert not (dest / "etc").is_symlink() and (dest / "etc/os-release").is_file()
    for path in dest.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert "hostsecret" not in path.read_text(errors="replace"), path


def test_fifos_devices_and_sockets_are_not_read(tmp_path):
    root = _tree(tmp_path)
    os.mkfifo(root / "sys/class/dmi/id/sys_vendor")
    os.mkfifo(root / "etc/nv_tegra_release")
    try:
        os.mknod(root / "sys/class/dmi/id/board_name", 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pass
    start = time.monotonic()
    report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
    assert time.monotonic() - start < 5
    warned = _warnings(report, "platform")
    assert ("sys/class/dmi/id/sys_vendor", "not-a-file") in warned
    if (root / "sys/class/dmi/id/board_name").exists():
        assert ("sys/class/dmi/id/board_name", "not-a-file") in warned
    assert ("etc/nv_tegra_release", "not-a-file") in _warnings(report, "software")


def test_a_link_loop_is_reported(tmp_path):
    root = _tree(tmp_path)
    pci = root / "sys/bus/pci"
    pci.mkdir(parents=True)
    (pci / "devices").symlink_to("devices")
    ctx = ProbeContext(root=str(root))
    with ctx.bound("pci"):
        assert ctx.listdir("sys/bus/pci/devices") == []
    assert ctx.faults("pci") == [("sys/bus/pci/devices", "loop")]


def test_garbage_meminfo_says_why_total_is_unknown(tmp_path):
    root = _tree(tmp_path)
    (root / "proc/meminfo").write_text("MemTotal:       lots kB\nMemAvailable:   4000000 kB\n")
    report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
    assert report.memory.total_bytes is None
    assert _warnings(report, "memory") == {("proc/meminfo", "unparseable")}
    probe = next(p for p in report.probes if p.name == "memory")
    assert probe.status == "partial"
    assert probe.warnings[0]["reason_msg"]["id"] == "safety.reason.unparseable"


def test_memory_from_the_numa_nodes_when_meminfo_is_missing(tmp_path):
    from accelgui.probes import memory

    root = _tree(tmp_path)
    (root / "proc/meminfo").unlink()
    for n, kib in ((0, 1000), (1, 3000)):
        node = root / f"sys/devices/system/node/node{n}"
        node.mkdir(parents=True)
        (node / "meminfo").write_text(f"Node {n} MemTotal:  {kib} kB\nNode {n} MemFree:  10 kB\n")
    got = memory.probe(ProbeContext(root=str(root)))["memory"]
    assert got["total_bytes"] == 4000 * 1024 and got["numa_nodes"] == 2


def test_a_kernel_without_numa_has_one_node(tmp_path):
    from accelgui.probes import memory

    root = _tree(tmp_path)
    assert not (root / "sys/devices/system/node").exists()
    assert memory.probe(ProbeContext(root=str(root)))["memory"]["numa_nodes"] == 1


def _as_another_user(fn, uid: int = 65534, timeout_s: float = 60.0):
    """``fn()``'s JSON-ready answer, computed in a forked child that dropped root for ``uid``
    (root reads every file, so an unreadable one can only be tried as another user). ``fn``
    runs once as root first, so every module it needs is already imported in the child."""
    import select
    import signal

    fn()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: never returns to pytest
        code = 1
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.write(w, json.dumps(fn()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    chunks, deadline = [], time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            if select.select([r], [], [], 1.0)[0]:
                chunk = os.read(r, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        else:
            os.kill(pid, signal.SIGKILL)
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    return json.loads(b"".join(chunks))


def test_unreadable_files_are_reported_for_a_user_who_cannot_read_them(tmp_path):
    """A file the user may not read is a warning of its probe ("unreadable"), never an error;
    as root the probe runs in a child that gave up root (root would read the file)."""
    import shutil
    import tempfile

    tree = _tree(tmp_path)
    if os.geteuid() != 0:
        (tree / "proc/meminfo").chmod(0)
        report = run_probes(ProbeContext(root=str(tree)), timeout_s=10)
        assert ("proc/meminfo", "unreadable") in _warnings(report, "memory")
        return
    base = tempfile.mkdtemp(prefix="accelgui-unreadable-")      # outside root's 0700 tmp_path
    try:
        root = Path(base) / "tree"
        shutil.copytree(tree, root)
        for folder, _dirs, files in os.walk(base):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        (root / "proc/meminfo").chmod(0)

        def probe():
            report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
            return {"warnings": sorted(_warnings(report, "memory")),
                    "status": {p.name: p.status for p in report.probes},
                    "total": report.memory.total_bytes}

        as_root, as_user = probe(), _as_another_user(probe)
        assert as_root["warnings"] == [] and as_root["total"] == 8000000 * 1024
        assert ["proc/meminfo", "unreadable"] in as_user["warnings"]
        assert as_user["status"]["memory"] == "partial" and as_user["total"] is None
        assert as_user["status"]["cpu"] == "ok"        # the other probes are untouched
    finally:
        shutil.rmtree(base)


MB_LINE = "1" + " " * (1 << 20) + "x"          # 1 MB: spaces between a number and junk
HUGE = {
    "cpu flags": ("proc/cpuinfo", "processor\t: 0\nflags\t\t: " + "a " * (1 << 19) + "\n"),
    "cpu model": ("proc/cpuinfo", "processor\t: 0\nCPU implementer\t: 0x41\nmodel name\t: (v"
                  + "7" * (1 << 20) + "\n"),
    "meminfo": ("proc/meminfo", "MemTotal: " + MB_LINE + "\n"),
    "dmi product": ("sys/class/dmi/id/product_name", "m" + "5" * (1 << 20) + "\n"),
    "os-release": ("etc/os-release", 'PRETTY_NAME="' + "\\\\" * (1 << 19) + "\n"),
    "link speed": ("sys/bus/pci/devices/0000:01:00.0/current_link_speed", "1." * (1 << 19) + "\n"),
    "tegra": ("etc/nv_tegra_release", "# R" + "R1" * (1 << 19) + "\n"),
    "cache size": ("sys/devices/system/cpu/cpu0/cache/index0/size", MB_LINE + "\n"),
    "s390 cache": ("proc/cpuinfo", "processor 0: x\ncache0 : " + "a" * (1 << 20) + "\n"),
    "ascend": ("usr/local/Ascend/driver/version.info", "\n" * (1 << 20)),
}


@pytest.mark.parametrize("name", sorted(HUGE))
def test_every_parser_takes_a_megabyte_line_quickly(tmp_path, name):
    from accelgui.probes import cpu, memory, pci, platform, software

    root = _tree(tmp_path)
    rel, text = HUGE[name]
    if rel.startswith("sys/bus/pci"):
        dev = root / "sys/bus/pci/devices/0000:01:00.0"
        dev.mkdir(parents=True)
        for f, v in (("vendor", "0x10de"), ("device", "0x2330"), ("class", "0x030200")):
            (dev / f).write_text(v + "\n")
    if rel.startswith("sys/devices/system/cpu/cpu0/cache"):
        idx = root / "sys/devices/system/cpu/cpu0/cache/index0"
        idx.mkdir(parents=True)
        (idx / "level").write_text("1\n")
        (idx / "type").write_text("Data\n")
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)
    ctx = ProbeContext(root=str(root))
    start = time.monotonic()
    for mod in (cpu, memory, platform, pci, software):
        mod.probe(ctx)
    assert time.monotonic() - start < 1.0, name


def test_the_parsers_themselves_are_linear_without_the_line_cap():
    from accelgui.probes import cpu, memory, platform

    start = time.monotonic()
    memory.parse_meminfo("MemTotal: " + MB_LINE)
    cpu.parse_size(MB_LINE)
    cpu._parse_s390_cache("a" * (1 << 20))
    cpu.arch_from_cpuinfo({"CPU implementer": "0x41", "model name": "(v" + "7" * (1 << 20)}, [])
    platform._INSTANCE_TYPE.fullmatch("m" + "5" * (1 << 20))
    assert time.monotonic() - start < 1.0


def test_lines_are_cut_before_parsing_and_big_files_read_in_part(tmp_path):
    root = tmp_path
    (root / "big").write_text("x" * (LINE_LIMIT * 3) + "\nshort\n")
    ctx = ProbeContext(root=str(root))
    with ctx.bound("t"):
        text = ctx.read_text("big")
        assert max(len(line) for line in text.split("\n")) == LINE_LIMIT
        assert ctx.read_bytes("big", limit=10) == b"x" * 10
    assert ctx.faults("t") == [("big", "truncated")]


def test_non_utf8_names_still_give_a_report_that_can_be_written(tmp_path):
    root = _tree(tmp_path)
    compiler = os.path.join(os.fsencode(root / "opt/intel/oneapi/compiler"), b"2024.\xff\xfe")
    os.makedirs(compiler)
    report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
    text = report.to_json()
    text.encode("utf-8")                       # no lone surrogate left
    json.loads(text)


def test_a_probe_reading_past_its_deadline_is_stopped(tmp_path):
    from accelgui.probes.context import ProbeDeadline

    ctx = ProbeContext(root=str(_tree(tmp_path)))
    with ctx.bound("slow", deadline=time.monotonic() - 1):
        with pytest.raises(ProbeDeadline):
            ctx.read_text("proc/meminfo")


def test_a_few_dozen_fuzzed_trees_give_valid_reports(tmp_path):
    """The fuzz target of tests/benchmarks/fuzz_trees.py (make fuzz), a few rounds of it."""
    jsonschema = pytest.importorskip("jsonschema")
    import importlib.util
    import random

    from accelgui.report import schema

    spec = importlib.util.spec_from_file_location(
        "fuzz_trees", Path(__file__).parent / "benchmarks" / "fuzz_trees.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    shipped = schema()
    jsonschema.Draft202012Validator.check_schema(shipped)
    rng = random.Random(20261201)
    sources = sorted(p for p in MACHINES.iterdir() if p.is_dir())
    for i in range(24):
        scratch = tmp_path / f"round-{i}"
        scratch.mkdir()
        result = fuzz.one_round(sources[i % len(sources)], scratch, rng, 5.0, shipped)
        assert result["problems"] == [], (result["source"], result["mutations"])
        fuzz._writable(scratch)


def test_the_timeout_holds_on_a_tree_made_of_huge_lines(tmp_path):
    """A tree of megabyte lines everywhere, a 20 MiB pci.ids line and 40 PCI functions:
    ``--timeout 2`` holds within twice its value, and the report is valid JSON."""
    import subprocess
    import sys

    root = _tree(tmp_path)
    big = "1." * (1 << 19) + "\n"
    (root / "proc/cpuinfo").write_text("processor\t: 0\nflags\t\t: " + "ab " * (1 << 20) + "\n")
    (root / "proc/meminfo").write_text("MemTotal: " + MB_LINE + "\n")
    for key in ("sys_vendor", "product_name", "bios_version", "board_name"):
        (root / f"sys/class/dmi/id/{key}").write_text("m" + "5" * (1 << 20) + "\n")
    for i in range(40):
        dev = root / f"sys/bus/pci/devices/0000:{i:02x}:00.0"
        dev.mkdir(parents=True)
        for f, v in (("vendor", "0x10de"), ("device", "0x2330"), ("class", "0x030200")):
            (dev / f).write_text(v + "\n")
        (dev / "current_link_speed").write_text(big)
        (dev / "max_link_speed").write_text(big)
    ids = root / "usr/share/misc/pci.ids"
    ids.parent.mkdir(parents=True)
    ids.write_bytes(b"10de  " + b"N" * (20 << 20) + b"\n")
    start = time.monotonic()
    run_probes(ProbeContext(root=str(root)), timeout_s=2)
    elapsed = time.monotonic() - start
    assert elapsed < 4, elapsed                 # within twice the timeout
    res = subprocess.run([sys.executable, "-m", "accelgui", "--probe", "--sysroot", str(root),
                          "--timeout", "2"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert len(res.stdout) < 4 << 20
    assert all(len(d.get("name") or "") <= 4096 for d in report["devices"])


def test_no_accelerator_is_not_claimed_when_the_pci_tree_could_not_be_read(tmp_path):
    from accelgui.export import render

    root = _tree(tmp_path)
    (root / "sys/bus/pci").mkdir(parents=True)
    (root / "sys/bus/pci/devices").symlink_to("devices")            # a loop
    report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
    assert {p.name: p.status for p in report.probes}["pci"] == "partial"
    text = render(report, "text")
    assert "the pci probe could not read all of its inputs" in text


def test_names_from_a_hostile_id_database_are_cleaned(tmp_path):
    root = _tree(tmp_path)
    dev = root / "sys/bus/pci/devices/0000:01:00.0"
    dev.mkdir(parents=True)
    for f, v in (("vendor", "0x10de"), ("device", "0x2330"), ("class", "0x030200")):
        (dev / f).write_text(v + "\n")
    ids = root / "usr/share/misc/pci.ids"
    ids.parent.mkdir(parents=True)
    ids.write_bytes(b"10de  Evil\x1b[2J Corp\n\t2330  GPU\x07\x1b]0;x\x07 Name\n")
    report = run_probes(ProbeContext(root=str(root)), timeout_s=10)
    text = report.to_json(indent=None)
    assert "\\u001b" not in text and "\\u0007" not in text
