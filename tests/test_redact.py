"""--redact: no host name, serial, UUID, MAC address or user name survives, in any format."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from accelgui.export import FORMATS, render
from accelgui.redact import redact, redact_data
from report_fixtures import REPORTS, has_qt_gui, load

from accelgui.report import validate


# identifying values the rich fixture holds (host name, DMI serials/UUID/asset tag, GPU UUIDs
# and serials, a DPU's MAC and serial, a user name in paths)
SECRETS = ["dgx-h100-07", "corp.example.com", "S452180X3A19107", "3f2b9a10-7c1d-11ee-9d3e-3cecef5a1b20",
           "OM239S600417", "C8210LM39NC0071", "IT-ASSET-40117", "GPU-6f0e3b2a", "6f0e3b2a-41c7",
           "1654923012340", "1654923012347", "b8:3f:d2:1a:2b:3c", "MT2334XZ0ABC", "alice"]
MINIMAL_SECRETS = ["ip-10-0-3-17", "ec2a7f55-3b1e-9c0d-2e4f-5a6b7c8d9e0f"]



def as_text(out) -> str:
    return out if isinstance(out, str) else out.decode("latin-1")


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    path = tmp_path / "r.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          timeout=60).stdout


def test_the_fixture_really_holds_identifying_values():
    raw = (REPORTS / "rich.json").read_text(encoding="utf-8")
    for s in SECRETS:
        assert s.lower() in raw.lower(), s
    # and a plain export shows at least the host name and the user name
    text = render(load("rich"), "text")
    assert "dgx-h100-07" in text and "alice" in text


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "pdf"])
@pytest.mark.parametrize("fixture, secrets", [("rich", SECRETS), ("minimal", MINIMAL_SECRETS)])
def test_redacted_report_leaks_nothing(fmt, fixture, secrets):
    out = as_text(render(redact(load(fixture)), fmt)).lower()
    leaks = [s for s in secrets if s.lower() in out]
    assert not leaks, f"{fmt} leaks {leaks}"


@pytest.mark.skipif(not has_qt_gui(), reason="PySide6.QtGui cannot be imported (Qt runtime libraries missing)")
def test_redacted_pdf_leaks_nothing(tmp_path):
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext not installed (Debian: poppler-utils): cannot read the PDF text")
    plain = pdf_text(render(load("rich"), "pdf"), tmp_path)
    assert "dgx-h100-07" in plain                      # the check can see text in a PDF
    text = pdf_text(render(redact(load("rich")), "pdf"), tmp_path).lower()
    assert not [s for s in SECRETS if s.lower() in text]


def test_what_is_not_identifying_survives():
    r = redact(load("rich"))
    assert r.platform.hostname is None
    assert r.platform.dmi["product_serial"] is None and r.platform.dmi["product_uuid"] is None
    assert r.platform.dmi["product_name"] == "SYS-821GE-TNHR"
    gpu = r.devices[0]
    assert gpu.name == "NVIDIA H100 80GB HBM3" and gpu.pci_id == "10de:2330"
    assert gpu.address == "0000:18:00.0"              # a PCI address is not a MAC
    assert gpu.details["uuid"] is None and gpu.details["serial"] is None
    assert gpu.details["driver_version"] == "550.90.07"
    assert r.devices[8].details["mac_address"] is None
    assert r.sysroot == "/home/<user>/accelgui-trees/<host>"
    assert r.software.compilers["nvcc"] == "12.4.131 (/home/<user>/.local/cuda-12.4/bin/nvcc)"
    assert r.software.packages["torch"] == "2.5.1+cu124"
    assert r.benchmarks == load("rich").benchmarks
    validate(json.loads(r.to_json()))


def test_redaction_is_idempotent():
    once = redact(load("rich"))
    assert redact(once) == once


@pytest.mark.parametrize("text, expected", [
    ("eth0 00:1a:2b:3c:4d:5e up", "eth0 <mac> up"),
    ("nic 00-1A-2B-3C-4D-5E", "nic <mac>"),
    ("ib node guid b8ce:f603:00e1:2f3a", "ib node guid <guid>"),
    ("GPU-5a3c1f7e-0b2d-4e6f-8a9b-1c2d3e4f5a6b on bus", "<uuid> on bus"),
    ("MIG-8d3f2a10-11ee-4b5c-9d8e-7f6a5b4c3d2e", "<uuid>"),
    ("uuid 123e4567-e89b-12d3-a456-426614174000", "uuid <uuid>"),
    ("/home/bob/.cache and C:\\Users\\carol\\x", "/home/<user>/.cache and C:\\Users\\<user>\\x"),
    ("pci 0000:18:00.0 10de:2330", "pci 0000:18:00.0 10de:2330"),
])
def test_value_patterns(text, expected):
    assert redact_data({"note": text})["note"] == expected


def test_host_names_and_secret_values_are_scrubbed_everywhere():
    data = {"platform": {"hostname": "node7.lab.example.org"},
            "dmi": {"board_serial": "BS-998877"},
            "notes": ["node7 rebooted", "node7.lab.example.org is up", "node70 is another host",
                      "board BS-998877 replaced", "bob logged in"],
            "path": "/home/bob/data"}
    out = redact_data(data, "node7.lab.example.org")
    assert out["platform"]["hostname"] is None and out["dmi"]["board_serial"] is None
    assert out["notes"] == ["<host> rebooted", "<host> is up", "node70 is another host",
                            "board <redacted> replaced", "<user> logged in"]
    assert out["path"] == "/home/<user>/data"


def test_generic_host_names_are_not_scrubbed_from_other_text():
    out = redact_data({"platform": {"hostname": "ubuntu"}, "os": "Ubuntu 22.04 ubuntu"}, "ubuntu")
    assert out["platform"]["hostname"] is None and out["os"] == "Ubuntu 22.04 ubuntu"



@pytest.mark.parametrize("host", ["gpu", "ready", "nvidia", "intel", "partial", "pci"])
def test_a_host_named_like_an_enum_corrupts_nothing(host):
    original = load("rich")
    data = original.to_dict()
    data["platform"]["hostname"] = host
    from accelgui.report import Report

    r = redact(Report.from_dict(data))
    assert r.platform.hostname is None and r.redacted
    assert [d.kind for d in r.devices] == [d.kind for d in original.devices]
    assert [d.vendor for d in r.devices] == [d.vendor for d in original.devices]
    assert [d.readiness for d in r.devices] == [d.readiness for d in original.devices]
    assert [(x.id, x.status, x.next_steps) for x in r.routes] == \
        [(x.id, x.status, x.next_steps) for x in original.routes]
    assert [p.status for p in r.probes] == [p.status for p in original.probes]
    assert [d.name for d in r.devices] == [d.name for d in original.devices]
    validate(json.loads(r.to_json()))


@pytest.mark.parametrize("text, expected", [
    ("addr 192.168.1.20/24 gw 10.0.0.1", "addr <ip> gw <ip>"),
    ("ssh alice@172.16.5.4:22", "ssh alice@<ip>:22"),
    ("v6 fe80::1c2b:3ff:fe4d:5e6f%eth0 and 2001:db8:85a3:0:0:8a2e:370:7334", "v6 <ip> and <ip>"),
    ("mac 001b21aabbcd, cisco 001b.21aa.bbce", "mac <mac>, cisco <mac>"),
    ("aa:bb:cc:dd:ee:ff AA-BB-CC-DD-EE-FF", "<mac> <mac>"),
    ("/data/asmith/models/llama and /scratch/jdoe/run", "/data/<user>/models/llama and /scratch/<user>/run"),
    ("at 10:00:00 on 0000:18:00.0 10de:2330 std::vector", "at 10:00:00 on 0000:18:00.0 10de:2330 std::vector"),
    ("137438953472 bytes, version 2.5.1", "137438953472 bytes, version 2.5.1"),
])
def test_more_value_patterns(text, expected):
    assert redact_data({"note": text})["note"] == expected


def test_the_host_name_inside_tokens_and_the_user_everywhere():
    data = {"platform": {"hostname": "alice-ws7", "kernel": "5.15.0-alice-ws7-custom"},
            "software": {"compilers": {"nvcc": "12.4 (/data/asmith/cuda/bin/nvcc)"},
                         "packages": {"onednn": "2024.1.0.596"}},
            "note": "asmith ran it; Alice-WS7.lab is up; the nvidia driver",
            "sysroot": "/data/nvidia/trees/x"}
    out = redact_data(data, "alice-ws7")
    assert out["platform"]["kernel"] == "5.15.0-<host>-custom"
    assert out["software"]["compilers"]["nvcc"] == "12.4 (/data/<user>/cuda/bin/nvcc)"
    assert out["software"]["packages"]["onednn"] == "2024.1.0.596"      # a version, not an IP
    assert out["note"] == "asmith ran it; <host>.lab is up; the nvidia driver"
    assert out["sysroot"] == "/data/<user>/trees/x"          # in a path: removed


def test_a_plain_word_host_is_scrubbed_where_a_host_name_is_written():
    out = redact_data({"platform": {"hostname": "gpu"},
                       "notes": ["needs a gpu driver", "gpu.lan is up", "5.15.0-gpu-custom"]}, "gpu")
    assert out["notes"] == ["needs a gpu driver", "<host>.lan is up", "5.15.0-<host>-custom"]


def test_a_redacted_report_says_so_and_where():
    r = redact(load("rich"))
    assert r.redacted is True
    assert "platform.hostname" in r.redacted_fields
    assert any(f.startswith("platform.dmi.") for f in r.redacted_fields)
    assert load("rich").redacted is False
