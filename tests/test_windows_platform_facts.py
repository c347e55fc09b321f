"""The Windows platform facts (WSL seen from Windows, a remote desktop session, the virtual
display adapters left out of the devices) reach the report as ``platform.windows`` and its
human faces, in English and Chinese."""

from __future__ import annotations

import os

from accelgui.export.sections import build_sections
from accelgui.probes.context import ProbeContext
from accelgui.redact import redact
from accelgui.report import Report, validate
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")


def _report(name: str):
    return run_probes(ProbeContext(os.path.join(MACHINES, name)), timeout_s=20)


def _platform_rows(report, lang: str) -> dict[str, str]:
    table = next(t for t in build_sections(report, lang) if t.key == "platform")
    return {row[0]: row[1] for row in table.rows}


def test_wsl_rdp_and_virtual_adapters_reach_the_report_and_its_faces():
    rdp = _report("win-azure-vm-rdp")
    data = rdp.to_dict()
    validate(data)
    win = data["platform"]["windows"]
    assert win["remote_session"] is True
    assert win["virtual_display_adapters"] == ["Microsoft Hyper-V Video", "Microsoft Remote Display Adapter"]
    assert all("Remote Display" not in d["name"] for d in data["devices"])
    rows = _platform_rows(rdp, "en")
    assert rows["Remote desktop session"].startswith("yes")
    assert "Microsoft Remote Display Adapter" in rows["Virtual display adapters (not GPUs)"]
    zh = _platform_rows(rdp, "zh")
    assert "\u8fdc\u7a0b\u684c\u9762\u4f1a\u8bdd" in zh                 # remote desktop session

    laptop = _report("win-laptop-meteorlake-rtx4060")
    wsl = laptop.to_dict()["platform"]["windows"]["wsl"]
    assert wsl["wsl2"] is True and wsl["distributions"][0]["name"] == "Ubuntu-22.04"
    text = _platform_rows(laptop, "en")["WSL (seen from Windows)"]
    assert "Ubuntu-22.04 (WSL 2, Running, default)" in text and "docker-desktop" in text
    # a report read back keeps them; redact leaves them (nothing in them names the machine)
    again = Report.from_dict(laptop.to_dict())
    assert again.platform.windows["wsl"] == wsl
    assert redact(again).to_dict()["platform"]["windows"]["wsl"] == wsl


def test_other_systems_have_no_windows_facts():
    mac = _report("mac-m1pro-laptop")
    assert mac.to_dict()["platform"]["windows"] is None
    assert not any("WSL" in label for label in _platform_rows(mac, "en"))
