"""What identifies a Mac or a PC leaves a recording of its command outputs (``--record-tree``
on the OS, or a user's folder recorded again), and leaves a report made from such a folder
under ``--redact``."""

from __future__ import annotations

import json
import os
import re

import pytest

from accelgui.probes.context import ProbeContext
from accelgui.probes.platforms import recorded
from accelgui.probes.record import record_tree, scrub_output, scrub_outputs
from accelgui.redact import redact
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")
FOLDERS = sorted(d for d in os.listdir(MACHINES) if d.startswith(("mac-", "win-")))

# the keys under which these outputs name the machine or its owner (read here on their own,
# not with the recorder's patterns)
_IDENTIFYING = ("SystemName", "CSName", "DNSHostName", "__SERVER", "ServerName", "PSComputerName",
                "Machine name", "Machine Id", "kern.hostname", "RegisteredUser", "SerialNumber",
                "IdentifyingNumber", "UUID", "serial_number", "platform_UUID", "provisioning_UDID",
                "Serial Number (system)", "Hardware UUID", "Provisioning UDID", "PrimaryOwnerName")
_KEY_VALUE = re.compile(r'(?m)^[ \t]*"?(%s)"?[ \t]*[:=][ \t]*"?([^"\n,]*)' % "|".join(map(re.escape, _IDENTIFYING)))
_CIM_VALUE = re.compile(r'"Name":[ \t]*"(%s)",\s*"Value":[ \t]*"([^"\n]*)"' % "|".join(map(re.escape, _IDENTIFYING)))


def _identities(folder: str) -> set[str]:
    """Values under identifying keys in the folder's files as recorded (placeholders out)."""
    found = set()
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            text = recorded.decode(f.read()) or ""
        for _, value in _KEY_VALUE.findall(text) + _CIM_VALUE.findall(text):
            value = value.strip()
            if len(value) >= 4 and len(set(value) - {"-"}) > 1 and value.lower() not in (
                    "n/a", "none", "null", "unknown", "to be filled by o.e.m.", "default string", "system serial number"):
                found.add(value)
    return found


def test_every_identifying_property_is_blanked_and_found_again_elsewhere():
    wmi = ("SystemName                   : DESKTOP-R9X4090\n"
           "__SERVER                     : DESKTOP-R9X4090\n"
           '__PATH                       : \\\\DESKTOP-R9X4090\\root\\cimv2:Win32_VideoController.DeviceID="1"\n'
           "CSName : DESKTOP-R9X4090\nRegisteredUser : alice@example.com\nOrganization : Example Ltd\n"
           "SerialNumber : 00330-80000-00000-AA123\nIdentifyingNumber : PF3ABCDE\n"
           "UUID : 4C4C4544-0042-3510-8052-B4C04F4E3732\nMACAddress : 00:15:5D:01:02:03\n"
           "Description : Hyper-V adapter 00-15-5D-01-02-04 (virtual)\n"
           "Name : Microsoft Basic Display Adapter\n"
           "InstallLocation : C:\\Users\\alice\\AppData\\Local\\Programs\\Python\n")
    computer = ('{\n  "Name": "DESKTOP-R9X4090",\n  "UserName": "DESKTOP-R9X4090\\\\alice",\n'
                '  "Model": "Precision 3660",\n  "Path": "C:\\\\Users\\\\alice\\\\x"\n}\n')
    cim = ('{\n "CimInstanceProperties": [\n  {\n   "Name":  "SystemName",\n   "Value":  "SURFACE-LAP7",\n'
           '   "CimType":  14\n  }\n ],\n "CimSystemProperties": {\n  "ServerName":  "SURFACE-LAP7"\n },\n'
           ' "PSComputerName": "SURFACE-LAP7"\n}\n')
    dxdiag = ("------------------\nSystem Information\n------------------\n"
              "      Machine name: ZENBOOK-S16\n        Machine Id: {3C1D2A55-5E1B-4F77-9C0E-7D1A2B3C4D5E}\n"
              "  Operating System: Windows 11 Pro 64-bit (10.0, Build 26100)\n")
    smi = ("<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><serial>1324021012345</serial>"
           "<uuid>GPU-5b0e2c1a-8f7d-4c3e-9a61-2d4f8e7b6c10</uuid>\n<product_name>NVIDIA GeForce RTX 4090"
           "</product_name></gpu></nvidia_smi_log>\n")
    mac = ('{"SPHardwareDataType": [{\n  "machine_name" : "MacBook Pro",\n  "serial_number" : "C02XG0FDH7JY",\n'
           '  "platform_UUID" : "8F3A1B2C-1111-2222-3333-444455556666",\n'
           '  "provisioning_UDID" : "00008103-001A2B3C4D5E001E"\n}]}\n'
           "kern.hostname: studio-laptop.local\nhome: /Users/alice/Library\n")
    out = "\n".join(scrub_outputs([wmi, computer, cim, dxdiag, smi, mac]))
    for secret in ("DESKTOP-R9X4090", "SURFACE-LAP7", "ZENBOOK-S16", "alice", "Example Ltd",
                   "00330-80000", "PF3ABCDE", "4C4C4544", "00:15:5D", "00-15-5D", "3C1D2A55", "1324021012345",
                   "GPU-5b0e", "C02XG0FDH7JY", "8F3A1B2C", "00008103", "studio-laptop"):
        assert secret not in out, secret
    # what the probes read stays
    for kept in ("Microsoft Basic Display Adapter", '"Model": "Precision 3660"', '"machine_name" : "MacBook Pro"',
                 "NVIDIA GeForce RTX 4090", 'id="00000000:01:00.0"', "Windows 11 Pro 64-bit",
                 "C:\\Users\\<user>\\AppData", "/Users/<user>/Library", "MACAddress :\n", "adapter <mac> (virtual)"):
        assert kept in out, kept
    json.loads(scrub_outputs([wmi, computer])[1])        # JSON stays JSON
    # a plain word as a host name goes where it is the value, not inside a product's name
    assert scrub_output("SystemName : gaming\nName : gaming\nCaption : Gaming GPU\n") == \
        "SystemName :\nName : \nCaption : Gaming GPU\n"


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_recorded_folder_recorded_again_names_nobody_and_replays_the_same(folder, tmp_path):
    source = os.path.join(MACHINES, folder)
    secrets = _identities(source)
    dest = tmp_path / "again"
    assert record_tree(str(dest), source) > 0
    saved = "\n".join(recorded.decode((dest / n).read_bytes()) or "" for n in os.listdir(dest))
    for secret in secrets:
        assert secret.lower() not in saved.lower(), secret
    direct = run_probes(ProbeContext(source)).to_dict()
    replay = run_probes(ProbeContext(str(dest))).to_dict()
    assert replay["platform"]["hostname"] is None
    assert replay["cpu"] == direct["cpu"] and replay["memory"] == direct["memory"]
    for a, b in zip(direct["devices"], replay["devices"]):
        a["details"].pop("uuid", None)
        assert a == b


def test_the_windows_folders_hold_identities_this_test_looks_for():
    # the test above is not empty: host names, the owner and serials are in the fixtures
    found = set().union(*(_identities(os.path.join(MACHINES, f)) for f in FOLDERS))
    assert {"SURFACE-LAP7", "ZENBOOK-S16", "DESKTOP-R9X4090", "user@example.com"} <= found


@pytest.mark.parametrize("folder", FOLDERS)
def test_redact_removes_them_from_a_report_of_the_folder(folder):
    source = os.path.join(MACHINES, folder)
    report = redact(run_probes(ProbeContext(source)))
    text = json.dumps(report.to_dict(), ensure_ascii=False).lower()
    for secret in _identities(source):
        assert secret.lower() not in text, secret


def test_record_tree_on_a_live_windows_pc_scrubs_across_its_outputs(tmp_path):
    from accelgui.probes import platforms
    from accelgui.probes.record import record_commands

    outputs = {"windows.video_controller": "Name : NVIDIA GeForce RTX 4090\nAdapterRAM : 4293918720\n"
                                           "VideoProcessor : NVIDIA\nSystemName : GAMING-RIG-01\n",
               "windows.computer_system": '{\n  "Name": "GAMING-RIG-01",\n  "Model": "Precision 3660",\n'
                                          '  "TotalPhysicalMemory": 68719476736\n}\n'}
    argv = {platforms.command(k).argv: text for k, text in outputs.items()}
    count = record_commands(str(tmp_path), platforms.commands("windows"),
                            run=lambda a, t: (argv.get(a), None if a in argv else "not-found"))
    assert count == 2
    saved = "".join(p.read_text(encoding="utf-8") for p in tmp_path.iterdir())
    assert "GAMING-RIG-01" not in saved and "Precision 3660" in saved and "RTX 4090" in saved
