"""What the Windows backend knows of each device reaches the device's details (driver
version, the dedicated-memory source and its lower bound, the PnP hardware id), and the
readiness it gives says only what the outputs say about the driver."""

from __future__ import annotations

import os

from accelgui import rules
from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")


def replay(folder) -> dict:
    return run_probes(ProbeContext(str(folder)), timeout_s=20).to_dict()


def _video(tmp_path, *objects: str) -> None:
    (tmp_path / "video.txt").write_text("\n" + "\n\n".join(objects) + "\n", encoding="utf-8")


def _step(dev: dict, name: str) -> dict:
    return next(s for s in dev["ladder"] if s["step"] == name)


def test_the_windows_details_of_each_device_reach_the_report():
    r = replay(os.path.join(MACHINES, "win-partial-capture"))
    intel = next(d for d in r["devices"] if d["vendor"] == "intel")
    assert intel["details"]["driver_version"] == "31.0.101.4255"
    assert intel["details"]["pnp_id"] == "PCI\\VEN_8086&DEV_A7A8&SUBSYS_0B2A1028&REV_04"
    nvidia = next(d for d in r["devices"] if d["vendor"] == "nvidia")
    assert nvidia["details"]["pnp_id"] == "PCI\\VEN_10DE&DEV_2860&SUBSYS_0B2A1028"   # the table's cut "&R..." left out
    # the advice names the driver Windows runs, not "no driver bound" beside "ready"
    for dev in (intel, nvidia):
        line = rules._device_line(dev, "en", 1)
        assert "no driver bound" not in line and dev["details"]["driver_version"] in line
    azure = replay(os.path.join(MACHINES, "win-azure-vm-rdp"))
    t4 = next(d for d in azure["devices"] if d["vendor"] == "nvidia")
    assert t4["details"]["memory_lower_bound_bytes"] == 0xFFF00000     # AdapterRAM saturated: a lower bound
    assert t4["details"]["memory_bytes"] == 16 << 30                    # the specification row's size
    assert "\\4&" not in t4["details"]["pnp_id"]                        # no instance part


def test_a_gpu_whose_driver_nothing_recorded_is_unknown_not_ready(tmp_path):
    _video(tmp_path, "Name        : NVIDIA GeForce RTX 4090\n"
                     "PNPDeviceID : PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1\\4&2283F625&0&0019\n"
                     "AdapterRAM  : 4293918720\n")
    gpu = replay(tmp_path)["devices"][0]
    assert gpu["readiness"] == "unknown" and gpu["driver"] is None
    assert _step(gpu, "driver")["ok"] is None
    assert gpu["readiness_reason_msg"]["id"] == "windows.driver.unknown"
    assert gpu["fix_msg"]["id"] == "windows.fix.record_driver"
    assert "no driver bound (ready)" not in rules._device_line(gpu, "en", 1)


def test_a_gpu_whose_driver_version_or_status_is_recorded_is_bound(tmp_path):
    _video(tmp_path, "Name          : NVIDIA GeForce RTX 4090\n"
                     "PNPDeviceID   : PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1\\4&2283F625&0&0019\n"
                     "DriverVersion : 32.0.15.5585\nAdapterRAM    : 4293918720\n")
    gpu = replay(tmp_path)["devices"][0]
    assert gpu["readiness"] == "ready" and _step(gpu, "driver")["ok"] is True
    assert gpu["details"]["driver_version"] == "32.0.15.5585"


def test_a_gpu_on_the_basic_display_driver_says_so_with_the_windows_fix(tmp_path):
    _video(tmp_path, "Name          : Microsoft Basic Display Adapter\n"
                     "PNPDeviceID   : PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1\\4&2283F625&0&0019\n"
                     "DriverVersion : 10.0.22621.1\nAdapterRAM    : 0\n",
           "Name                   : NVIDIA GeForce RTX 3060\n"
           "PNPDeviceID            : PCI\\VEN_10DE&DEV_2504&SUBSYS_397D1462&REV_A1\\4&1&0&0008\n"
           "DriverVersion          : 31.0.15.3623\nConfigManagerErrorCode : 43\nAdapterRAM : 4293918720\n")
    devices = {d["pci_id"]: d for d in replay(tmp_path)["devices"]}
    basic, failed = devices["10de:2684"], devices["10de:2504"]
    assert basic["readiness"] == "driver-missing"
    assert basic["readiness_reason_msg"]["id"] == "windows.driver.basic_display"
    assert basic["fix_msg"]["id"] == "windows.fix.driver"           # not the Linux package advice
    assert "driver_version" not in basic["details"]                 # the stand-in's version is not its driver's
    assert failed["readiness"] == "driver-missing"
    assert failed["readiness_reason_msg"]["id"] == "windows.driver.problem"
    assert "43" in failed["readiness_reason"]
