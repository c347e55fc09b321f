"""The macOS backend: the report's sections from ``sysctl``, ``sw_vers`` and
``system_profiler`` (run live, or read from a recorded folder: commands.py says how each
output is recognised). Apple silicon and Intel Macs; Apple GPUs (cores, Metal family, the
unified memory and macOS's limit on GPU-wired memory), AMD/NVIDIA/Intel GPUs with their VRAM,
eGPUs, the Neural Engine by chip, USB accelerators (Coral)."""

from __future__ import annotations

from accelgui.probes import Probe

NAME = "macos"

# system_profiler is slow (seconds) the first time: its probes may wait longer than the run's
PROBES: list[Probe] = [
    Probe("platform", "platforms.macos.system:platform_probe", 35.0),
    Probe("cpu", "platforms.macos.system:cpu_probe", 15.0),
    Probe("memory", "platforms.macos.system:memory_probe", 35.0),
    Probe("devices", "platforms.macos.devices:probe", 35.0),
    Probe("software", "platforms.macos.devices:software_probe", 35.0),
]
