"""The recorded reports under tests/fixtures/reports, shared by the export, redaction and
compare tests: a realistic 8x H100 server (rich), a CPU-only cloud VM (minimal), a report
full of hostile strings (hostile) and one of an old schema (old-schema)."""

from __future__ import annotations

from pathlib import Path

from accelgui.report import Report, load_report

REPORTS = Path(__file__).parent / "fixtures" / "reports"


def load(name: str) -> Report:
    return load_report(str(REPORTS / f"{name}.json"))


def has_qt_gui() -> bool:
    try:
        import PySide6.QtGui  # noqa: F401
    except ImportError:
        return False
    return True
