"""The Windows commands accelgui reads, and how each one's output is told from any other.

A recorded Windows machine is a folder of these outputs, one file per command, in whatever
form the user saved them: ``Get-CimInstance ... | Format-List *`` or ``| ConvertTo-Json``
(PowerShell 5 or 7), ``Get-WmiObject``, ``wmic ... get /format:list`` (UTF-16 with a BOM, as
wmic writes a redirected file), ``reg export``/``reg query``, ``dxdiag /t``, ``nvidia-smi -q``
(or ``-q -x``), ``pip list``, ``wsl -l -v``. The recognisers read WMI property names,
registry value names and layouts, which no locale translates; never a file name.

Live (and for ``--record-tree``) each command runs through PowerShell with UTF-8 output and
``ConvertTo-Json``: structured, never wrapped at the console's width.
"""

from __future__ import annotations

import re

from accelgui.probes.platforms import Command

_PS = ("powershell.exe", "-NoProfile", "-NonInteractive", "-Command")
_UTF8 = "[Console]::OutputEncoding=[Text.Encoding]::UTF8; "
DISPLAY_CLASS_KEY = r"HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"


# properties left out of what is run and recorded: they name the machine or its owner
# (the host name is read from Win32_ComputerSystem.DNSHostName, which the recorder blanks)
_PRIVATE = ("Cim*", "SystemName", "CSName", "PSComputerName", "RegisteredUser", "Organization")
_PRIVATE_CS = ("Name", "Caption", "Domain", "Workgroup", "PrimaryOwnerName", "UserName", "OEMStringArray")


def _cim(cls: str, private: tuple[str, ...] = ()) -> tuple[str, ...]:
    excluded = ",".join(_PRIVATE + private)
    return _PS + (f"{_UTF8}Get-CimInstance -ClassName {cls} | Select-Object -Property * "
                  f"-ExcludeProperty {excluded} | ConvertTo-Json -Depth 2",)


def _by_hand(cls: str, wmic: str) -> tuple[tuple[str, ...], ...]:
    return (("Get-CimInstance", cls, "|", "Format-List", "*"),
            ("Get-CimInstance", cls, "|", "ConvertTo-Json"),
            ("Get-WmiObject", cls, "|", "Format-List", "*"),
            ("wmic", "path", wmic, "get", "/format:list"))


def _has(pattern: str, flags: int = 0):
    rx = re.compile(pattern, flags)
    return lambda text: rx.search(text) is not None


def _all(*patterns: str):
    rxs = [re.compile(p, re.M | re.I) for p in patterns]
    return lambda text: all(rx.search(text) for rx in rxs)


def _prop(*names: str):
    """Text that names one of these properties (as ``Name : v``, ``Name=v``, ``"Name": v``
    or a table header does): WMI property names are the same in every locale."""
    return _has(r"\b(?:%s)\b" % "|".join(names))


def _dxdiag(text: str) -> bool:
    return bool(re.search(r"(?m)^-{6,}\n[^\n]+\n-{6,}$", text)) and (
        "DxDiag" in text or bool(re.search(r"(?mi)^\s*[^:\n]{1,40}: Enum\\(PCI|ACPI)\\", text)))


COMMANDS: tuple[Command, ...] = (
    Command("windows.nvidia_smi_xml", ("nvidia-smi", "-q", "-x"), _has(r"<nvidia_smi_log\b")),
    Command("windows.nvidia_smi", ("nvidia-smi", "-q"),
            lambda t: "NVSMI LOG" in t or _all(r"^Driver Version\s+:", r"^Attached GPUs\s+:")(t)),
    Command("windows.nvidia_smi_table", ("nvidia-smi",),
            _all(r"NVIDIA-SMI \d", r"Driver Version:", r"^\|\s+\d+\s+\S")),
    Command("windows.dxdiag", _PS + (
        "$p = Join-Path $env:TEMP 'accelgui-dxdiag.txt'; Start-Process -FilePath dxdiag.exe "
        "-ArgumentList '/t',$p -Wait -WindowStyle Hidden; " + _UTF8 +
        "Get-Content -Raw -LiteralPath $p; Remove-Item -LiteralPath $p",),
            _dxdiag, timeout_s=90.0, also=(("dxdiag", "/t", "dxdiag.txt"),)),
    Command("windows.display_registry", ("reg", "query", DISPLAY_CLASS_KEY, "/s"),
            _all(r"4d36e968-e325-11ce-bfc1-08002be10318",
                 r"HardwareInformation\.|DriverDesc|MatchingDeviceId"),
            also=(("reg", "export", DISPLAY_CLASS_KEY, "display.reg"),
                  ("Get-ItemProperty", DISPLAY_CLASS_KEY.replace("HKLM", "HKLM:") + "\\0*"))),
    Command("windows.video_controller", _cim("Win32_VideoController"),
            _prop("AdapterRAM", "VideoProcessor", "AdapterDACType"),
            also=_by_hand("Win32_VideoController", "win32_videocontroller")),
    Command("windows.physical_memory", _cim("Win32_PhysicalMemory"),
            _prop("DeviceLocator", "SMBIOSMemoryType", "ConfiguredClockSpeed", "BankLabel"),
            also=_by_hand("Win32_PhysicalMemory", "win32_physicalmemory")),
    Command("windows.processor", _cim("Win32_Processor"),
            _prop("L2CacheSize", "ProcessorId", "NumberOfEnabledCore", "NumberOfCores"),
            also=_by_hand("Win32_Processor", "win32_processor")),
    Command("windows.operating_system", _cim("Win32_OperatingSystem"),
            _prop("TotalVisibleMemorySize", "OSArchitecture"),
            also=_by_hand("Win32_OperatingSystem", "win32_operatingsystem")),
    Command("windows.computer_system", _cim("Win32_ComputerSystem", _PRIVATE_CS),
            _prop("TotalPhysicalMemory", "PCSystemType", "HypervisorPresent"),
            also=_by_hand("Win32_ComputerSystem", "win32_computersystem")),
    Command("windows.bios", _cim("Win32_BIOS"), _prop("SMBIOSBIOSVersion"),
            also=_by_hand("Win32_BIOS", "win32_bios")),
    Command("windows.baseboard", _cim("Win32_BaseBoard"), _prop("HostingBoard"),
            also=_by_hand("Win32_BaseBoard", "win32_baseboard")),
    Command("windows.system_enclosure", _cim("Win32_SystemEnclosure"),
            _prop("SMBIOSAssetTag", "ChassisTypes"),
            also=_by_hand("Win32_SystemEnclosure", "win32_systemenclosure")),
    Command("windows.computer_info", _PS + (f"{_UTF8}Get-ComputerInfo | ConvertTo-Json -Depth 1",),
            _prop("CsManufacturer", "OsBuildNumber", "WindowsProductName"), timeout_s=60.0,
            also=(("Get-ComputerInfo",), ("Get-ComputerInfo", "|", "Format-List", "*"))),
    Command("windows.systeminfo", ("systeminfo.exe",),
            _all(r"^\s+\[01\]: \S", r"-based PC"), timeout_s=60.0),
    Command("windows.signed_drivers", _PS + (
        f"{_UTF8}Get-CimInstance -ClassName Win32_PnPSignedDriver | Where-Object "
        "{ $_.DeviceClass -in 'DISPLAY','COMPUTEACCELERATOR','SYSTEM' } | Select-Object "
        "DeviceName,DeviceID,DeviceClass,DriverVersion,DriverProviderName,InfName,Location,"
        "Manufacturer | ConvertTo-Json -Depth 2",),
            _prop("DriverProviderName"),
            also=(("Get-CimInstance", "Win32_PnPSignedDriver", "|", "Format-List", "*"),
                  ("wmic", "path", "win32_pnpsigneddriver", "get", "/format:list"))),
    Command("windows.pnp_devices", _PS + (
        f"{_UTF8}Get-PnpDevice -PresentOnly | Where-Object {{ $_.Class -in 'Display',"
        "'ComputeAccelerator','System' } | Select-Object Status,Class,FriendlyName,InstanceId,"
        "Manufacturer,Service,Present | ConvertTo-Json -Depth 2",),
            lambda t: _prop("InstanceId", "PNPClass")(t) or bool(
                re.search(r"(?m)^Instance ID:\s+\S", t)),
            also=(("Get-PnpDevice", "-PresentOnly"), ("Get-PnpDevice", "|", "Format-List", "*"),
                  ("pnputil", "/enum-devices", "/class", "ComputeAccelerator"))),
    Command("windows.pip", ("python", "-m", "pip", "list"),
            lambda t: bool(re.search(r"(?m)^Package\s+Version\s*\n-{3,}\s+-{3,}", t)) or len(
                re.findall(r"(?m)^[A-Za-z0-9][\w.\-]*==\S+$", t)) >= 3,
            also=(("pip", "freeze"),)),
    Command("windows.system32_dlls", ("cmd.exe", "/c", "dir", "/b", "C:\\Windows\\System32\\*.dll"),
            lambda t: len(re.findall(r"(?mi)^[\w.\-]+\.dll\s*$", t)) >= 20,
            also=(("Get-ChildItem", "C:\\Windows\\System32", "-Filter", "*.dll", "-Name"),)),
    Command("windows.coreinfo", ("coreinfo64.exe", "-accepteula", "-f"),
            lambda t: "Coreinfo v" in t or len(re.findall(r"(?m)^[A-Z][\w.\-]*\s+[*\-]\s+Supports ", t)) >= 5,
            also=(("coreinfo", "-f"),)),
    Command("windows.nvcc", ("nvcc", "--version"), _has(r"Cuda compilation tools, release \d+\.\d+"),
            timeout_s=10.0),
    Command("windows.wsl", ("wsl.exe", "--list", "--verbose"),
            _has(r"^\s*\*?\s*NAME\s+STATE\s+VERSION|Microsoft-Windows-Subsystem-Linux|"
                 r"^WSL [Vv]ersion:|^Default Version:", re.M),
            also=(("wsl", "--status"), ("wsl", "--version"),
                  ("Get-WindowsOptionalFeature", "-Online", "-FeatureName",
                   "Microsoft-Windows-Subsystem-Linux"))),
)
