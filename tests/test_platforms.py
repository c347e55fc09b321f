"""The probe platform layer: backends chosen by OS, recorded folders of command outputs read
by content (any encoding, hostile input bounded), live commands through a fake runner."""

from __future__ import annotations

import codecs
import os
import sys

import pytest

from accelgui.probes import PROBES, platforms
from accelgui.probes.context import ProbeContext
from accelgui.probes.platforms import common, live, recorded
from accelgui.runner import run_probes

HERE = os.path.dirname(__file__)
MACHINES = os.path.join(HERE, "fixtures", "machines")
SYSCTL = "hw.ncpu: 8\nhw.memsize: 17179869184\nmachdep.cpu.brand_string: Apple M2\nhw.machine: arm64\n"


def _write(folder, name, data: bytes) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ------------------------------------------------------------------ which backend

def test_live_platform_follows_sys_platform():
    assert platforms.live_platform("darwin") == "macos"
    assert platforms.live_platform("win32") == "windows"
    assert platforms.live_platform("linux") == "linux"
    assert platforms.live_platform() == ("linux" if sys.platform.startswith("linux") else
                                         platforms.live_platform(sys.platform))


def test_a_linux_tree_keeps_the_linux_probes_and_reads_no_command():
    ctx = ProbeContext(os.path.join(MACHINES, "soc-asahi-m1"))
    assert ctx.platform == "linux"
    assert platforms.probes_for(ctx) is PROBES
    assert ctx.outputs("macos.sysctl") == [] and ctx.recorded_commands == {}


def test_an_empty_folder_is_linux_as_before(tmp_path):
    assert ProbeContext(str(tmp_path)).platform == "linux"


def test_a_folder_of_command_outputs_is_recognised_by_content_not_name(tmp_path):
    _write(tmp_path, "whatever I called it.log", SYSCTL.encode())
    ctx = ProbeContext(str(tmp_path))
    assert ctx.platform == "macos"
    assert [p.name for p in platforms.probes_for(ctx)] == ["platform", "cpu", "memory", "devices", "software"]
    assert ctx.recorded_commands == {"macos.sysctl": ["whatever I called it.log"]}
    assert "hw.memsize: 17179869184" in ctx.output("macos.sysctl")


def test_a_backend_not_installed_still_says_what_the_machine_is(tmp_path, monkeypatch):
    real = platforms.backend
    monkeypatch.setattr(platforms, "backend", lambda name: (_ for _ in ()).throw(ImportError(name))
                        if name == "macos" else real(name))
    _write(tmp_path, "sysctl.txt", SYSCTL.encode())
    report = run_probes(ProbeContext(str(tmp_path)))
    assert report.to_dict()["platform"]["os"] == "macOS"
    assert [(p.name, p.status) for p in report.probes] == [("platform", "absent")]


# ------------------------------------------------------------------ decoding

@pytest.mark.parametrize("encode", [
    lambda t: t.encode("utf-8"),
    lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    lambda t: codecs.BOM_UTF16_LE + t.replace("\n", "\r\n").encode("utf-16-le"),
    lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    lambda t: t.encode("utf-16-le"),            # no BOM: told by its NULs
    lambda t: t.encode("utf-16-be"),
])
def test_every_encoding_a_capture_comes_in_decodes_to_the_same_text(encode):
    text = "ProductName:\tmacOS\nProductVersion:\t14.5\n\u82af\u7247\u7ec4\u578b\u53f7\uff1aApple M2\n"
    assert recorded.decode(encode(text)) == text


def test_a_gbk_console_capture_and_binary_garbage():
    text = "\u578b\u53f7\uff1aMac14,2\n"
    assert recorded.decode(text.encode("gb18030")) == text
    assert recorded.decode(bytes(range(256)) * 64) is None


def test_file_names_follow_the_command_line():
    assert recorded.file_name(("sysctl", "-a")) == "sysctl -a.txt"
    assert recorded.file_name(("Get-CimInstance", "Win32_VideoController", "|", "Format-List", "*")) == \
        "Get-CimInstance Win32_VideoController pipe Format-List star.txt"
    assert "/" not in recorded.file_name(("reg", "export", "HKLM\\SYSTEM\\x", "C:/out.reg"))


# ------------------------------------------------------------------ hostile folders

def test_hostile_entries_are_warnings_of_the_platform_probe_never_a_hang(tmp_path):
    _write(tmp_path, "sysctl.txt", SYSCTL.encode())
    _write(tmp_path, "garbage.bin", os.urandom(4096))
    _write(tmp_path, "unknown.txt", b"nothing any command prints\n")
    os.mkfifo(tmp_path / "a fifo")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text(SYSCTL)
    os.symlink(f"../{outside.name}", tmp_path / "link out")
    os.symlink(str(outside), tmp_path / "absolute link")     # taken inside the folder: dangling
    os.symlink("loop", tmp_path / "loop")
    _write(tmp_path, "README.md", b"# notes about this capture\n")
    report = run_probes(ProbeContext(str(tmp_path)), timeout_s=5)
    platform = next(p for p in report.probes if p.name == "platform")
    found = {(w["path"], w["reason"]) for w in platform.warnings}
    assert {("garbage.bin", "unparseable"), ("unknown.txt", "unparseable"), ("a fifo", "not-a-file"),
            ("link out", "outside-tree"), ("loop", "loop"), ("absolute link", "unreadable")} <= found
    assert not any(w["path"] == "README.md" for w in platform.warnings)
    assert platform.status == "partial"
    assert report.to_dict()["cpu"]["model_name"] == "Apple M2"         # the good file is still read


def test_huge_lines_and_huge_files_are_cut_and_said(tmp_path, monkeypatch):
    monkeypatch.setattr(recorded, "MAX_BYTES", 1 << 20)
    _write(tmp_path, "sysctl.txt", (SYSCTL + "kern.x: " + "y" * (3 << 20) + "\n").encode())
    ctx = ProbeContext(str(tmp_path))
    assert ctx.platform == "macos"
    with ctx.bound("cpu"):
        text = ctx.output("macos.sysctl")
    assert max(map(len, text.split("\n"))) <= 64 << 10
    assert ("sysctl.txt", "truncated") in ctx.faults("cpu")


def test_too_many_files_are_not_all_read(tmp_path, monkeypatch):
    monkeypatch.setattr(recorded, "MAX_FILES", 3)
    for i in range(6):
        _write(tmp_path, f"{i}.txt", SYSCTL.encode())
    rec = recorded.scan(str(tmp_path))
    assert len(rec.claimed["macos.sysctl"]) == 3
    assert any(reason == "truncated" for _, reason in rec.faults)


def test_a_recogniser_that_raises_does_not_stop_the_reading(tmp_path):
    def broken(text):
        raise RuntimeError("bug")

    cmds = [platforms.Command("macos.broken", ("x",), broken), *platforms.commands("macos")]
    _write(tmp_path, "s.txt", SYSCTL.encode())
    assert recorded.scan(str(tmp_path), cmds).claimed.keys() == {"macos.sysctl"}


# ------------------------------------------------------------------ live commands

def test_live_commands_run_once_through_the_runner_only_on_their_os(monkeypatch):
    calls = []

    def fake(argv, timeout_s):
        calls.append((argv, timeout_s))
        return SYSCTL, None

    monkeypatch.setattr(platforms, "live_platform", lambda sys_platform=None: "macos")
    ctx = ProbeContext("/", run_command=fake)
    assert ctx.platform == "macos"
    assert ctx.output("macos.sysctl") == SYSCTL
    assert ctx.output("macos.sysctl") == SYSCTL
    assert len(calls) == 1 and calls[0][0] == ("sysctl", "-a") and calls[0][1] <= 10
    assert ctx.outputs("windows.video_controller") == []      # another OS's: never run


def test_a_live_command_that_fails_is_a_warning_not_an_error(monkeypatch):
    monkeypatch.setattr(platforms, "live_platform", lambda sys_platform=None: "macos")
    ctx = ProbeContext("/", run_command=lambda argv, t: (None, "timeout"))
    with ctx.bound("cpu"):
        assert ctx.output("macos.sysctl") is None
    assert ctx.faults("cpu") == [("sysctl -a", "unreadable")]


def test_linux_live_never_runs_a_command():
    ctx = ProbeContext("/", run_command=lambda argv, t: pytest.fail("ran a command on Linux"))
    if ctx.platform == "linux":
        assert ctx.output("macos.sysctl") is None


def test_the_live_runner_bounds_time_and_output(tmp_path):
    assert live.run(("no-such-program-accelgui",)) == (None, "not-found")
    text, reason = live.run((sys.executable, "-c", "print('x' * 5000)"), limit=1000)
    assert reason == "truncated" and len(text) == 1000
    text, reason = live.run((sys.executable, "-c", "import time; time.sleep(30)"), timeout_s=0.5)
    assert (text, reason) == (None, "timeout")


# ------------------------------------------------------------------ fragment helpers

def test_size_and_id_parsers():
    assert common.size_bytes("16 GB") == 16 << 30
    assert common.size_bytes("1536 MB") == 1536 << 20
    assert common.size_bytes("8,5 GB") == int(8.5 * (1 << 30))
    assert common.size_bytes("lots") is None and common.size_bytes(None) is None
    assert common.size_bytes("16 GB (LPDDR5)") == 16 << 30 and common.size_bytes("8 GBit") is None
    assert common.size_bytes("4096MB") == 4 << 30 and common.size_bytes("12 bytes") == 12
    assert common.hex_id("Apple (0x106b)") == "106b" and common.hex_id("0x7340") == "7340"
    assert common.hex_id("no id") is None


def test_pci_functions_are_classified_like_linux():
    amd = common.pci_function("1002", "7340", "x:0", memory_bytes=8 << 30, memory_source="os")
    assert amd["kind"] == "gpu" and amd["family"] == "amd-gpu"
    assert common.pci_function("1a03", "2000", "x:1") is None       # an ASPEED BMC display
    assert common.pci_function("zz", "7340", "x:2") is None
    assert common.usb_device("1a6e", "089a", "usb:1")["vendor_id"] == "1a6e"
    assert common.usb_device("05ac", "8104", "usb:2") is None        # not an accelerator


# ------------------------------------------------------------------ --record-tree on macOS/Windows

def test_record_commands_writes_a_folder_that_replays_and_leaves_out_identities(tmp_path):
    from accelgui.probes.record import record_commands, scrub_output

    source = ProbeContext(os.path.join(MACHINES, "mac-m1pro-laptop"))
    texts = {platforms.command(k).argv: source.output(k) for k in source.recorded_commands}
    ran = []

    def fake(argv, timeout_s):
        ran.append(argv)
        return texts.get(argv), None if argv in texts else "not-found"

    dest = tmp_path / "rec"
    count = record_commands(str(dest), platforms.commands("macos"), run=fake)
    assert count == 3 and len(ran) == 3
    assert sorted(os.listdir(dest)) == sorted(recorded.file_name(a) for a in texts)
    saved = "\n".join((dest / n).read_text() for n in os.listdir(dest))
    assert "studio-laptop" not in saved and "XXXXXXXXXX" not in saved and "00000000-0000" not in saved
    replay = run_probes(ProbeContext(str(dest))).to_dict()
    direct = run_probes(source).to_dict()
    assert replay["cpu"] == direct["cpu"] and replay["devices"] == direct["devices"]
    assert replay["platform"]["hostname"] is None
    assert scrub_output('  "serial_number" : "C02X",\n  "machine_model" : "Mac14,2"\n') == \
        '  "serial_number" : "",\n  "machine_model" : "Mac14,2"\n'


def test_record_tree_on_a_live_mac_records_commands(tmp_path, monkeypatch):
    from accelgui.probes import record

    monkeypatch.setattr(platforms, "live_platform", lambda sys_platform=None: "macos")
    monkeypatch.setattr(record, "record_commands", lambda dest: 7)
    assert record.record_tree(str(tmp_path)) == 7


def test_the_whole_folder_has_a_read_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(recorded, "MAX_TOTAL_BYTES", 3 * len(SYSCTL))
    for i in range(5):
        _write(tmp_path, f"{i}.txt", SYSCTL.encode())
    rec = recorded.scan(str(tmp_path))
    assert len(rec.claimed["macos.sysctl"]) == 3
    assert [(n, r) for n, r in rec.faults] == [("3.txt", "truncated"), ("4.txt", "truncated")]
