"""The Windows backend: a Windows 10/11 machine (x64 or arm64) described from WMI,
the display class registry keys, ``dxdiag /t``, ``nvidia-smi``, ``pip list`` and ``wsl``,
recorded as a folder of command outputs or, on Windows itself, run live (bounded, no shell).

Modules: ``commands`` (what is read and how each output is recognised), ``text`` (the
layouts PowerShell, wmic and reg write), ``records`` (WMI objects, PnP ids, registry keys,
dxdiag, nvidia-smi), ``hardware`` (platform, CPU, memory), ``devices`` (GPUs and NPUs),
``software``. Replayed on any OS: ``accelgui --probe --sysroot FOLDER``.
"""

from __future__ import annotations

from accelgui.probes import Probe

NAME = "windows"

PROBES: list[Probe] = [
    Probe("platform", "platforms.windows.hardware:platform_probe"),
    Probe("cpu", "platforms.windows.hardware:cpu_probe"),
    Probe("memory", "platforms.windows.hardware:memory_probe"),
    Probe("devices", "platforms.windows.devices:probe", 60.0),
    Probe("software", "platforms.windows.software:probe"),
]
