"""The device-family data (probes/data/families/*.json) and what the probes make of it:
a new family added as one data entry is picked up by the classifier, the readiness ladder,
the fixes in both languages and the recorder; functions are judged by class first; ids from
sysfs are validated; vendors are named without pci.ids; specifications give the figures a
recorded tree has no other source for."""

import json
import os
import re

import pytest

from accelgui import l10n
from accelgui.probes import PROBES, families, inventory
from accelgui.probes.context import ProbeContext
from accelgui.probes.record import record_tree
from accelgui.runner import run_probes

MINE = {"pci", "usb", "accel", "soc", "nvidia", "amd", "software"}
_CJK = re.compile(r"[\u4e00-\u9fff]")


def probe(root):
    report = run_probes(ProbeContext(root=str(root)), probes=[p for p in PROBES if p.name in MINE])
    assert not [p for p in report.probes if p.status in ("error", "timeout")]
    return report


def pci_function(root, addr, vendor, device, cls, driver=None, files=None):
    d = root / f"sys/bus/pci/devices/{addr}"
    d.mkdir(parents=True)
    (d / "vendor").write_bytes(vendor if isinstance(vendor, bytes) else f"0x{vendor}\n".encode())
    (d / "device").write_bytes(device if isinstance(device, bytes) else f"0x{device}\n".encode())
    (d / "class").write_text(f"0x{cls}\n")
    for name, text in (files or {}).items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text)
    if driver:
        (root / f"sys/bus/pci/drivers/{driver}").mkdir(parents=True, exist_ok=True)
        (d / "driver").symlink_to(f"../../drivers/{driver}")
    return d


# ---------------------------------------------------------------------------------------
# a new family from one data entry plus a recorded tree
# ---------------------------------------------------------------------------------------

ACME = {
    "id": "acme-npu", "name": {"en": "Acme NPU", "zh": "Acme \u795e\u7ecf\u7f51\u7edc\u5904\u7406\u5668"}, "kind": "npu",
    "vendor": "acme", "vendors": {"1fff": {"id": "acme", "name": "Acme"}},
    "claims": {"pci": [{"vendor": "1fff"}]},
    "drivers": {"acme_npu": {"evidence": True, "nodes": ["dev/acme[0-9]*"],
                             "sysfs_classes": {"acme_class": ["dev/{}"]}}},
    "runtime": {"name": {"en": "the Acme runtime", "zh": "Acme \u8fd0\u884c\u65f6"}, "toolkits": ["acme_rt"]},
    "fixes": {"driver": {"en": "Install acme-dkms, then reboot.", "zh": "\u5b89\u88c5 acme-dkms\uff0c\u7136\u540e\u91cd\u542f\u3002"},
              "node": {"en": "Reload acme_npu.", "zh": "\u91cd\u65b0\u52a0\u8f7d acme_npu\u3002"},
              "runtime": {"en": "Install the Acme runtime.", "zh": "\u5b89\u88c5 Acme \u8fd0\u884c\u65f6\u3002"}},
    "segment": "embedded",
    "specs": {"as_of": "2026-11-30", "source": "https://example.invalid/acme-npu-datasheet",
              "review_by": "2027-11-30",
              "devices": [{"ids": ["1fff:0001"], "name": "Acme N1", "memory_bytes": 8 << 30,
                           "memory_bandwidth_gbps": 100}]},
}


@pytest.fixture
def acme(tmp_path, monkeypatch):
    folder = tmp_path / "families"
    folder.mkdir()
    (folder / "acme-npu.json").write_text(json.dumps(ACME, ensure_ascii=False))
    monkeypatch.setenv(families.ENV_DIRS, str(folder))
    families.reset()
    yield
    monkeypatch.delenv(families.ENV_DIRS)
    families.reset()


def _acme_tree(root):
    ok = pci_function(root, "0000:03:00.0", "1fff", "0001", "120000", driver="acme_npu")
    (ok / "acme_class/acme0").mkdir(parents=True)
    (ok / "acme_class/acme0/dev").write_text("511:0\n")
    pci_function(root, "0000:04:00.0", "1fff", "0002", "120000")
    (root / "dev").mkdir()
    (root / "dev/acme0").write_text("")
    return root


def test_a_new_family_is_classified_assessed_and_fixed_in_both_languages(acme, tmp_path):
    ready, missing = probe(_acme_tree(tmp_path / "tree")).devices
    assert (ready.kind, ready.vendor, ready.family, ready.driver) == ("npu", "acme", "acme-npu", "acme_npu")
    assert ready.readiness == "ready" and ready.details["device_nodes"] == ["/dev/acme0"]
    assert [s["ok"] for s in ready.ladder] == [True, True, True, None, None]
    assert ready.details["memory_bandwidth_gbps"] == 100
    assert ready.details["memory_bandwidth_source"] == "specification"
    assert ready.details["segment"] == "embedded" and ready.details["form"] == "discrete"
    assert missing.readiness == "driver-missing" and missing.family == "acme-npu"
    assert missing.fix == "Install acme-dkms, then reboot."
    assert l10n.field_text(missing, "fix", "zh") == "\u5b89\u88c5 acme-dkms\uff0c\u7136\u540e\u91cd\u542f\u3002"
    assert _CJK.search(l10n.field_text(missing, "readiness_reason", "zh"))
    assert [s["ok"] for s in missing.ladder][:2] == [True, False]
    assert missing.details["memory_bandwidth_gbps"] is None          # no spec row for 0002


def test_a_new_family_is_recorded_and_replays(acme, tmp_path):
    src = _acme_tree(tmp_path / "tree")
    dest = tmp_path / "recorded"
    record_tree(str(dest), source_root=str(src))
    assert (dest / "dev/acme0").exists()                          # the family's node name
    assert (dest / "sys/bus/pci/devices/0000:03:00.0/acme_class/acme0").is_dir()
    again = probe(dest).devices
    assert [(d.family, d.readiness, d.driver) for d in again] == \
        [("acme-npu", "ready", "acme_npu"), ("acme-npu", "driver-missing", None)]


def test_without_the_entry_the_same_tree_is_an_unknown_accelerator(tmp_path):
    devs = probe(_acme_tree(tmp_path / "tree")).devices
    assert [d.family for d in devs] == [None, None]
    assert devs[0].vendor == "pci-1fff" and devs[0].kind == "accelerator"


# ---------------------------------------------------------------------------------------
# functions by class first; ids validated; vendors without pci.ids
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", ["068000", "020000", "010802", "0c0330", "060400"])
def test_a_driver_never_makes_a_bridge_network_storage_or_bus_function_an_accelerator(tmp_path, cls):
    root = tmp_path / "hgx"
    pci_function(root, "0000:05:00.0", "10de", "22a3", cls, driver="nvidia")   # NVSwitch
    pci_function(root, "0000:06:00.0", "10de", "2335", "030200", driver="nvidia")  # H200
    devs = probe(root).devices
    assert [d.pci_id for d in devs] == ["10de:2335"]


def test_a_driver_is_evidence_for_a_compute_class_function_no_table_knows(tmp_path):
    root = tmp_path / "t"
    pci_function(root, "0000:05:00.0", "10de", "9999", "120000", driver="nvidia")
    dev, = probe(root).devices
    assert (dev.kind, dev.family) == ("gpu", "nvidia-gpu")


@pytest.mark.parametrize("vendor,device", [(b"0x8\xff86\n", "2330"), ("10de", "\x190x\x012330"),
                                           ("zzzz", "2330"), ("10de0", "2330")])
def test_ids_that_are_not_hex_are_dropped_and_noted(tmp_path, vendor, device):
    root = tmp_path / "t"
    pci_function(root, "0000:07:00.0", vendor, device.encode() if isinstance(device, str) else device,
                 "030200", driver="nvidia")
    pci_function(root, "0000:08:00.0", "10de", "2330", "030200", driver="nvidia")
    report = run_probes(ProbeContext(root=str(root)), probes=[p for p in PROBES if p.name == "pci"])
    assert [d.pci_id for d in report.devices] == ["10de:2330"]
    assert all(re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", d.pci_id) for d in report.devices)


def test_bad_ids_are_listed_in_the_pci_meta(tmp_path):
    from accelgui.probes import pci

    root = tmp_path / "t"
    pci_function(root, "0000:07:00.0", b"0x8\xff86\n", "2330", "030200")
    out = pci.probe(ProbeContext(root=str(root)))
    assert out["pci_functions"] == []
    assert {i["path"].rsplit("/", 1)[-1] for i in out["pci_meta"]["invalid_inputs"]} >= {"vendor"}


def test_names_lose_their_control_characters(tmp_path):
    from accelgui.probes import ids

    assert ids.clean_name("Instinct\x1b[2J MI300X\x00\x85") == "Instinct [2J MI300X"
    assert ids.clean_name("\x00\x01") is None


@pytest.mark.parametrize("vid,name", [("1bcf", "nec"), ("1e52", "tenstorrent"), ("1d0f", "aws"),
                                      ("1da3", "habana"), ("19e5", "huawei"), ("1ac1", "google"),
                                      ("1e60", "hailo"), ("17cb", "qualcomm")])
def test_accelerator_vendors_are_named_without_pci_ids(vid, name):
    from accelgui.probes import ids

    assert ids.vendor_info(vid)["id"] == name


def test_every_family_claiming_a_vendor_names_it():
    from accelgui.probes import ids

    for fid, entry in families.load_families().items():
        for claim in (entry.get("claims") or {}).get("pci") or ():
            assert ids.vendor_info(claim["vendor"]), (fid, claim["vendor"])


# ---------------------------------------------------------------------------------------
# specifications, segment and form
# ---------------------------------------------------------------------------------------

def test_a_shared_id_is_told_apart_by_name_or_memory_else_budgeted_at_its_smallest_size():
    spec = families.device_spec("amd-gpu", pci_id="1002:744c", name="Radeon RX 7900 XT / 7900 XTX",
                                memory_bytes=24 << 30)
    assert spec["memory_bandwidth_gbps"] == 960
    assert families.device_spec("amd-gpu", pci_id="1002:744c", name="Radeon RX 7900 XT",
                                memory_bytes=20 << 30)["memory_bandwidth_gbps"] == 800
    both = families.device_spec("intel-gpu", pci_id="8086:56a0", name="Arc A770")
    assert (both["memory_bytes"], both["memory_bandwidth_gbps"]) == (8 << 30, 512)
    assert both["memory_sizes_bytes"] == [8 << 30, 16 << 30] and both["match"] == "id"
    assert families.device_spec("intel-gpu", pci_id="8086:56a0", name="Arc A770",
                                memory_bytes=16 << 30)["memory_bandwidth_gbps"] == 560


def test_a_device_no_id_row_names_is_matched_by_its_model_words_only():
    wsl = families.device_spec("nvidia-wsl", name="NVIDIA GeForce RTX 4090")
    assert wsl["memory_bandwidth_gbps"] == 1008 and wsl["match"] == "name"
    assert families.device_spec("nvidia-gpu", name="NVIDIA GeForce RTX 9999") is None
    # a suffix is a different product: never the desktop card's figures
    for name in ("NVIDIA GeForce RTX 4090 Laptop GPU", "AD103M [GeForce RTX 4090 Mobile / Max-Q]"):
        laptop = families.device_spec("nvidia-wsl", name=name)
        assert laptop is None or laptop["memory_bytes"] <= 16 << 30, name
    ti = families.device_spec("nvidia-wsl", name="NVIDIA GeForce RTX 3060 Ti")
    assert ti is None or ti["memory_bytes"] == 8 << 30


def _seg(family, name, integrated=False, bus="pci"):
    dev = {"name": name, "integrated": integrated, "bus": bus, "details": {}}
    return inventory._segment_form(dev, families.family(family), None)


def test_segments_from_names_and_families():
    assert _seg("nvidia-gpu", "NVIDIA GeForce RTX 3060") == ("consumer", "discrete")
    assert _seg("nvidia-gpu", "NVIDIA RTX A4000") == ("workstation", "discrete")
    assert _seg("nvidia-gpu", "NVIDIA A10G") == ("data-centre", "discrete")
    assert _seg("intel-gpu", "Intel Arc A380") == ("consumer", "discrete")
    assert _seg("intel-gpu", "Intel Data Center GPU Flex 140") == ("data-centre", "discrete")
    assert _seg("intel-gpu", "Intel UHD Graphics 630", integrated=True) == ("consumer", "integrated")
    assert _seg("amd-gpu", "AMD Instinct MI308X") == ("data-centre", "discrete")
    assert _seg("nvidia-wsl", "NVIDIA GPU (WSL2)") == ("consumer", "virtual")
    assert _seg("wsl-gpu", "WSL2 virtual GPU") == ("consumer", "virtual")
    assert _seg("nvidia-gpu", "NVIDIA device 10de:9999") == (None, "discrete")


def test_loader_accessors():
    assert families.family("habana")["id"] == "habana-gaudi"            # an older id
    assert families.canonical("amd-npu") == "amd-xdna"
    assert families.family_for("10de", "2330", "gpu") == "nvidia-gpu"
    assert families.family_for("10de", "2330", "npu") is None
    assert families.family_for_usb("18d1:9302") == "coral-edgetpu-usb"
    assert families.family_for_driver("habanalabs") == ("accelerator", "habana-gaudi")
    assert families.family_for_driver("vfio-pci") is None
    assert families.driver_rule("amdgpu")["companion"] == {"node": "dev/kfd", "required": True}
    assert families.sysfs_classes()["accel"][0] == "dev/accel/{}"
    assert families.record_patterns().match("nvidia0") and families.record_patterns().match("kfd")
    assert not families.record_patterns().match("sda")
    assert "throttle_bits" in families.family_telemetry("nvidia-gpu")      # the monitor's entry
    assert families.family_telemetry("amd-gpu")["fields"]["util_pct"]["path"] == "device/gpu_busy_percent"
    assert families.family_telemetry("hailo") is None
    assert (families.vendor_kind("1002"), families.vendor_kind("19e5")) == ("gpu", "npu")
    assert families.vendor_kind("8086") is None and families.vendor_kind("1234") is None
    assert families.text("amd-gpu", "fixes", "driver")["zh"]


def test_every_recorded_tree_gives_devices_the_schema_accepts():
    import jsonschema
    from pathlib import Path

    import accelgui

    schema = json.loads((Path(accelgui.__file__).parent / "report.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    machines = Path(__file__).parent / "fixtures" / "machines"
    for tree in sorted(machines.glob("acc-*")):
        devices = probe(tree).to_dict()["devices"]
        for dev in devices:
            errors = list(validator.evolve(schema=schema["$defs"]["device"]).iter_errors(dev))
            assert not errors, (tree.name, dev["name"], [e.message for e in errors[:3]])
        assert all(d["family"] for d in devices), tree.name      # every family is known here


def test_nvml_ids_and_names_are_checked_before_they_enter_the_report():
    priv = {"nvml": {"ok": True, "source": "nvml",
                     "gpus": [{"pci_address": "0000:09:00.0", "pci_id": "10de:\x19zz",
                               "name": "NVIDIA H100\x1b[31m\x07"}]}}
    dev, = inventory.build_devices(priv, {"toolkits": {}})
    assert dev["pci_id"] is None and dev["name"] == "NVIDIA H100 [31m"
    priv["nvml"]["gpus"][0]["pci_id"] = "10DE:2330"
    assert inventory.build_devices(priv, {"toolkits": {}})[0]["pci_id"] == "10de:2330"


def test_a_family_vendor_names_a_device_in_a_tree_without_pci_ids(acme, tmp_path):
    root = tmp_path / "t"
    pci_function(root, "0000:03:00.0", "1fff", "0009", "120000")
    dev, = probe(root).devices
    assert dev.vendor == "acme" and dev.name == "Acme device 1fff:0009"


def test_an_apu_with_soldered_memory_has_its_bandwidth_but_not_a_memory_size():
    """Strix Halo (one PCI id for the 8040S/8050S/8060S): 256-bit LPDDR5X-8000 is a fact of the
    chip; the memory size is the board's, so the row gives no memory_bytes."""
    row = families.device_spec("amd-gpu", pci_id="1002:1586", name="AMD Radeon 8060S Graphics",
                               memory_bytes=68719476736)
    assert row["memory_bandwidth_gbps"] == 256 and row["form"] == "integrated"
    assert "memory_bytes" not in row and row["as_of"] and row["review_by"] and row["source"]


@pytest.mark.parametrize(("make", "reason", "why"), [
    (lambda p: p.write_text("{not json"), "unparseable", "not valid JSON"),
    (lambda p: p.write_text(json.dumps(dict(ACME, id="other"))), "unparseable", "is not the file's name"),
    (lambda p: p.write_text(json.dumps(dict(ACME, claims={"pci": [{"devices": ["0001"]}]}))), "unparseable",
     "claims.pci[0]"),
    (lambda p: p.write_bytes(b" " * (5 << 20) + b"{}"), "unreadable", "larger than 4 MiB"),
    (lambda p: os.mkfifo(p), "not-a-file", "not a regular file"),
    (lambda p: p.symlink_to("/dev/zero"), "not-a-file", "not a regular file"),
])
def test_a_broken_site_family_is_left_out_whole_and_named_in_the_warnings(tmp_path, monkeypatch, make, reason,
                                                                          why):
    """The shipped families stay usable; the pci probe says which file was not used, and why."""
    folder = tmp_path / "families"
    folder.mkdir()
    make(folder / "acme-npu.json")
    monkeypatch.setenv(families.ENV_DIRS, f"{folder}{os.pathsep}{tmp_path / 'missing'}")
    families.reset()
    try:
        assert families.family("acme-npu") is None and families.family("nvidia-gpu") is not None
        report = probe(_acme_tree(tmp_path / "tree"))
        pci = next(p for p in report.probes if p.name == "pci")
        warnings = {(w["path"], w["reason"]) for w in pci.warnings}
        assert any(str(folder) in path and why in path and got == reason for path, got in warnings), warnings
        assert any("missing: cannot list it" in path for path, _ in warnings), warnings
        assert all(d.family != "acme-npu" for d in report.devices)
    finally:
        monkeypatch.delenv(families.ENV_DIRS)
        families.reset()
