"""The Windows backend on recorded Windows machines (tests/fixtures/machines/win-*): OS, CPU,
memory, every GPU/NPU with its real dedicated memory, virtual adapters kept out, and nothing
raising on partial, UTF-16 or localised captures."""

from __future__ import annotations

import os

import pytest

from accelgui.probes.context import ProbeContext
from accelgui.runner import run_probes

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")
GIB = 1 << 30
WIN = sorted(n for n in os.listdir(MACHINES) if n.startswith("win-"))


def replay(folder) -> dict:
    return run_probes(ProbeContext(str(folder)), timeout_s=20).to_dict()


def probe(name: str) -> dict:
    return replay(os.path.join(MACHINES, name))


def by_kind(report: dict, kind: str) -> list[dict]:
    return [d for d in report["devices"] if d["kind"] == kind]


def one(report: dict, kind: str, vendor: str) -> dict:
    found = [d for d in by_kind(report, kind) if d["vendor"] == vendor]
    assert len(found) == 1, [(d["name"], d["address"]) for d in report["devices"]]
    return found[0]


@pytest.fixture(scope="module")
def reports() -> dict[str, dict]:
    return {name: probe(name) for name in WIN}


def test_every_recorded_windows_machine_is_windows_and_no_probe_fails(reports):
    assert len(WIN) >= 8
    from accelgui.report import check_report

    for name, report in reports.items():
        check_report(report)                                # every field against the schema
        assert report["platform"]["os"] == "Windows", name
        assert all(p["status"] != "error" for p in report["probes"]), (name, report["probes"])


def test_a_meteor_lake_laptop_with_an_rtx_4060_and_an_npu(reports):
    r = reports["win-laptop-meteorlake-rtx4060"]
    assert r["platform"]["os_release"] == "Windows 11 Home 23H2"
    assert r["platform"]["kernel"] == "10.0.22631" and r["platform"]["machine"] == "x86_64"
    assert r["platform"]["virtualization"] is None       # HypervisorPresent (VBS) is no VM
    cpu = r["cpu"]
    assert cpu["model_name"] == "Intel(R) Core(TM) Ultra 7 155H" and cpu["codename"] == "Meteor Lake"
    assert cpu["logical_cpus"] == 22 and cpu["cores_per_socket"] == 16
    assert [(t["model_name"], t["cores"]) for t in cpu["core_types"]] == [("performance", 6), ("efficiency", 10)]
    assert r["memory"]["total_bytes"] == 33820938240
    assert r["memory"]["bandwidth_spec_gbps"] == 89.6          # 2 channels of DDR5-5600
    nvidia = one(r, "gpu", "nvidia")
    assert nvidia["address"] == "0000:01:00.0" and nvidia["integrated"] is False
    assert nvidia["details"]["memory_bytes"] == 8188 << 20   # nvidia-smi, not AdapterRAM's 4 GB
    assert nvidia["readiness"] == "ready"
    intel = one(r, "gpu", "intel")
    assert intel["integrated"] is True and intel["address"] == "0000:00:02.0"
    npu = one(r, "npu", "intel")
    assert npu["pci_id"] == "8086:7d1d" and npu["address"] == "0000:00:0b.0"
    assert npu["readiness"] == "ready"                 # PnP status OK: its driver runs
    assert r["software"]["packages"]["torch"] == "2.3.1+cu121"
    assert r["software"]["toolkits"]["nvidia_driver"] == "551.86"
    assert r["software"]["toolkits"]["cuda_driver"] == "12.4"


def test_a_lunar_lake_copilot_pc_from_compressed_json_and_pnputil(reports):
    r = reports["win-lunarlake-copilot-pc"]
    assert r["platform"]["os_release"] == "Windows 11 Home 25H2"
    assert r["cpu"]["codename"] == "Lunar Lake"
    assert r["cpu"]["core_types"] is None            # no Hyper-Threading: WMI cannot show the P/E split
    assert r["memory"]["bandwidth_spec_gbps"] == 136.5 and r["memory"]["bandwidth_spec_source"] == "table"
    npu = one(r, "npu", "intel")
    assert npu["pci_id"] == "8086:643e" and npu["readiness"] == "ready"       # pnputil: Started
    assert one(r, "gpu", "intel")["integrated"] is True


def test_a_ryzen_ai_laptop_from_utf16_wmic_lists(reports):
    r = reports["win-ryzen-ai-laptop"]
    assert r["platform"]["os_release"] == "Windows 11 Pro 24H2"
    assert r["cpu"]["model_name"] == "AMD Ryzen AI 9 HX 370 w/ Radeon 890M"
    assert r["cpu"]["microarchitecture"] == "zen5" and r["cpu"]["core_types"] is None
    assert r["memory"]["bandwidth_spec"]["memory_type"] == "LPDDR5"
    assert r["memory"]["bandwidth_spec_gbps"] == 120.0      # 128-bit LPDDR5X-7500
    gpu = one(r, "gpu", "amd")
    assert gpu["pci_id"] == "1002:150e" and gpu["integrated"] is True
    assert gpu["details"]["dedicated_memory_bytes"] == 466 << 20     # dxdiag's dedicated carve-out,
    assert gpu["details"].get("memory_bytes") is None and gpu["details"]["memory_shared"] is True  # not its memory
    assert gpu["driver"] == "amdkmdag"
    npu = one(r, "npu", "amd")
    assert npu["pci_id"] == "1022:17f0" and npu["driver"] == "kipudrv"
    assert npu["family"] == "amd-xdna"
    assert r["software"]["packages"]["ryzen-ai"] == "1.2.0"


def test_a_snapdragon_x_elite_arm64_laptop_with_adreno_and_hexagon(reports):
    r = reports["win-snapdragon-x-elite"]
    assert r["platform"]["machine"] == "aarch64"
    assert r["cpu"]["arch"] == "aarch64" and r["cpu"]["vendor"] == "qualcomm"
    assert r["cpu"]["logical_cpus"] == 12
    assert r["memory"]["bandwidth_spec_gbps"] == 135.17      # 128-bit LPDDR5X-8448
    gpu = one(r, "gpu", "qualcomm")
    assert gpu["name"] == "Qualcomm(R) Adreno(TM) X1-85 GPU" and gpu["bus"] == "platform"
    assert gpu["details"]["memory_shared"] is True and gpu["integrated"] is True
    npu = one(r, "npu", "qualcomm")
    assert "Hexagon" in npu["name"]
    assert not [d for d in r["devices"] if "Basic Render" in d["name"]]
    assert "qnn" in r["software"]["toolkits"] and "directml" in r["software"]["toolkits"]
    assert r["software"]["packages"]["onnxruntime-qnn"] == "1.19.2"


def test_adapter_ram_saturated_at_4_gb_is_never_the_size(reports):
    r = reports["win-desktop-rtx4090-adapterram"]
    gpu = one(r, "gpu", "nvidia")
    assert gpu["details"]["memory_bytes"] == 24 * GIB        # the registry's 64-bit qwMemorySize
    assert gpu["details"]["memory_source"] == "registry HardwareInformation.qwMemorySize"
    assert gpu["address"] == "0000:01:00.0"                  # Win32_PnPSignedDriver's Location
    assert len(r["devices"]) == 1                            # the Parsec virtual display is no GPU
    assert r["software"]["toolkits"]["nvidia_driver"] == "555.85"
    assert r["software"]["toolkits"]["cuda_toolkit"] == "12.5"              # nvcc --version
    assert [(t["model_name"], t["cores"]) for t in r["cpu"]["core_types"]] == [("performance", 8), ("efficiency", 16)]
    assert "avx2" in r["cpu"]["flags"] and not any(f.startswith("avx512") for f in r["cpu"]["flags"])


def test_an_azure_vm_over_rdp(reports):
    r = reports["win-azure-vm-rdp"]
    assert r["platform"]["virtualization"] == "hyperv"
    assert r["platform"]["cloud"]["provider"] == "azure"
    assert r["platform"]["os_release"] == "Windows Server 2022 Datacenter"
    gpus = by_kind(r, "gpu")
    assert [g["pci_id"] for g in gpus] == ["10de:1eb8"]      # Hyper-V Video and RDP's adapter are not GPUs
    # AdapterRAM reads 4 GB: the T4's 16 GB come from its specification row, not from WMI
    assert gpus[0]["details"]["memory_bytes"] == 16 * GIB
    assert gpus[0]["details"]["memory_source"] == "specification"


def test_a_german_desktop_reads_dxdiag_by_position_not_labels(reports):
    r = reports["win-desktop-german-radeon"]
    assert r["platform"]["os_release"] == "Windows 11 Pro 23H2"
    assert r["cpu"]["codename"] == "Raphael"
    gpu = one(r, "gpu", "amd")
    assert gpu["details"]["memory_bytes"] == 24560 << 20     # "Dedizierter Speicher", 2nd of 3 MB values
    assert r["memory"]["bandwidth_spec_gbps"] == 96.0


def test_a_partial_capture_reports_what_it_has(reports):
    r = reports["win-partial-capture"]
    assert r["platform"]["os_release"] == "Windows 11 Pro 22H2"      # cut UTF-16 of odd length
    nvidia = one(r, "gpu", "nvidia")                # a truncated JSON array and nvidia-smi XML
    assert nvidia["details"]["memory_bytes"] == 8188 << 20
    assert nvidia["address"] == "0000:01:00.0"
    assert len(by_kind(r, "gpu")) == 2              # the non-present Basic Display ghost is not a GPU
    intel = one(r, "gpu", "intel")
    assert intel["integrated"] is True
    platform = next(p for p in r["probes"] if p["name"] == "platform")
    assert {w["path"] for w in platform["warnings"]} >= {"screenshot.png", "clipboard.txt"}
    assert next(p for p in r["probes"] if p["name"] == "cpu")["status"] == "absent"


def test_record_tree_on_windows_writes_a_folder_that_replays_the_same(tmp_path):
    """--record-tree on Windows runs the backend's commands (a fake runner here answers with
    a recorded machine's outputs): the folder written replays to the same devices."""
    from accelgui.probes import record
    from accelgui.probes.platforms.windows import commands

    source = ProbeContext(os.path.join(MACHINES, "win-laptop-meteorlake-rtx4060"))
    by_argv = {c.argv: c.key for c in commands.COMMANDS}

    def run(argv, timeout_s):
        texts = source.outputs(by_argv[tuple(argv)])
        return (texts[0], None) if texts else (None, "not-found")

    written = record.record_commands(str(tmp_path), commands.COMMANDS, run=run)
    assert written == len(source.recorded_commands)
    again = replay(tmp_path)
    original = probe("win-laptop-meteorlake-rtx4060")
    keys = ("kind", "vendor", "name", "pci_id", "address", "readiness")
    assert [{k: d[k] for k in keys} for d in again["devices"]] == \
        [{k: d[k] for k in keys} for d in original["devices"]]
    assert again["cpu"]["model_name"] == original["cpu"]["model_name"]


def test_a_gpu_on_the_basic_display_driver_is_a_gpu_without_its_driver(tmp_path):
    (tmp_path / "video.txt").write_text(
        "\nName                   : Microsoft Basic Display Adapter\n"
        "PNPDeviceID            : PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1\\4&2283F625&0&0019\n"
        "AdapterRAM             : 0\nDriverVersion          : 10.0.22621.1\nConfigManagerErrorCode : 0\n\n"
        "Name                   : Microsoft Remote Display Adapter\n"
        "PNPDeviceID            : SWD\\REMOTEDISPLAYENUM\\RDPIDD_INDIRECTDISPLAY&SESSIONID_0002\n"
        "AdapterRAM             :\nConfigManagerErrorCode : 0\n\n"
        "Name                   : Microsoft Hyper-V Video\n"
        "PNPDeviceID            : VMBUS\\{DA0A7802-E377-4AAC-8E77-0558EB1073F8}\\{5620E0C7}\n"
        "AdapterRAM             : 0\nConfigManagerErrorCode : 0\n", encoding="utf-8")
    r = replay(tmp_path)
    assert r["platform"]["os"] == "Windows"
    gpu = one(r, "gpu", "nvidia")
    assert gpu["readiness"] == "driver-missing" and gpu["pci_id"] == "10de:2684"
    assert "Basic Display" not in gpu["name"]              # named from its id, not the stand-in driver
    assert gpu["details"]["memory_bytes"] == 24 * GIB      # the specification row's


def test_wsl_seen_from_windows(tmp_path):
    from accelgui.probes.platforms.windows import hardware

    (tmp_path / "wsl.txt").write_bytes("  NAME            STATE           VERSION\r\n"
                                       "* Ubuntu-24.04    Stopped         2\r\n  Legacy    Running   1\r\n"
                                       .encode("utf-16-le"))
    (tmp_path / "os.txt").write_text("Caption : Microsoft Windows 11 Pro\nBuildNumber : 26100\n"
                                     "OSArchitecture : 64-bit\nTotalVisibleMemorySize : 100\n")
    found = hardware.wsl(ProbeContext(str(tmp_path)))
    assert found["wsl2"] is True
    assert [(d["name"], d["version"], d["default"]) for d in found["distributions"]] == \
        [("Ubuntu-24.04", 2, True), ("Legacy", 1, False)]


def test_dxdiag_alone_names_the_os_cpu_memory_gpu_and_the_npus_driver(tmp_path):
    import shutil

    shutil.copy(os.path.join(MACHINES, "win-ryzen-ai-laptop", "dxdiag _t dxdiag.txt"), tmp_path)
    r = replay(tmp_path)
    assert r["platform"]["os_release"] == "Windows 11 Pro 24H2"
    assert r["cpu"]["model_name"] == "AMD Ryzen AI 9 HX 370 w/ Radeon 890M" and r["cpu"]["logical_cpus"] == 24
    assert r["memory"]["total_bytes"] == 32768 << 20
    assert one(r, "gpu", "amd")["details"]["dedicated_memory_bytes"] == 466 << 20
    npu = one(r, "npu", "amd")                       # from System Devices, with its driver file
    assert npu["driver"] == "kipudrv" and npu["readiness"] == "ready"


def test_one_pasted_file_with_several_commands_and_their_prompts(tmp_path):
    base = os.path.join(MACHINES, "win-laptop-meteorlake-rtx4060")
    parts = []
    for cls in ("Win32_VideoController", "Win32_Processor", "Win32_OperatingSystem"):
        with open(os.path.join(base, f"Get-CimInstance {cls} pipe Format-List star.txt"), encoding="utf-8") as f:
            parts.append(f"PS C:\\Users\\me> Get-CimInstance {cls} | fl *\n" + f.read())
    (tmp_path / "forum post.txt").write_text("\n".join(parts) + "\nPS C:\\Users\\me>\n", encoding="utf-8")
    r = replay(tmp_path)
    assert r["platform"]["os_release"] == "Windows 11 Home 23H2"
    assert r["cpu"]["model_name"] == "Intel(R) Core(TM) Ultra 7 155H"
    assert sorted(d["pci_id"] for d in by_kind(r, "gpu")) == ["10de:28a0", "8086:7d55"]
    # AdapterRAM reads 4 GB: the 8 GB of the RTX 4060 Laptop GPU come from its specification row
    assert one(r, "gpu", "nvidia")["details"]["memory_bytes"] == 8 * GIB


def test_an_npu_listed_as_a_system_device_is_still_an_npu(tmp_path):
    (tmp_path / "pnp.txt").write_text(
        "\nStatus     Class           FriendlyName            InstanceId\n"
        "------     -----           ------------            ----------\n"
        "OK         System          Intel(R) AI Boost       PCI\\VEN_8086&DEV_643E&SUBSYS_00000000&REV_04\\3&11583659&0&38\n"
        "OK         System          PCI Express Root Port   PCI\\VEN_8086&DEV_A83E&SUBSYS_00000000&REV_10\\3&11583659&0&E0\n",
        encoding="utf-8")
    r = replay(tmp_path)
    npu = one(r, "npu", "intel")
    assert npu["pci_id"] == "8086:643e" and npu["address"] == "0000:00:07.0"
    assert len(r["devices"]) == 1


def test_live_on_windows_runs_the_commands_and_asks_nvml(monkeypatch):
    """On a (faked) live Windows: each command runs once through the runner, NVML's answer
    (WDDM) is merged into the GPU at its PCI location, and no Linux file is read."""
    from accelgui.probes import gpu_nvidia, platforms
    from accelgui.probes.platforms.windows import commands

    source = ProbeContext(os.path.join(MACHINES, "win-desktop-rtx4090-adapterram"))
    by_argv = {c.argv: c.key for c in commands.COMMANDS}
    ran = []

    def run(argv, timeout_s):
        ran.append(by_argv[tuple(argv)])
        texts = source.outputs(by_argv[tuple(argv)])
        return (texts[0], None) if texts else (None, "not-found")

    nvml = {"ok": True, "source": "nvml", "driver_version": "555.85", "nvidia_driver": "555.85",
            "cuda_driver": "12.5", "gpus": [{"pci_address": "0000:01:00.0", "name": "NVIDIA GeForce RTX 4090",
                                             "memory_bytes": 25757220864, "compute_capability": 8.9}]}
    monkeypatch.setattr(platforms, "live_platform", lambda sys_platform=None: "windows")
    monkeypatch.setattr(gpu_nvidia, "query_nvml", lambda nvml_module=None: nvml)
    r = run_probes(ProbeContext("/", run_command=run), timeout_s=20).to_dict()
    assert r["platform"]["os"] == "Windows" and r["cpu"]["model_name"] == "Intel(R) Core(TM) i9-14900K"
    gpu = one(r, "gpu", "nvidia")
    assert gpu["details"]["memory_bytes"] == 25757220864 and gpu["details"]["memory_source"] == "nvml"
    assert gpu["details"]["compute_capability"] == 8.9 and gpu["readiness"] == "ready"
    assert len(ran) == len(set(ran))                      # each command once


def test_two_identical_gpus_keep_their_own_location_and_figures(tmp_path):
    video, drivers = "", ""
    smi = "==============NVSMI LOG==============\n\nDriver Version : 551.86\nCUDA Version : 12.4\n\n"
    for inst, bus in (("4&1A&0&0008", 1), ("4&2B&0&0010", 65)):
        video += (f"\nName          : NVIDIA GeForce RTX 3090\nPNPDeviceID   : "
                  f"PCI\\VEN_10DE&DEV_2204&SUBSYS_38801462&REV_A1\\{inst}\nAdapterRAM    : 4293918720\n")
        drivers = (f"\nDeviceName         : NVIDIA GeForce RTX 3090\nDeviceID           : "
                   f"PCI\\VEN_10DE&DEV_2204&SUBSYS_38801462&REV_A1\\{inst}\nDeviceClass        : DISPLAY\n"
                   f"DriverVersion      : 31.0.15.5186\nDriverProviderName : NVIDIA\n"
                   f"Location           : PCI bus {bus}, device 0, function 0\n") + drivers   # listed the other way
    for bus, uuid, mib in (("01", "GPU-aaaa", 24576), ("41", "GPU-bbbb", 24575)):
        smi += (f"GPU 00000000:{bus}:00.0\n    Product Name : NVIDIA GeForce RTX 3090\n    GPU UUID : {uuid}\n"
                f"    PCI\n        Device Id : 0x220410DE\n        Bus Id : 00000000:{bus}:00.0\n"
                f"        Sub System Id : 0x38801462\n    FB Memory Usage\n        Total : {mib} MiB\n")
    (tmp_path / "video.txt").write_text(video)
    (tmp_path / "drivers.txt").write_text(drivers)
    (tmp_path / "smi.txt").write_text(smi)
    r = replay(tmp_path)
    assert [(d["address"], d["details"]["uuid"], d["details"]["memory_bytes"] >> 20) for d in r["devices"]] == \
        [("0000:01:00.0", "GPU-aaaa", 24576), ("0000:41:00.0", "GPU-bbbb", 24575)]


def test_get_computer_info_stands_in_for_the_wmi_classes(tmp_path):
    (tmp_path / "Get-ComputerInfo.txt").write_text(
        "\nWindowsBuildLabEx   : 22621.1.amd64fre.ni_release.220506-1250\nWindowsProductName  : Windows 10 Pro\n"
        "BiosManufacturer    : LENOVO\nBiosSMBIOSBIOSVersion : N3JET41W (1.23 )\nCsManufacturer      : LENOVO\n"
        "CsModel             : 21CB000GGE\nCsName              : THINKPAD-X1\nCsSystemType        : x64-based PC\n"
        "CsTotalPhysicalMemory : 16893886464\nOsName              : Microsoft Windows 11 Pro\n"
        "OsBuildNumber       : 22631\nOsOperatingSystemSKU : 48\nOsFreePhysicalMemory : 8388608\n"
        "OsArchitecture      : 64-Bit\n", encoding="utf-8")
    r = replay(tmp_path)
    assert r["platform"]["os_release"] == "Windows 11 Pro 23H2"   # by build (WindowsProductName says 10)
    assert r["platform"]["dmi"]["product_name"] == "21CB000GGE" and r["platform"]["machine"] == "x86_64"
    assert r["memory"]["total_bytes"] == 16893886464 and r["memory"]["available_bytes"] == 8388608 << 10


_SMI_TABLE = """Tue Jun 11 20:14:07 2024
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 555.85                 Driver Version: 555.85         CUDA Version: 12.5     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0  On |                  Off |
|  0%   38C    P8             17W /  450W |    1021MiB /  24564MiB |      3%      Default |
+-----------------------------------------+------------------------+----------------------+
"""


def test_the_nvidia_smi_table_users_paste(tmp_path):
    (tmp_path / "nvidia-smi.txt").write_text(_SMI_TABLE)
    alone = replay(tmp_path)
    gpu = one(alone, "gpu", "nvidia")            # known by nvidia-smi alone: no PCI id, said so
    assert gpu["pci_id"] is None and gpu["details"]["memory_bytes"] == 24564 << 20
    assert next(p for p in alone["probes"] if p["name"] == "devices")["status"] == "ok"
    import shutil

    shutil.copy(os.path.join(MACHINES, "win-desktop-rtx4090-adapterram",
                             "Get-WmiObject Win32_VideoController pipe Format-List star.txt"), tmp_path)
    both = replay(tmp_path)
    gpu = one(both, "gpu", "nvidia")             # joined to WMI's adapter by name: one GPU, its id
    assert (gpu["pci_id"], gpu["address"]) == ("10de:2684", "0000:01:00.0")
    assert gpu["details"]["memory_bytes"] == 24564 << 20
    assert both["software"]["toolkits"]["cuda_driver"] == "12.5"


def test_systeminfo_by_value_forms_in_any_language(tmp_path):
    english = ("\nHost Name:                 DESKTOP-8K2M1QP\nOS Name:                   Microsoft Windows 11 Pro\n"
               "OS Version:                10.0.22631 N/A Build 22631\nSystem Manufacturer:       Micro-Star International Co., Ltd.\n"
               "System Model:              MS-7D91\nSystem Type:               x64-based PC\n"
               "Processor(s):              1 Processor(s) Installed.\n"
               "                           [01]: Intel64 Family 6 Model 183 Stepping 1 GenuineIntel ~3200 Mhz\n"
               "Total Physical Memory:     65,277 MB\nAvailable Physical Memory: 48,901 MB\n")
    (tmp_path / "systeminfo.txt").write_text(english)
    r = replay(tmp_path)
    assert r["platform"]["os_release"] == "Windows 11 Pro 23H2" and r["platform"]["machine"] == "x86_64"
    assert r["cpu"]["codename"] == "Raptor Lake" and r["memory"]["total_bytes"] == 65277 << 20
    german = ("\nHostname:                                  PC-BUERO\nBetriebssystemname:                        "
              "Microsoft Windows 11 Pro\nBetriebssystemversion:                     10.0.26100 Nicht zutreffend Build 26100\n"
              "Systemtyp:                                 x64-based PC\nProzessor(en):                             "
              "1 Prozessor(en) installiert.\n                                           [01]: AMD64 Family 25 Model 97 "
              "Stepping 2 AuthenticAMD ~4501 MHz\nGesamter physischer Speicher:              65.277 MB\n")
    (tmp_path / "systeminfo.txt").write_text(german, encoding="utf-8")
    r = replay(tmp_path)
    assert r["platform"]["os_release"] == "Windows 11 24H2"          # the edition's label is German: unknown
    assert r["cpu"]["codename"] == "Raphael"
    assert r["memory"]["total_bytes"] == 65277 << 20          # the first "N MB" line: systeminfo's order


def test_redact_removes_what_identifies_a_windows_machine():
    import json

    from accelgui.redact import redact

    report = run_probes(ProbeContext(os.path.join(MACHINES, "win-laptop-meteorlake-rtx4060")), timeout_s=20)
    text = json.dumps(redact(report).to_dict())
    for secret in ("LAPTOP-7Q2K9F", "GPU-5b0e2c1a-8f7d-4c3e-9a61-2d4f8e7b6c10"):
        assert secret in json.dumps(report.to_dict()) and secret not in text


def test_a_32_bit_size_below_4_gb_gives_way_to_the_specification(tmp_path):
    """Some drivers wrap AdapterRAM instead of saturating it (a 6 GB card reading 2 GB):
    where the specification row knows the card, its size stands; an iGPU keeps WMI's as its
    dedicated carve-out (it computes in the machine's memory)."""
    (tmp_path / "video.txt").write_text(
        "\nName        : NVIDIA GeForce RTX 4090\nPNPDeviceID : PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1\\4&1&0&0019\n"
        "AdapterRAM  : 2147483648\nDriverVersion : 32.0.15.5585\n\n"
        "Name        : Intel(R) UHD Graphics\nPNPDeviceID : PCI\\VEN_8086&DEV_A7A8&SUBSYS_0B2A1028&REV_04\\3&1&0&10\n"
        "AdapterRAM  : 134217728\nDriverVersion : 31.0.101.4255\n")
    r = replay(tmp_path)
    assert one(r, "gpu", "nvidia")["details"]["memory_bytes"] == 24 * GIB
    assert one(r, "gpu", "nvidia")["details"]["memory_source"] == "specification"
    assert one(r, "gpu", "intel")["details"]["dedicated_memory_bytes"] == 134217728
    assert one(r, "gpu", "intel")["details"].get("memory_bytes") is None
