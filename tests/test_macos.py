"""The macOS backend on recorded Macs (tests/fixtures/machines/mac-*): OS, CPU, memory, every
GPU with its real memory and Apple GPU core count, the Neural Engine, USB accelerators, the
GPU-wired memory limit in the estimates; JSON, property-list and localised text alike."""

from __future__ import annotations

import json
import os
import plistlib

import pytest

from accelgui.estimates import estimates
from accelgui.probes.context import ProbeContext
from accelgui.probes.platforms.macos import profiler, system
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")
GIB = 1 << 30


def probe(name: str) -> dict:
    return run_probes(ProbeContext(os.path.join(MACHINES, name)), timeout_s=10).to_dict()


def devices(report: dict, kind: str) -> list[dict]:
    return [d for d in report["devices"] if d["kind"] == kind]


@pytest.fixture(scope="module")
def m1pro():
    return probe("mac-m1pro-laptop")


def test_an_m1_pro_laptop(m1pro):
    plat, cpu = m1pro["platform"], m1pro["cpu"]
    assert (plat["os"], plat["os_release"], plat["kernel"], plat["machine"]) == \
        ("macOS", "macOS 14.4.1 (23E224)", "23.4.0", "aarch64")
    assert plat["dmi"] == {"sys_vendor": "Apple Inc.", "product_name": "MacBookPro18,3",
                           "product_family": "MacBook Pro"}
    assert cpu["codename"] == "Apple M1 Pro"
    assert (cpu["vendor"], cpu["model_name"], cpu["microarchitecture"], cpu["logical_cpus"]) == \
        ("apple", "Apple M1 Pro", "m1", 10)
    assert [(t["cores"], t["model_name"]) for t in cpu["core_types"]] == \
        [(8, "Apple M1 Pro performance cores"), (2, "Apple M1 Pro efficiency cores")]
    assert {"neon", "dotprod", "fp16", "fhm"} <= set(cpu["features"])
    assert "sme" not in cpu["features"] and "bf16" not in cpu["features"]      # FEAT_*: 0
    assert cpu["caches"]["l2"] == {"size_bytes": 2 * 12 * 2**20 + 4 * 2**20, "instances": 3}
    assert m1pro["memory"]["total_bytes"] == 32 * GIB
    assert m1pro["memory"]["bandwidth_spec_gbps"] == 200
    assert all(p["status"] == "ok" for p in m1pro["probes"]), m1pro["probes"]


def test_the_apple_gpu_its_cores_memory_and_wired_limit(m1pro):
    (gpu,) = devices(m1pro, "gpu")
    d = gpu["details"]
    assert (gpu["vendor"], gpu["name"], gpu["family"], gpu["readiness"]) == \
        ("apple", "Apple M1 Pro GPU", "apple-gpu", "ready")
    assert (d["gpu_cores"], d["metal"], d["memory_bytes"], d["soc"]) == (16, "Metal 3", 32 * GIB, "t6000")
    assert d["gpu_memory_limit_bytes"] == int(32 * GIB * 2 / 3)                 # the default
    assert d["specification"]["match"] == "id" and d["memory_bandwidth_gbps"] == 200
    assert gpu["ladder"][1]["detail_msg"]["id"] == "devices.ladder.driver_macos"


def test_the_neural_engine_and_a_coral_waiting_for_its_firmware(m1pro):
    (ane,) = devices(m1pro, "npu")
    assert ane["name"] == "Apple M1 Pro Neural Engine"
    assert (ane["details"]["cores"], ane["details"]["tops_int8_spec"]) == (16, 11)
    (coral,) = [d for d in m1pro["devices"] if d["bus"] == "usb"]
    assert coral["usb_id"] == "1a6e:089a" and coral["readiness"] == "runtime-missing"


def test_the_estimates_budget_the_gpu_wired_limit_not_all_unified_memory(m1pro):
    gpu = next(e for e in estimates(m1pro)["devices"] if "GPU" in e["device"])
    assert gpu["memory_total_bytes"] == 32 * GIB
    assert gpu["memory_bytes"] == int(32 * GIB * 2 / 3)
    assert "gpu_memory_limit_bytes" in gpu["memory_source"]


def test_an_intel_mac_with_an_amd_gpu_from_json_and_utf16_sysctl():
    report = probe("mac-intel-radeon")
    cpu = report["cpu"]
    assert (cpu["vendor"], cpu["arch"], cpu["logical_cpus"], cpu["threads_per_core"]) == ("intel", "x86_64", 16, 2)
    assert {"avx2", "fma", "f16c"} <= set(cpu["features"]) and "avx512f" not in cpu["features"]
    assert cpu["max_mhz"] == 2300 and cpu["caches"]["l3"]["size_bytes"] == 16 * 2**20
    igpu, amd = devices(report, "gpu")
    assert (igpu["pci_id"], igpu["integrated"], igpu["details"]["memory_bytes"]) == ("8086:3e9b", True, None)
    assert (amd["pci_id"], amd["integrated"], amd["family"]) == ("1002:7340", False, "amd-gpu")
    assert amd["details"]["memory_bytes"] == 8 * GIB                          # VRAM (Total), not RAM
    assert amd["readiness"] == "ready" and not devices(report, "npu")


def test_chinese_text_is_read_by_its_labels_and_values():
    report = probe("mac-m2-air-zh")
    assert report["platform"]["dmi"]["product_name"] == "Mac14,2"
    assert (report["cpu"]["model_name"], report["cpu"]["logical_cpus"]) == ("Apple M2", 8)
    assert [t["cores"] for t in report["cpu"]["core_types"]] == [4, 4]
    assert report["memory"]["total_bytes"] == 16 * GIB
    (gpu,) = devices(report, "gpu")
    assert (gpu["name"], gpu["details"]["gpu_cores"], gpu["details"]["metal"]) == ("Apple M2 GPU", 10, "Metal 3")


def test_a_partial_capture_reports_what_it_has():
    report = probe("mac-m4pro-partial")
    assert report["platform"]["os_release"] is None and report["platform"]["dmi"]["product_name"] == "Mac16,11"
    assert {"sme", "sme2", "bf16", "i8mm"} <= set(report["cpu"]["features"])
    (gpu,) = devices(report, "gpu")
    assert gpu["details"]["gpu_cores"] == 20
    assert gpu["details"]["gpu_memory_limit_bytes"] == 40960 << 20           # iogpu.wired_limit_mb
    assert gpu["details"]["gpu_memory_limit_source"]["id"] == "platforms.gpu_limit.sysctl"
    (ane,) = devices(report, "npu")
    assert ane["details"]["tops_int8_spec"] == 38


def test_the_wired_limit_above_36_gb_is_three_quarters():
    ctx = ProbeContext("/nonexistent-accelgui")
    assert system.gpu_memory_limit(ctx, 64 * GIB)[0] == 48 * GIB
    assert system.gpu_memory_limit(ctx, 16 * GIB)[0] == int(16 * GIB * 2 / 3)


DISPLAYS = {"SPDisplaysDataType": [{
    "_name": "kHW_AppleM3MaxItem", "sppci_model": "Apple M3 Max", "sppci_cores": "40",
    "spdisplays_vendor": "sppci_vendor_Apple", "sppci_bus": "spdisplays_builtin",
    "spdisplays_mtlgpufamilysupport": "spdisplays_metal3"}, {
    "_name": "AMD Radeon RX 6800 XT", "sppci_model": "AMD Radeon RX 6800 XT", "spdisplays_vendor": "sppci_vendor_amd",
    "spdisplays_device-id": "0x73bf", "spdisplays_vram": "16 GB", "sppci_bus": "spdisplays_pcie_device",
    "sppci_slot_name": "Thunderbolt@1,0,0"}]}


def test_json_and_plist_forms_give_the_same_items():
    as_json = profiler.parse(json.dumps(DISPLAYS))
    xml = plistlib.dumps([{"_dataType": "SPDisplaysDataType", "_items": DISPLAYS["SPDisplaysDataType"]}]).decode()
    assert as_json == profiler.parse(xml) == DISPLAYS
    assert profiler.parse('{"SPDisplaysDataType": [{"sppci_model": "Apple M1"') == {}    # cut short


def test_an_egpu_and_a_40_core_m3_max(tmp_path):
    (tmp_path / "sp.json").write_text(json.dumps(DISPLAYS))
    (tmp_path / "sysctl.txt").write_text("hw.memsize: 137438953472\nmachdep.cpu.brand_string: Apple M3 Max\n"
                                         "hw.machine: arm64\n")
    report = run_probes(ProbeContext(str(tmp_path))).to_dict()
    egpu, apple = devices(report, "gpu")                  # PCI devices sort first
    assert apple["details"]["memory_bandwidth_gbps"] == 400 and apple["details"]["gpu_cores"] == 40
    assert apple["details"]["gpu_memory_limit_bytes"] == 96 * GIB
    assert (egpu["pci_id"], egpu["details"]["memory_bytes"], egpu["integrated"]) == ("1002:73bf", 16 * GIB, False)
    assert egpu["details"]["memory_bandwidth_gbps"] == 512                  # the family's row
    assert egpu["details"]["external"] is True and "external" not in apple["details"]


def test_the_text_outline_survives_labels_with_colons_and_deep_nesting():
    nodes = profiler.parse_text("Hardware:\n\n    Hardware Overview:\n\n"
                                "      System Firmware Version: 2022.100.22.0.0 (iBridge: 21.16.5077.0.0,0)\n")
    leaf = nodes[0]["children"][0]["children"][0]
    assert (leaf["label"], leaf["value"]) == ("System Firmware Version", "2022.100.22.0.0 (iBridge: 21.16.5077.0.0,0)")
    deep = "X:\n" + "".join(" " * (2 * i) + f"k{i}:\n" for i in range(1, 3000))
    assert profiler.parse_text(deep)            # no recursion limit, bounded


def test_the_internal_item_name_and_metal_4(tmp_path):
    """-json as some macOS versions write it: the item named kHW_AppleM1ProItem, no
    sppci_model, Metal 4, a display with its serial (never copied into the report)."""
    gpu = {"_name": "kHW_AppleM1ProItem", "spdisplays_mtlgpufamilysupport": "spdisplays_metal4",
           "spdisplays_ndrvs": [{"_name": "Color LCD", "_spdisplays_display-serial-number": "fd626d62"}],
           "spdisplays_vendor": "sppci_vendor_Apple", "sppci_bus": "spdisplays_builtin", "sppci_cores": "14"}
    (tmp_path / "displays.json").write_text(json.dumps({"SPDisplaysDataType": [gpu]}, indent=2))
    report = run_probes(ProbeContext(str(tmp_path))).to_dict()
    (gpu_dev,) = devices(report, "gpu")
    assert (gpu_dev["name"], gpu_dev["details"]["metal"], gpu_dev["details"]["gpu_cores"]) == \
        ("Apple M1 Pro GPU", "Metal 4", 14)
    assert "fd626d62" not in json.dumps(report)
    assert profiler.apple_chip("kHW_AppleM2Item") == "Apple M2" and profiler.apple_chip("Intel Iris") is None


def test_hostile_profiler_outputs_give_nothing_not_an_error(tmp_path):
    (tmp_path / "deep.json").write_text('{"SPDisplaysDataType": [' + "[" * 200000 + "]" * 200000 + "]}")
    (tmp_path / "sysctl.txt").write_text("hw.ncpu: 8\nhw.memsize: 8589934592\nhw.machine: arm64\n")
    report = run_probes(ProbeContext(str(tmp_path)), timeout_s=10).to_dict()
    assert all(p["status"] in ("ok", "absent", "partial") for p in report["probes"]), report["probes"]
    assert report["memory"]["total_bytes"] == 8 << 30 and not devices(report, "gpu")


def test_a_live_mac_runs_its_commands_through_the_runner(monkeypatch):
    """Live on macOS (faked): the same probes, fed by the commands run once each."""
    from accelgui.probes import platforms, software

    source = ProbeContext(os.path.join(MACHINES, "mac-m1pro-laptop"))
    outputs = {platforms.command(k).argv: source.output(k) for k in source.recorded_commands}
    ran = []

    def fake(argv, timeout_s):
        ran.append(argv)
        return outputs.get(argv), None

    monkeypatch.setattr(platforms, "live_platform", lambda sys_platform=None: "macos")
    monkeypatch.setattr(software, "environments", lambda ctx: [{"name": "venv", "packages": {"torch": "2.5.1"}}])
    ctx = ProbeContext("/", run_command=fake)
    report = run_probes(ctx, timeout_s=10).to_dict()
    assert sorted(ran) == sorted(outputs)                   # each command once
    assert report["cpu"]["model_name"] == "Apple M1 Pro" and report["memory"]["available_bytes"]
    assert report["software"]["packages"] == {"torch": "2.5.1"} and report["software"]["packages_known"]
    assert [d["name"] for d in devices(report, "gpu")] == ["Apple M1 Pro GPU"]


def test_a_real_partial_capture_of_a_mac_vm():
    """py-cpuinfo's recorded `sysctl machdep.cpu hw.cpufrequency` (MIT): the CPU only."""
    report = probe("mac-intel-vm-sysctl")
    cpu = report["cpu"]
    assert (cpu["model_name"], cpu["vendor"], cpu["arch"]) == ("Intel(R) Core(TM) i5-4440 CPU @ 3.10GHz", "intel", "x86_64")
    assert (cpu["logical_cpus"], cpu["cores_per_socket"], cpu["max_mhz"]) == (4, 4, 2890)
    assert "avx" not in cpu["features"] and "ssse3" in cpu["features"]
    assert report["platform"]["virtualization"] == "vm"
    assert report["memory"]["total_bytes"] is None and report["devices"] == []
    assert {p["name"]: p["status"] for p in report["probes"]}["memory"] == "absent"


def test_usb_accelerators_nested_under_hubs_in_json(tmp_path):
    usb = {"SPUSBDataType": [{"_name": "USB31Bus", "host_controller": "AppleT8103USBXHCI", "_items": [
        {"_name": "USB3.1 Hub", "product_id": "0x0620", "vendor_id": "0x05e3  (Genesys Logic, Inc.)", "_items": [
            {"_name": "Coral USB Accelerator", "product_id": "0x9302", "vendor_id": "0x18d1  (Google Inc.)",
             "location_id": "0x01120000 / 3", "device_speed": "super_speed", "manufacturer": "Google Inc."}]}]}]}
    (tmp_path / "usb.json").write_text(json.dumps(usb, indent=2))
    report = run_probes(ProbeContext(str(tmp_path))).to_dict()
    (coral,) = report["devices"]
    assert (coral["usb_id"], coral["bus"], coral["address"]) == ("18d1:9302", "usb", "0x01120000 / 3")


def _replay(tmp_path, files: dict) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return run_probes(ProbeContext(str(tmp_path)), timeout_s=10).to_dict()


def test_what_users_paste_the_overview_without_its_outline(tmp_path):
    """As posts and READMEs quote it: the overview's lines, flat, after a shell prompt."""
    report = _replay(tmp_path, {"mac.txt": "% system_profiler SPHardwareDataType\n"
                                "Model Name: MacBook Air\nModel Identifier: MacBookAir10,1\nChip: Apple M1\n"
                                "Total Number of Cores: 8 (4 performance and 4 efficiency)\nMemory: 16 GB\n"
                                "Chipset Model: Apple M1\nType: GPU\nBus: Built-In\nTotal Number of Cores: 7\n"
                                "Vendor: Apple (0x106b)\nMetal Support: Metal 3\n"})
    assert report["platform"]["os"] == "macOS" and report["platform"]["dmi"]["product_name"] == "MacBookAir10,1"
    assert (report["cpu"]["model_name"], report["cpu"]["logical_cpus"]) == ("Apple M1", 8)
    assert report["memory"]["total_bytes"] == 16 * GIB
    (gpu,) = devices(report, "gpu")
    assert gpu["details"]["gpu_cores"] == 7                    # the GPU's cores, not the CPU's


def test_an_intel_mac_in_text_only_with_an_egpu(tmp_path):
    report = _replay(tmp_path, {"sp.txt": """$ system_profiler SPHardwareDataType SPDisplaysDataType
Hardware:

    Hardware Overview:

      Model Name: MacBook Pro
      Model Identifier: MacBookPro15,1
      Processor Name: 6-Core Intel Core i7
      Processor Speed: 2,6 GHz
      Number of Processors: 1
      Total Number of Cores: 6
      L2 Cache (per Core): 256 KB
      L3 Cache: 9 MB
      Hyper-Threading Technology: Enabled
      Memory: 16 GB

Graphics/Displays:

    Intel UHD Graphics 630:

      Chipset Model: Intel UHD Graphics 630
      Type: GPU
      Bus: Built-In
      VRAM (Dynamic, Max): 1536 MB
      Vendor: Intel
      Device ID: 0x3e9b
      Revision ID: 0x0000
      Metal Family: Supported, Metal GPUFamily macOS 2

    Radeon RX 580:

      Chipset Model: Radeon RX 580
      Type: External GPU
      Bus: PCIe
      PCIe Lane Width: x4
      VRAM (Total): 8 GB
      Vendor: AMD (0x1002)
      Device ID: 0x67df
      Revision ID: 0x00e7
      Metal Family: Supported, Metal GPUFamily macOS 2
"""})
    cpu = report["cpu"]
    assert (cpu["vendor"], cpu["arch"], cpu["cores_per_socket"], cpu["logical_cpus"]) == ("intel", "x86_64", 6, 12)
    igpu, egpu = devices(report, "gpu")
    assert (igpu["pci_id"], igpu["integrated"], igpu["details"]["memory_bytes"]) == ("8086:3e9b", True, None)
    assert (egpu["pci_id"], egpu["details"]["memory_bytes"], egpu["details"]["external"]) == ("1002:67df", 8 * GIB, True)
    assert igpu["details"].get("external") is None


def test_one_sysctl_line_is_enough(tmp_path):
    report = _replay(tmp_path, {"mem.txt": "hw.memsize: 68719476736\n"})
    assert report["platform"]["os"] == "macOS" and report["memory"]["total_bytes"] == 64 * GIB


def test_a_language_no_table_lists_is_read_by_its_values(tmp_path):
    """German labels: none is in labels.json, the values say what they are."""
    report = _replay(tmp_path, {"sp.txt": """Hardware:

    Hardware-Übersicht:

      Modellname: MacBook Pro
      Modell-Identifizierung: MacBookPro18,3
      Chip: Apple M1 Pro
      Gesamtanzahl der Kerne: 10 (8 Leistung und 2 Effizienz)
      Speicher: 32 GB

Grafik/Monitore:

    Apple M1 Pro:

      Chipsatz-Modell: Apple M1 Pro
      Typ: GPU
      Bus: Integriert
      Gesamtanzahl der Kerne: 16
      Hersteller: Apple (0x106b)
"""})
    assert report["platform"]["dmi"]["product_name"] == "MacBookPro18,3"
    assert (report["cpu"]["model_name"], report["cpu"]["logical_cpus"]) == ("Apple M1 Pro", 10)
    assert [t["cores"] for t in report["cpu"]["core_types"]] == [8, 2]
    assert report["memory"]["total_bytes"] == 32 * GIB
    (gpu,) = devices(report, "gpu")
    assert gpu["name"] == "Apple M1 Pro GPU" and gpu["details"]["gpu_cores"] == 16     # its only bare number


def test_lines_built_to_make_a_parser_backtrack_cost_linear_time(tmp_path):
    import time

    line = 60000
    (tmp_path / "sysctl.txt").write_text("hw.ncpu: 8\nhw.memsize: 8589934592\n")
    (tmp_path / "spaces.txt").write_text("Hardware:\n\n    Overview:\n\n      a" + " " * line + "\n" * 3)
    (tmp_path / "colons.txt").write_text("Hardware:\n\n    Overview:\n\n      " + "a:" * (line // 2) + "\n")
    (tmp_path / "plists.txt").write_text("<plist" * (line // 6))
    (tmp_path / "cores.txt").write_text("Model Identifier: Mac1,1\nChip: Apple M1\nx: 1 (1" + "y" * line + "\n")
    start = time.monotonic()
    report = run_probes(ProbeContext(str(tmp_path)), timeout_s=20).to_dict()
    assert time.monotonic() - start < 5
    assert report["memory"]["total_bytes"] == 8 << 30
    assert all(p["status"] != "timeout" for p in report["probes"])
