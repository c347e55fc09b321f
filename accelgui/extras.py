"""The optional parts of accelgui and what says so when one is missing.

``pip install accelgui`` is the headless probe, monitor and Prometheus exporter; the desktop app
(and the PDF export) need the ``gui`` extra, the benchmarks the ``bench`` extra (pyproject.toml).
Only standard-library imports here: the headless paths import this module.
"""

from __future__ import annotations

import importlib.util
import sys

#: extra -> the top-level modules it provides (what is looked for, not imported)
EXTRAS = {
    "gui": ("PySide6", "pyqtgraph"),
    "bench": ("numba", "numpy"),
}
EXIT_MISSING = 2


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be found (found but broken is the importer's to say)."""
    out = []
    for name in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):   # a finder refused it, or a half-removed package
            found = False
        if not found:
            out.append(name)
    return out


def message(extra: str, what: str, names: list[str]) -> str:
    return (f"accelgui: {what} needs the '{extra}' extra, which is not installed "
            f"(missing: {', '.join(names)}).\n"
            f"Install it into this environment with:\n"
            f"  {_pip()} install 'accelgui[{extra}]'\n")


def _pip() -> str:
    return f"{sys.executable} -m pip" if sys.executable else "pip"


def require(extra: str, what: str, stream=None) -> None:
    """Exit with status 2 and the install command, no traceback, when ``extra`` is missing."""
    names = missing(extra)
    if names:
        (stream or sys.stderr).write(message(extra, what, names))
        raise SystemExit(EXIT_MISSING)
