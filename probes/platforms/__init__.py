"""Platform backends: which probes describe a machine, by the operating system it runs.

As psutil keeps one module per OS behind one interface, accelgui keeps one backend per OS
behind the probe interface of :mod:`accelgui.probes`: every backend's probes take a
:class:`~accelgui.probes.context.ProbeContext` and return fragments of the same sections
(``platform``, ``cpu``, ``memory``, ``devices`` through the inventory's private keys,
``software``). Linux is the reference: its backend is the existing probes, unchanged.

A backend is the package ``accelgui.probes.platforms.<name>`` defining ``PROBES`` (a list of
:class:`~accelgui.probes.Probe`), and, for an OS recorded as command outputs (macOS,
Windows), ``<name>.commands.COMMANDS``: the commands it reads, each with the recogniser
that tells its output from any other (a recorded folder is read by content, file names
are for people). ``commands`` modules hold regexes only, so recognising a folder imports
nothing heavy. See docs/recorded-machines.md.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Callable, NamedTuple

BACKENDS = ("linux", "macos", "windows")
RECORDED_AS_COMMANDS = ("macos", "windows")     # in BACKENDS order: the first claim wins
# entries of a recorded Linux tree (probes/record.py writes these): one is enough to say so
LINUX_TREE_ENTRIES = frozenset(("proc", "sys", "etc", "dev", "usr", "run", "lib", "var", "opt"))


class Command(NamedTuple):
    """A command a backend reads: ``key`` (``"<os>.<what>"``) is what probes ask for,
    ``argv`` the command line run live and by ``--record-tree`` (the program resolved on
    PATH unless absolute), ``recognise(text)`` whether a decoded output is this command's,
    ``timeout_s`` its time limit, ``also`` other command lines that give the same output."""

    key: str
    argv: tuple[str, ...]
    recognise: Callable[[str], bool]
    timeout_s: float = 20.0
    also: tuple[tuple[str, ...], ...] = ()

    @property
    def os(self) -> str:
        return self.key.partition(".")[0]


def live_platform(sys_platform: str | None = None) -> str:
    """The backend of the running system (``sys.platform`` unless given)."""
    name = sys.platform if sys_platform is None else sys_platform
    if name == "darwin":
        return "macos"
    if name in ("win32", "cygwin"):
        return "windows"
    return "linux"


def backend(name: str):
    """The backend package ``name`` (one of BACKENDS), imported on first use."""
    if name not in BACKENDS:
        raise ValueError(f"no platform backend {name!r}")
    return importlib.import_module(f"accelgui.probes.platforms.{name}")


def commands(name: str) -> tuple[Command, ...]:
    """The commands backend ``name`` reads; () for Linux or a backend not installed."""
    if name not in RECORDED_AS_COMMANDS:
        return ()
    try:
        module = importlib.import_module(f"accelgui.probes.platforms.{name}.commands")
    except ImportError:
        return ()
    return tuple(getattr(module, "COMMANDS", ()))


def all_commands() -> list[Command]:
    """Every backend's commands, in the order recognisers are tried."""
    return [c for name in RECORDED_AS_COMMANDS for c in commands(name)]


def command(key: str) -> Command | None:
    """The command of ``key`` (``"macos.sysctl"``), or None."""
    return next((c for c in commands(key.partition(".")[0]) if c.key == key), None)


def looks_like_linux_tree(root: str) -> bool | None:
    """True when ``root`` holds a recorded Linux tree's folders, False when it does not,
    None when it cannot be listed."""
    try:
        names = os.listdir(root)
    except OSError:
        return None
    return any(n in LINUX_TREE_ENTRIES for n in names)


def probes_for(ctx):
    """The probes that describe the machine of ``ctx`` (its ``platform``)."""
    name = ctx.platform
    if name == "linux":
        from accelgui.probes import PROBES

        return PROBES
    try:
        return list(backend(name).PROBES)
    except ImportError:             # a backend not installed: say what the machine is
        from accelgui.probes import Probe

        return [Probe("platform", "platforms.common:unsupported_probe")]
