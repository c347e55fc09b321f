"""The Windows backend's readers: each layout PowerShell, wmic, reg, dxdiag and nvidia-smi
write, the PnP ids, the dedicated-memory rules, the recognisers, and hostile input (cut,
binary, UTF-16 of odd length, huge lines) giving no exception."""

from __future__ import annotations

import json
import os
import random

import pytest

from accelgui.probes.platforms import recorded
from accelgui.probes.platforms.windows import commands, devices, records, software
from accelgui.probes.platforms.windows import text as layouts

MACHINES = os.path.join(os.path.dirname(__file__), "fixtures", "machines")
WIN = sorted(n for n in os.listdir(MACHINES) if n.startswith("win-"))


def test_format_list_joins_wrapped_values_and_splits_objects():
    text = ("\nName        : A\nInstalledDisplayDrivers : C:\\x\\nvldumdx.dll,C:\\Repos\n"
            "                          itory\\y.dll\n\nName        : B\nStatus      : OK\n")
    objs = layouts.format_list(text)
    assert [o["Name"] for o in objs] == ["A", "B"]
    assert objs[0]["InstalledDisplayDrivers"] == "C:\\x\\nvldumdx.dll,C:\\Repository\\y.dll"


def test_wmic_lists_written_with_cr_cr_lf_are_one_object_each():
    raw = "\r\r\n\r\r\nAdapterRAM=1\r\r\nName=A\r\r\n\r\r\n\r\r\nAdapterRAM=2\r\r\nName=B\r\r\n\r\r\n"
    text = recorded.decode(b"\xff\xfe" + raw.encode("utf-16-le"))
    assert [(o["AdapterRAM"], o["Name"]) for o in records.objects(text)] == [("1", "A"), ("2", "B")]


def test_cim_instances_in_powershell_5_and_7_json_are_flattened():
    ps5 = {"CimClass": "root/cimv2:Win32_VideoController",
           "CimInstanceProperties": [{"Name": "AdapterRAM", "Value": 4293918720, "CimType": 6}],
           "CimSystemProperties": {"ClassName": "Win32_VideoController"}}
    ps7 = {"Name": "X", "CimClass": {"CimClassName": "Win32_Processor"}}
    objs = layouts.json_objects(json.dumps([ps5, ps7]))
    assert objs[0]["AdapterRAM"] == 4293918720 and objs[0]["__CLASS"] == "Win32_VideoController"
    assert records.wmi_class(objs[1]) == "Win32_Processor"
    assert layouts.json_objects('PS C:\\> {"Name": "only one"}') == [{"Name": "only one"}]
    assert layouts.json_objects('[{"a": 1}, {"b": 2}, {"c": ') == [{"a": 1}, {"b": 2}]
    assert layouts.json_objects("[{") is None


def test_a_class_is_told_from_its_own_properties_when_the_name_is_missing():
    assert records.wmi_class({"Capacity": "1", "DeviceLocator": "DIMM 0"}) == "Win32_PhysicalMemory"
    assert records.wmi_class({"TotalPhysicalMemory": "1"}) == "Win32_ComputerSystem"
    assert records.wmi_class({"SystemCreationClassName": "Win32_ComputerSystem", "InstanceId": "x"}) == \
        "Win32_PnPEntity"
    assert records.wmi_class({"Foo": "1"}) is None


def test_tables_with_dashes_and_wmics_default_table():
    ft = ("Status     Class           FriendlyName          InstanceId\n"
          "------     -----           ------------          ----------\n"
          "OK         ComputeAccel... Intel(R) AI Boost     PCI\\VEN_8086&DEV_7D1D&SUBSYS_...\n")
    row = layouts.tables(ft)[0]
    assert row["Class"] == "ComputeAccel..." and row["InstanceId"].startswith("PCI\\VEN_8086&DEV_7D1D")
    wmic = ("AdapterRAM  DeviceID          Name                       VideoArchitecture\n"
            "4293918720  VideoController1  NVIDIA GeForce RTX 4090    5\n"
            "1073741824  VideoController2  Intel(R) UHD Graphics 770  5\n")
    rows = records.objects(wmic)
    assert [(r["AdapterRAM"], r["Name"]) for r in rows] == [("4293918720", "NVIDIA GeForce RTX 4090"),
                                                            ("1073741824", "Intel(R) UHD Graphics 770")]


def test_wmic_default_tables_of_a_few_properties_are_recognised():
    cpu = ("Name                                      NumberOfCores  NumberOfLogicalProcessors  \n"
           "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz   6              12                         \n")
    mem = "BankLabel  Capacity     Speed  \nBANK 0     17179869184  3200   \nBANK 2     17179869184  3200   \n"
    assert recorded.recognise(cpu, commands.COMMANDS) == "windows.processor"
    assert recorded.recognise(mem, commands.COMMANDS) == "windows.physical_memory"
    (proc,) = records.of_class([cpu], "Win32_Processor")
    assert (proc["Name"], proc["NumberOfCores"]) == ("Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", "6")
    assert [m["Capacity"] for m in records.of_class([mem], "Win32_PhysicalMemory")] == ["17179869184"] * 2


def test_registry_values_in_export_and_query_forms():
    export = ('Windows Registry Editor Version 5.00\n\n'
              '[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\'
              '{4d36e968-e325-11ce-bfc1-08002be10318}\\0000]\n'
              '"DriverDesc"="AMD Radeon RX 7900 XTX"\n"MatchingDeviceId"="pci\\\\ven_1002&dev_744c"\n'
              '"HardwareInformation.qwMemorySize"=hex(b):00,00,00,00,\\\n  06,00,00,00\n'
              '"HardwareInformation.MemorySize"=dword:fff00000\n')
    key = records.display_keys([export])[0]
    assert key["qw_memory"] == 24 << 30 and key["memory"] == 0xFFF00000
    assert key["matching_id"]["vendor"] == "1002" and key["desc"] == "AMD Radeon RX 7900 XTX"
    query = ("HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\"
             "{4d36e968-e325-11ce-bfc1-08002be10318}\\0001\n"
             "    DriverDesc    REG_SZ    NVIDIA GeForce RTX 4060 Laptop GPU\n"
             "    MatchingDeviceId    REG_SZ    pci\\ven_10de&dev_28a0\n"
             "    HardwareInformation.MemorySize    REG_BINARY    0000F0FF\n"
             "    HardwareInformation.qwMemorySize    REG_QWORD    0x200000000\n")
    key = records.display_keys([query])[0]
    assert key["qw_memory"] == 8 << 30 and key["memory"] == 0xFFF00000


def test_registry_values_as_get_itemproperty_shows_them():
    fl = ("\nDriverDesc                        : Intel(R) Arc(TM) A770 Graphics\n"
          "MatchingDeviceId                  : pci\\ven_8086&dev_56a0\n"
          "HardwareInformation.MemorySize    : {0, 0, 240, 255}\n"
          "HardwareInformation.qwMemorySize  : 17179869184\n"
          "PSPath                            : Microsoft.PowerShell.Core\\Registry::HKEY_LOCAL_MACHINE\\SYSTEM\\"
          "ControlSet001\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0000\n")
    key = records.display_keys([fl])[0]
    assert key["qw_memory"] == 16 << 30 and key["memory"] == 0xFFF00000
    as_json = '[{"DriverDesc": "X", "MatchingDeviceId": "pci\\\\ven_1002&dev_73bf", ' \
              '"HardwareInformation.MemorySize": [0, 0, 240, 255], "HardwareInformation.qwMemorySize": 17163091968}]'
    key = records.display_keys([as_json])[0]
    assert key["memory"] == 0xFFF00000 and key["qw_memory"] == 17163091968


def test_pnp_ids():
    pci = records.pnp_id("PCI\\VEN_10DE&DEV_2684&SUBSYS_889D1043&REV_A1\\4&2283F625&0&0019")
    assert (pci["vendor"], pci["device"], pci["subsystem"], pci["revision"]) == ("10de", "2684", ("1043", "889d"), "a1")
    assert pci["instance"] == "4&2283F625&0&0019"
    assert records.pnp_id("Enum\\PCI\\VEN_8086&DEV_7D55&SUBSYS_053B1854&REV_08")["instance"] is None
    legacy = records.pnp_id("ACPI\\QCOM0C36\\0")
    assert (legacy["bus"], legacy["vendor"], legacy["device"]) == ("acpi", "qcom", "0c36")
    assert records.pnp_id("USB\\VID_1A6E&PID_089A\\5&1")["vendor"] == "1a6e"
    assert records.pnp_id("PCI\\VEN_ZZZZ&DEV_1")["vendor"] is None
    assert records.pnp_id("just text") is None and records.pnp_id(None) is None
    assert records.root_bus_location(records.pnp_id("PCI\\VEN_8086&DEV_7D1D\\3&11583659&0&58")) == "0000:00:0b.0"
    assert records.root_bus_location(pci) is None           # behind a bridge: bus unknown
    assert records.pci_location("PCI bus 1, device 0, function 0") == "0000:01:00.0"


@pytest.mark.parametrize("adapter, expected", [
    ({"adapter_ram": 4293918720}, (None, None, 4293918720)),
    ({"adapter_ram": -1048576}, (None, None, 0xFFF00000)),          # read as a signed int32
    ({"adapter_ram": 2147483648}, (2147483648, "WMI AdapterRAM (32-bit)", None)),
    ({"adapter_ram": 4293918720, "registry": {"qw_memory": 12 << 30}},
     (12 << 30, "registry HardwareInformation.qwMemorySize", None)),
    ({"adapter_ram": 4293918720, "dedicated": 24560 << 20}, (24560 << 20, "dxdiag Dedicated Memory", None)),
    ({"smi": {"memory_bytes": 8188 << 20}, "registry": {"qw_memory": 8 << 30}}, (8188 << 20, "nvidia-smi", None)),
])
def test_dedicated_memory_never_takes_a_saturated_32_bit_field(adapter, expected):
    assert devices.dedicated_memory(adapter) == expected


def test_problem_codes_as_numbers_and_as_powershell_7_names():
    assert devices._problem({"ConfigManagerErrorCode": "0"}) is None
    assert devices._problem({"ConfigManagerErrorCode": 43}) == 43
    assert devices._problem({"Problem": "CM_PROB_NONE"}) is None
    assert devices._problem({"Problem": "CM_PROB_FAILED_START"}) == "CM_PROB_FAILED_START"


def test_nvidia_driver_numbers_from_windows_driver_versions():
    assert software.nvidia_driver_from_windows("31.0.15.5186") == "551.86"
    assert software.nvidia_driver_from_windows("27.21.14.5671") == "456.71"
    assert software.nvidia_driver_from_windows("32.0.15.6094") == "560.94"
    assert software.nvidia_driver_from_windows("garbage") is None


def test_coreinfo_flags_in_the_kernels_names():
    from accelgui.probes.platforms.windows import hardware

    text = ("Intel64 Family 6 Model 140 Stepping 2, GenuineIntel\nSSE3      \t*\tSupports SSE3\n"
            "AVX-512-F \t*\tSupports AVX-512 Foundation instructions\n"
            "AVX-512-VNNI\t*\tSupports AVX-512 neural network instructions\n"
            "AVX-512-PF\t-\tSupports AVX-512 prefetch instructions\nAMX-BF16  *  Supports AMX bfloat16\n")
    assert hardware.coreinfo_flags(text) == ["pni", "avx512f", "avx512_vnni", "amx_bf16"]


def test_pip_list_and_freeze():
    assert software.parse_pip("Package  Version\n-------- -------\ntorch    2.3.1+cu121\n") == {"torch": "2.3.1+cu121"}
    assert software.parse_pip("numpy==1.26.4\nryzen-ai==1.2.0\n") == {"numpy": "1.26.4", "ryzen-ai": "1.2.0"}


def test_dxdiag_in_any_language_by_value_forms():
    text = ("---------------\nAnzeigeger\u00e4te\n---------------\n       Kartenname: X\n"
            "  Ger\u00e4teschl\u00fcssel: Enum\\PCI\\VEN_1002&DEV_744C&SUBSYS_E471174B&REV_C8\n"
            "  Anzeigespeicher: 40878 MB\n  Dedizierter Speicher: 24560 MB\n  Gemeinsam: 16318 MB\n"
            "       Kartenname: Y\n  Ger\u00e4teschl\u00fcssel: Enum\\PCI\\VEN_8086&DEV_A780\n")
    found = records.dxdiag(text)
    assert [d["name"] for d in found["displays"]] == ["X", "Y"]
    assert found["displays"][0]["dedicated_bytes"] == 24560 << 20
    assert found["displays"][1]["dedicated_bytes"] is None


def test_nvidia_smi_xml_with_entities_is_refused_not_expanded():
    bomb = ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
            '<nvidia_smi_log><driver_version>&b;</driver_version></nvidia_smi_log>')
    assert records.nvidia_smi_xml(bomb) == {"driver_version": None, "cuda_version": None, "gpus": []}


def test_recognisers_are_linear_on_a_huge_line():
    line = "A" * (64 << 10)
    for cmd in commands.COMMANDS:
        assert cmd.recognise(line) in (True, False)
    keys = [c.key for c in commands.COMMANDS]
    assert len(keys) == len(set(keys)) and all(k.startswith("windows.") for k in keys)


_EXPECTED = {"Win32_VideoController": "windows.video_controller", "wmic path win32_videocontroller":
             "windows.video_controller", "Win32_Processor": "windows.processor", "wmic cpu": "windows.processor",
             "Win32_PhysicalMemory": "windows.physical_memory", "memorychip": "windows.physical_memory",
             "Win32_OperatingSystem": "windows.operating_system", "Win32_ComputerSystem": "windows.computer_system",
             "Win32_BIOS": "windows.bios", "Win32_SystemEnclosure": "windows.system_enclosure",
             "Win32_PnPSignedDriver": "windows.signed_drivers", "Get-PnpDevice": "windows.pnp_devices",
             "pnputil": "windows.pnp_devices", "coreinfo": "windows.coreinfo", "nvcc": "windows.nvcc",
             "nvidia-smi -q -x": "windows.nvidia_smi_xml", "nvidia-smi -q.": "windows.nvidia_smi",
             "dxdiag": "windows.dxdiag", "reg ": "windows.display_registry", "pip ": "windows.pip",
             "wsl ": "windows.wsl", "System32": "windows.system32_dlls"}


def test_every_recorded_file_is_claimed_by_its_command():
    every = commands.COMMANDS
    checked = 0
    for machine in WIN:
        folder = os.path.join(MACHINES, machine)
        for name in os.listdir(folder):
            hint = next((key for part, key in _EXPECTED.items() if part in name), None)
            if hint is None:
                continue
            with open(os.path.join(folder, name), "rb") as f:
                text = recorded.decode(f.read())
            assert recorded.recognise(text, every) == hint, (machine, name)
            checked += 1
    assert checked >= 35


def _mangled(data: bytes, rng: random.Random) -> list[bytes]:
    cut = rng.randrange(1, max(2, len(data)))
    flip = bytearray(data)
    for _ in range(8):
        if flip:
            flip[rng.randrange(len(flip))] = rng.randrange(256)
    return [data[:cut], data[cut:], bytes(flip), data[:cut] + b"\x00" * 3 + data[cut:],
            b"\xff\xfe" + data[: cut | 1], bytes(rng.randrange(256) for _ in range(512))]


def test_cut_and_corrupted_captures_never_raise():
    rng = random.Random(23)
    parsers = (records.objects, records.dxdiag, records.nvidia_smi_text, records.nvidia_smi_xml,
               lambda t: records.display_keys([t]), software.parse_pip, layouts.reg_export, layouts.reg_query)
    for machine in WIN:
        folder = os.path.join(MACHINES, machine)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()[:20000]
            for variant in _mangled(data, rng):
                text = recorded.decode(variant)
                for parse in parsers:
                    parse(text or "")
