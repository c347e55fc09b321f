"""Probes: explicit registry of what accelgui detects, and how their fragments merge.

A probe is a function ``(ProbeContext) -> dict`` returning a *fragment*: section names
(``cpu``, ``memory``, ``platform``, ``devices``, ``software``) mapped to JSON-ready values,
plus private keys that :func:`finalize` consumes (``nvml``...). A probe that finds nothing
to report returns ``{"_status": "absent", "_reason": "..."}`` with what fragment it has.
Modules are imported lazily, when their probe runs (by the runner, in the caller's thread: ten
threads importing at once contend for the import lock), so ``--probe`` pays only for what it runs.

PROBES are the Linux probes. Which probes describe a machine depends on its OS:
:func:`accelgui.probes.platforms.probes_for` gives PROBES for Linux (live or a recorded tree)
and the macOS or Windows backend's own list, returning fragments of the same sections.
"""

from __future__ import annotations

import importlib
from collections import namedtuple


class Probe(namedtuple("Probe", "name target timeout_s", defaults=(None,))):
    """A probe: its name in the report, its "module:function" under accelgui.probes, and
    its own timeout in seconds (None: the run's)."""

    __slots__ = ()

    def load(self):
        module, _, func = self.target.partition(":")
        return getattr(importlib.import_module(f"accelgui.probes.{module}"), func)


PROBES: list[Probe] = [
    Probe("platform", "platform:probe"),
    Probe("cpu", "cpu:probe"),
    Probe("memory", "memory:probe"),
    Probe("pci", "pci:probe"),
    Probe("usb", "usb:probe"),
    Probe("accel", "accel:probe"),
    Probe("soc", "soc:probe"),
    Probe("nvidia", "gpu_nvidia:probe"),
    Probe("amd", "gpu_amd:probe"),
    Probe("software", "software:probe"),
]


def merge(fragments: dict[str, dict]) -> dict:
    """The probes' public sections merged, their private keys under ``_private``."""
    sections: dict = {"devices": []}
    for fragment in fragments.values():
        for key, value in fragment.items():
            if key.startswith("_"):
                continue
            if key == "devices":
                sections["devices"].extend(value or [])
            elif key in ("platform", "cpu", "memory", "software"):
                sections.setdefault(key, {}).update(value or {})
            else:
                sections.setdefault("_private", {})[key] = value
    return sections


def finalize(fragments: dict[str, dict]) -> dict:
    """Merge probe fragments into report sections, then let the inventory combine the
    private keys into devices (readiness, NVML details...)."""
    from accelgui.probes import inventory

    return inventory.finalize(merge(fragments))
