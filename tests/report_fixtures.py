"""The recorded reports under tests/fixtures/reports, shared by the export, redaction and
compare tests: a realistic 8x H100 server (rich), a CPU-only cloud VM (minimal), a report
full of hostile strings (hostile) and one of an old schema (old-schema)."""

from __future__ import annotations

import json
from pathlib import Path

from accelgui.report import Report

REPORTS = Path(__file__).parent / "fixtures" / "reports"


def load(name: str) -> Report:
    """The fixture as a Report, without load_report's schema check: the hostile fixture
    breaks the schema on purpose, to show the exporters keep any in-memory report inert."""
    return Report.from_dict(json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8")))


def has_qt_gui() -> bool:
    try:
        import PySide6.QtGui  # noqa: F401
    except ImportError:
        return False
    return True
