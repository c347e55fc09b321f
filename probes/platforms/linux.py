"""The Linux backend: the reference probes of :mod:`accelgui.probes`, read from sysfs,
procfs and the files of a recorded tree. Nothing here changes them."""

from __future__ import annotations

from accelgui.probes import PROBES

NAME = "linux"

__all__ = ["NAME", "PROBES"]
