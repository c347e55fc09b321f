"""The one vendor table (probes/data/vendors.json): schema, uniqueness, and every face naming
vendors through it."""

import json
from pathlib import Path

import jsonschema

from accelgui.probes import families, ids

DATA = Path(__file__).resolve().parents[1] / "probes" / "data"


def _table() -> dict:
    return json.loads((DATA / "vendors.json").read_text(encoding="utf-8"))


def test_vendor_table_matches_its_schema():
    schema = json.loads((DATA / "vendors.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(_table())


def test_each_pci_and_usb_vendor_id_belongs_to_one_vendor():
    seen: dict[tuple[str, str], str] = {}
    for vid, entry in _table()["vendors"].items():
        for bus, ids_ in (("pci", entry.get("pci") or {}), ("usb", entry.get("usb") or [])):
            for number in ids_:
                assert (bus, number) not in seen, (bus, number, vid, seen.get((bus, number)))
                seen[(bus, number)] = vid


def test_every_family_vendor_is_named_by_the_table():
    for fid, entry in families.load_families().items():
        assert ids.vendor_name(entry["vendor"]), (fid, entry["vendor"])


def test_lookups_by_pci_usb_and_short_id():
    assert ids.vendor_info("10DE") == {"id": "nvidia", "name": "NVIDIA"}
    assert ids.vendor_info("1ac1")["kind"] == "tpu"
    assert ids.usb_vendor_info("18d1")["id"] == "google"
    assert ids.vendor_info("ffff") is None
    assert ids.vendor_name("huawei", "zh") == "\u534e\u4e3a"
    assert ids.vendor_name("nvidia", "zh") == "NVIDIA"         # no zh entry: its own name
    assert ids.vendor_name("no-such-vendor") is None


def test_rules_and_the_window_take_names_from_the_table():
    from accelgui import rules

    assert rules.device_label({"vendor": "tenstorrent", "name": "Wormhole n300"}) == \
        "Tenstorrent Wormhole n300"
    assert rules.device_label({"vendor": "mthreads", "name": "MTT S80"}) == "Moore Threads MTT S80"
    assert not hasattr(rules, "_VENDOR_NAMES")
    assert "vendors" not in json.loads((DATA / "accelerators.json").read_text(encoding="utf-8"))


def test_hardware_view_names_vendors_per_language():
    from accelgui.gui.views import hardware

    assert hardware.value_text("vendor", "habana", "en") == "Habana"
    assert hardware.value_text("vendor", "rockchip", "zh") == "\u745e\u82af\u5fae"
    assert hardware.value_text("vendor", "acme-unknown", "en") == "acme-unknown"
    assert hardware.value_text("bus", "pcie", "en") == "PCIe"
