"""What the views share: the state they render, badges, cards, number formatting."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (QFrame, QLabel, QLayout, QScrollArea, QSizePolicy, QVBoxLayout,
                               QWidget)

from accelgui import l10n
from accelgui.export import common as export_common
from accelgui.export.labels import known


@dataclass(frozen=True)
class ViewState:
    """Everything a view needs to draw itself; views never fetch anything on their own."""

    report: Any = None                 # accelgui.report.Report or None (still probing)
    kb: Any = None                     # accelgui.knowledge.KnowledgeBase or None
    lang: str = "en"                   # knowledge language: "en" | "zh"
    done: frozenset = field(default_factory=frozenset)
    live: bool = True                  # this machine (True) or a report opened from a file
    source: str | None = None          # path of the opened report
    busy: str | None = None            # "probing" / "advising" while a worker runs
    error: str | None = None           # why probing failed, shown in place
    advice_error: str | None = None    # why the advisor could not run
    benchmark_at: float | None = None  # time.time() of the last finished benchmark


# -- colours: saturated backgrounds with white text read well on light and dark palettes ------

STATUS_COLOURS = {
    "ready": "#2e7d32",          # green
    "partial": "#b7791f",        # amber
    "remote": "#1565c0",         # blue
    "unavailable": "#6b6b6b",    # grey
}
READINESS_COLOURS = {
    "ready": "#2e7d32",
    "runtime-missing": "#b7791f",
    "driver-missing": "#c0392b",
    "no-access": "#b7791f",
    "unknown": "#6b6b6b",
}
PROBE_COLOURS = {"ok": "#2e7d32", "partial": "#b7791f", "absent": "#6b6b6b", "error": "#c0392b",
                 "timeout": "#c0392b"}


def status_text(status: str) -> str:
    names = {
        "ready": QCoreApplication.translate("common", "ready"),
        "partial": QCoreApplication.translate("common", "partly ready"),
        "remote": QCoreApplication.translate("common", "via cloud / emulation"),
        "unavailable": QCoreApplication.translate("common", "not available"),
    }
    return names.get(status, status)


def readiness_text(readiness: str) -> str:
    names = {
        "ready": QCoreApplication.translate("common", "ready"),
        "runtime-missing": QCoreApplication.translate("common", "runtime missing"),
        "driver-missing": QCoreApplication.translate("common", "driver missing"),
        "no-access": QCoreApplication.translate("common", "no access"),
        "unknown": QCoreApplication.translate("common", "unknown"),
    }
    return names.get(readiness, readiness)


def _translated(names: tuple) -> dict:
    return {name: QCoreApplication.translate("common", name) for name in names}


def kind_text(kind: str) -> str:
    names = {"gpu": "GPU", "npu": "NPU", "tpu": "TPU", "fpga": "FPGA", "dsp": "DSP", "accelerator": "Accelerator"}
    if kind in names:
        return QCoreApplication.translate("common", names[kind])
    return kind.upper() if kind else QCoreApplication.translate("common", "Accelerator")


def level_text(level: str) -> str:
    return _translated(("beginner", "intermediate", "advanced")).get(level, level)


def unknown() -> str:
    return QCoreApplication.translate("common", "unknown")


# -- formatting --------------------------------------------------------------------------------

def probe_message(probe: Any, lang: str) -> str:
    """A probe's absent reason or error in ``lang``: its ``error_msg`` rendered from the
    catalogue when the probe wrote one, else the English ``error`` it stored."""
    return str(l10n.field_text(probe, "error", lang) or "")


def source_text(report, lang: str, source: str | None = None, live: bool = True) -> str:
    """Which machine this is: this one, a recorded tree, or an opened report."""
    if not live and source:
        return l10n.tr("app.hw.opened", lang, name=os.path.basename(str(source)))
    if report is not None and report.sysroot not in (None, "", "/"):
        name = os.path.basename(str(report.sysroot).rstrip("/")) or str(report.sysroot)
        return l10n.tr("app.hw.recorded", lang, name=name)
    return l10n.tr("app.hw.live", lang)


def check_value_text(value: Any, lang: str) -> str:
    """A readiness check's value ("ok", "missing", "not checked", ...) in ``lang``; a value
    outside that vocabulary is shown as it is."""
    text = "" if value is None else str(value)
    return known("app.hw.check." + text.replace(" ", "_"), lang, text)


def fmt_bytes(n: Any) -> str:
    """Binary units ("1.5 GiB", "32 KiB"), the same as in the exported reports."""
    if n is None or isinstance(n, bool) or not isinstance(n, (int, float)):
        return unknown()
    return export_common.fmt_bytes(n)


def fmt_num(x: Any) -> str:
    """1,234 / 12.3 / 0.0123, the same as in the exported reports; None -> "unknown"."""
    return unknown() if x is None else export_common.fmt_num(x)


def tr_obj(obj: Any, lang: str) -> str:
    """A knowledge text {"en": .., "zh": ..} in ``lang`` (falls back to English)."""
    if obj is None:
        return ""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict):
        try:
            from accelgui.knowledge import tr

            return tr(obj, lang)
        except ImportError:
            return str(obj.get(lang) or obj.get("en") or next(iter(obj.values()), ""))
    return str(obj)


def lead(label: str) -> str:
    """A bold lead-in ("Fix:") for rich text; no blank after a full-width colon (U+FF1A)."""
    return "<b>" + html_escape(label) + "</b>" + ("" if label.endswith("\uff1a") else " ")


def html_escape(text: Any) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


# -- widgets -------------------------------------------------------------------------------------

TONES = {"#2e7d32": "green", "#b7791f": "amber", "#1565c0": "blue", "#6b6b6b": "grey",
         "#c0392b": "red", "#546e7a": "slate"}


def tone(colour: str | None) -> str:
    return TONES.get((colour or "").lower(), "none")


def _tone_rules(selector: str, template: str) -> str:
    return "\n".join(f"{selector}[tone=\"{name}\"] {{ {template.format(c=colour)} }}"
                     for colour, name in TONES.items())


#: One style sheet for the whole window (set on the main window): per-widget style sheets
#: are slow to apply, and a report can make hundreds of cards, badges and chips.
STYLE = "\n".join([
    "QFrame#card { background-color: palette(base); border: 1px solid palette(mid);"
    " border-radius: 8px; }",
    _tone_rules("QFrame#card", "border-left: 5px solid {c};"),
    "QLabel#badge { color: #ffffff; border-radius: 9px; padding: 2px 10px; font-weight: 600; }",
    _tone_rules("QLabel#badge", "background-color: {c};"),
    "QPushButton#chip { color: #ffffff; border: none; border-radius: 10px; padding: 3px 12px;"
    " font-weight: 600; }",
    "QPushButton#chip:focus { border: 2px solid palette(highlight); }",
    "QToolBar QToolButton:focus { border: 2px solid palette(highlight); border-radius: 4px; }",
    _tone_rules("QPushButton#chip", "background-color: {c};"),
    "QLabel#key { font-weight: 600; }",
])


class Badge(QLabel):
    """A coloured pill with white text ("ready", "driver missing"...)."""

    def __init__(self, text: str, colour: str, parent: QWidget | None = None):
        super().__init__(text, parent)
        self.colour = colour
        self.setObjectName("badge")
        self.setProperty("tone", tone(colour))
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)


class Card(QFrame):
    """A framed panel drawn with the palette (base colour, mid border), with an accent stripe."""

    def __init__(self, accent: str | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("card")
        self.accent = accent
        self.setProperty("tone", tone(accent))
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(14, 12, 14, 12)
        self.body.setSpacing(6)


def key_label(text: str, parent: QWidget | None = None) -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName("key")
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def heading(text: str, size_delta: int = 4, parent: QWidget | None = None) -> QLabel:
    label = QLabel(text, parent)
    font = QFont(label.font())
    font.setPointSizeF(max(6.0, font.pointSizeF() + size_delta))
    font.setBold(True)
    label.setFont(font)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # report data (host names...) never as markup
    _shrinkable(label)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setFocusPolicy(Qt.FocusPolicy.NoFocus)       # selectable with the mouse, no Tab stop
    return label


def muted(text: str, parent: QWidget | None = None, wrap: bool = True) -> QLabel:
    """Secondary text in the palette's placeholder colour (readable in light and dark)."""
    label = QLabel(text, parent)
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if wrap:
        _shrinkable(label)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setFocusPolicy(Qt.FocusPolicy.NoFocus)       # selectable with the mouse, no Tab stop
    return label


def para(text: str, parent: QWidget | None = None, rich: bool = False) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    _shrinkable(label)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                  | Qt.TextInteractionFlag.LinksAccessibleByMouse
                                  | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
    if not (rich and "<a " in text):
        label.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # Tab stops only where something can be done
    return label


def _shrinkable(label: QLabel) -> None:
    """Let a wrapped label get narrower than its longest word (paths, URLs, flags) instead of
    widening the whole page; the text still wraps at spaces."""
    policy = label.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
    policy.setHeightForWidth(True)
    label.setSizePolicy(policy)
    label.setMinimumWidth(40)


def clear_layout(layout: QLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        widget = item.widget()
        if widget is not None:
            widget.hide()
            widget.setParent(None)
            widget.deleteLater()
        elif item.layout() is not None:
            clear_layout(item.layout())


def scroll_page(parent: QWidget | None = None) -> tuple[QScrollArea, QWidget, QVBoxLayout]:
    """A vertically scrolling page whose background follows the window palette."""
    area = QScrollArea(parent)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    inner = QWidget()
    inner.setObjectName("page")
    layout = QVBoxLayout(inner)
    layout.setContentsMargins(24, 20, 24, 20)
    layout.setSpacing(12)
    area.setWidget(inner)
    return area, inner, layout
