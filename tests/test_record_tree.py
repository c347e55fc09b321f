"""record_tree: the recorded tree replays to the same answers and carries no identifiers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from accelgui.probes import cpu, memory, platform
from accelgui.probes.context import ProbeContext
from accelgui.probes.record import MAX_BYTES, record_tree

MACHINES = Path(__file__).parent / "fixtures" / "machines"
SECRETS = ("SECRET-SERIAL-4711", "5ec2e7aa-0000-4711-8000-5ec2e7aa4711", "secret-host-4711",
           "6f1e2d3c4b5a6978", "00000000000A1B2C", "LPARSECRET", "GPU-5ec2e7aa",
           "USBSERIAL4711", "deadbeefcafe0123456789abcdef0123")


def cpu_of(root) -> dict:
    return cpu.probe(ProbeContext(root=str(root)))["cpu"]


def write(root: Path, rel: str, content="") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def all_files(root: Path):
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            yield Path(dirpath, name)


def test_live_machine_replays_to_the_same_cpu(tmp_path):
    count = record_tree(str(tmp_path / "rec"))
    assert count > 20
    assert cpu_of(tmp_path / "rec") == cpu_of("/")
    live = memory.probe(ProbeContext(root="/"))["memory"]
    rec = memory.probe(ProbeContext(root=str(tmp_path / "rec")))["memory"]
    assert rec["total_bytes"] == live["total_bytes"] and rec["numa_nodes"] == live["numa_nodes"]
    plat_live = platform.probe(ProbeContext(root="/"))["platform"]
    plat_rec = platform.probe(ProbeContext(root=str(tmp_path / "rec")))["platform"]
    for key in ("os", "os_release", "kernel", "machine", "virtualization", "container", "cloud"):
        assert plat_rec[key] == plat_live[key], key
    assert plat_rec["hostname"] is None


def test_live_recording_has_no_identifiers(tmp_path):
    record_tree(str(tmp_path))
    names = [p.name for p in all_files(tmp_path)]
    assert not [n for n in names if "serial" in n or "uuid" in n]
    assert not (tmp_path / "proc/sys/kernel/hostname").exists()
    assert not (tmp_path / "etc/hostname").exists()
    host = os.uname().nodename
    if len(host) >= 6:                     # short names ("vm") occur inside ordinary words
        for path in all_files(tmp_path):
            assert host.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("name", sorted(p.name for p in MACHINES.glob("cpu-*")))
def test_fixture_tree_rerecords_to_the_same_cpu(tmp_path, name):
    record_tree(str(tmp_path), source_root=str(MACHINES / name))
    assert cpu_of(tmp_path) == cpu_of(MACHINES / name)


def sysfs_like_source(root: Path) -> Path:
    """A source tree with the kernel's symlinks and a collection of secrets."""
    dev = "sys/devices/pci0000:00/0000:01:00.0"
    for rel, value in {"vendor": "0x10de", "device": "0x2330", "class": "0x030200",
                       "numa_node": "0", "max_link_speed": "32.0 GT/s PCIe"}.items():
        write(root, f"{dev}/{rel}", value + "\n")
    (root / "sys/bus/pci/drivers/nvidia").mkdir(parents=True)
    os.symlink("../../../bus/pci/drivers/nvidia", root / dev / "driver")
    (root / "sys/bus/pci/devices").mkdir(parents=True)
    os.symlink("../../../devices/pci0000:00/0000:01:00.0", root / "sys/bus/pci/devices/0000:01:00.0")
    (root / dev / "drm/card1").mkdir(parents=True)
    os.symlink("../../../0000:01:00.0", root / dev / "drm/card1/device")
    (root / "sys/class/drm").mkdir(parents=True)
    os.symlink(f"../../{dev[4:]}/drm/card1", root / "sys/class/drm/card1")
    cpu0 = "sys/devices/system/cpu"
    write(root, f"{cpu0}/possible", "0\n")
    write(root, f"{cpu0}/present", "0\n")
    write(root, f"{cpu0}/online", "0\n")
    write(root, f"{cpu0}/cpufreq/policy0/cpuinfo_max_freq", "3000000\n")
    write(root, f"{cpu0}/cpufreq/policy0/cpuinfo_min_freq", "400000\n")
    (root / cpu0 / "cpu0").mkdir(parents=True)
    os.symlink("../cpufreq/policy0", root / cpu0 / "cpu0/cpufreq")
    write(root, f"{cpu0}/cpu0/topology/thread_siblings", "1\n")
    write(root, f"{cpu0}/cpu0/topology/core_siblings", "1\n")
    write(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t: lm\n\n"
                                "Serial\t\t: 6f1e2d3c4b5a6978\n")
    write(root, "proc/sysinfo", "Manufacturer: IBM\nSequence Code: 00000000000A1B2C\n"
                                "LPAR Name: LPARSECRET\nType: 8561\n")
    write(root, "proc/sys/kernel/hostname", "secret-host-4711\n")
    write(root, "proc/sys/kernel/osrelease", "6.8.0\n")
    write(root, "etc/hostname", "secret-host-4711\n")
    write(root, "proc/1/cgroup", "0::/kubepods/burstable/pod5ec2e7aa-0000-4711-8000-5ec2e7aa4711/"
                                 "deadbeefcafe0123456789abcdef0123\n")
    dmi = "sys/devices/virtual/dmi/id"
    for key, value in {"sys_vendor": "Dell Inc.", "product_name": "PowerEdge R760",
                       "product_serial": "SECRET-SERIAL-4711", "board_serial": "SECRET-SERIAL-4711",
                       "product_uuid": "5ec2e7aa-0000-4711-8000-5ec2e7aa4711",
                       "chassis_asset_tag": "SECRET-SERIAL-4711"}.items():
        write(root, f"{dmi}/{key}", value + "\n")
    (root / "sys/class/dmi").mkdir(parents=True)
    os.symlink("../../devices/virtual/dmi/id", root / "sys/class/dmi/id")
    usb = "sys/bus/usb/devices/1-1"
    for key, value in {"idVendor": "18d1", "idProduct": "9302", "product": "Coral",
                       "serial": "USBSERIAL4711"}.items():
        write(root, f"{usb}/{key}", value + "\n")
    write(root, "proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54\n")
    write(root, "proc/driver/nvidia/gpus/0000:01:00.0/information",
          "Model: \t\t NVIDIA H100\nGPU UUID: \t GPU-5ec2e7aa-0000\nBus Location: \t 0000:01:00.0\n")
    write(root, "dev/nvidia0", "")
    write(root, "dev/nvidiactl", "")
    write(root, "dev/dri/renderD128", "")
    write(root, "dev/dri/by-path/pci-0000:01:00.0-render", "")
    write(root, "dev/sda", "")
    write(root, "etc/os-release", 'PRETTY_NAME="Ubuntu 24.04 LTS"\n')
    write(root, "proc/meminfo", b"MemTotal: 1 kB\n" + b"x" * (MAX_BYTES + 10))
    write(root, ".dockerenv", "")
    return root


def test_symlinked_sysfs_is_stored_as_directories(tmp_path):
    src = sysfs_like_source(tmp_path / "src")
    dst = tmp_path / "dst"
    record_tree(str(dst), source_root=str(src))
    pci = dst / "sys/bus/pci/devices/0000:01:00.0"
    assert pci.is_dir() and not pci.is_symlink()
    assert (pci / "vendor").read_text() == "0x10de\n"
    assert os.path.basename(os.readlink(pci / "driver")) == "nvidia"
    assert (pci / "driver").resolve() == (dst / "sys/bus/pci/drivers/nvidia").resolve()
    ctx = ProbeContext(root=str(dst))
    assert ctx.readlink("sys/class/drm/card1/device") == "0000:01:00.0"
    assert ctx.read_line("sys/class/drm/card1/device/vendor") == "0x10de"
    assert ctx.realpath("sys/class/drm/card1/device") == "sys/bus/pci/devices/0000:01:00.0"
    assert cpu_of(dst)["max_mhz"] == 3000.0                     # through cpuN/cpufreq link
    assert (dst / "dev/nvidia0").read_bytes() == b"" and (dst / "dev/nvidiactl").exists()
    assert (dst / "dev/dri/renderD128").exists() and not (dst / "dev/sda").exists()
    assert not (dst / "proc/meminfo").exists()                  # over 1 MiB: skipped
    assert (dst / ".dockerenv").exists()
    assert platform.probe(ctx)["platform"]["container"] == "kubernetes"
    assert (dst / "proc/driver/nvidia/gpus/0000:01:00.0/information").read_text().startswith("Model")


def test_recording_drops_every_secret(tmp_path):
    src = sysfs_like_source(tmp_path / "src")
    dst = tmp_path / "dst"
    record_tree(str(dst), source_root=str(src))
    for path in all_files(dst):
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, (path, secret)
        assert "serial" not in path.name and "uuid" not in path.name
    assert (dst / "sys/class/dmi/id/product_name").read_text() == "PowerEdge R760\n"
    assert (dst / "proc/self/cgroup").read_text().startswith("0::/kubepods/")
    assert "Type: 8561" in (dst / "proc/sysinfo").read_text()


def test_cloud_asset_tags_are_kept(tmp_path):
    src = MACHINES / "cpu-cloud-vm-azure"
    record_tree(str(tmp_path), source_root=str(src))
    got = platform.probe(ProbeContext(root=str(tmp_path)))["platform"]
    assert got["cloud"] == {"provider": "azure", "instance_type": None}
    assert "product_serial" not in got["dmi"] and "product_uuid" not in got["dmi"]


def test_cli_record_then_probe(tmp_path):
    dst = tmp_path / "rec"
    out = subprocess.run([sys.executable, "-m", "accelgui", "--record-tree", str(dst),
                          "--sysroot", str(MACHINES / "cpu-aarch64-server")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (dst / "proc/cpuinfo").exists()
    assert cpu_of(dst)["model_name"] == "Neoverse-V2"


@pytest.mark.skipif(shutil.which("lscpu") is None, reason="util-linux lscpu not installed")
def test_lscpu_reads_the_recording(tmp_path):
    record_tree(str(tmp_path))
    out = subprocess.run(["lscpu", "--sysroot", str(tmp_path)], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0 and "CPU(s):" in out.stdout


def _comparable(report) -> dict:
    """What a recording must reproduce. Left out on purpose: the host name, DMI serials and
    GPU UUIDs (redacted), installed software (not recorded: readiness that depends on it,
    runtime checks) and names looked up in the system's pci.ids (a database, not the machine)."""
    d = report.to_dict()
    devices = []
    for dev in d["devices"]:
        dev = {k: v for k, v in dev.items() if k not in ("readiness", "readiness_reason", "fix",
                                                      "readiness_reason_zh", "fix_zh",
                                                      "readiness_reason_msg", "fix_msg")}
        dev["ladder"] = [s for s in dev.get("ladder") or () if s["step"] != "runtime"]
        details = {k: v for k, v in (dev.get("details") or {}).items()
                   if k not in ("uuid", "pci_ids_name", "serial")}
        checks = dict(details.get("readiness_checks") or {})
        checks.pop("runtime", None)
        details["readiness_checks"] = checks
        dev["details"] = details
        devices.append(dev)
    platform_ = {k: v for k, v in d["platform"].items() if k not in ("hostname", "dmi")}
    return {"devices": devices, "cpu": d["cpu"], "memory": d["memory"], "platform": platform_}


@pytest.mark.parametrize("name", sorted(p.name for p in MACHINES.iterdir() if p.is_dir()))
def test_every_machine_tree_replays_after_recording(tmp_path, name):
    """record_tree keeps what *all* probes read (PCI, USB, DRM/accel, KFD, SoC, NVIDIA...)."""
    from accelgui.runner import run_probes

    record_tree(str(tmp_path), source_root=str(MACHINES / name))
    original = run_probes(ProbeContext(root=str(MACHINES / name)), timeout_s=10)
    replayed = run_probes(ProbeContext(root=str(tmp_path)), timeout_s=10)
    assert _comparable(replayed) == _comparable(original)


def test_iso_now_matches_datetime_in_any_zone(monkeypatch):
    """iso_now(): local time with its UTC offset (or UTC), as datetime's isoformat gives."""
    import time
    from datetime import datetime, timezone

    from accelgui.model import iso_now

    for zone in ("UTC", "Asia/Kolkata", "America/St_Johns", "Asia/Shanghai", "America/Los_Angeles"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        for _ in range(3):      # the second may turn between the two reads: retry
            ours, ref = iso_now(), datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")
            if ours == ref:
                break
        assert ours == ref, zone
        assert iso_now(utc=True)[-6:] == "+00:00"
    monkeypatch.delenv("TZ")
    time.tzset()
