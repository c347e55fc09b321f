"""What the app remembers between runs (language, theme, window geometry, last page, the
redaction choice of Export and Copy): one INI file, ``$ACCELGUI_CONFIG_DIR/accelgui.ini``, else
``$XDG_CONFIG_HOME/accelgui/accelgui.ini`` (``~/.config`` when unset). The path is worked out
on every call, so tests point it at a temporary folder."""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings


def path() -> str:
    folder = os.environ.get("ACCELGUI_CONFIG_DIR")
    if not folder:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        folder = os.path.join(base, "accelgui")
    return os.path.join(folder, "accelgui.ini")


def settings() -> QSettings:
    return QSettings(path(), QSettings.Format.IniFormat)


def value(key: str, default=None, kind=str):
    """A remembered value of type ``kind``, ``default`` when unset or unreadable."""
    raw = settings().value(key, None)
    if raw is None:
        return default
    if kind is bool:
        return raw in (True, "true", "1", 1)
    try:
        return kind(raw)
    except (TypeError, ValueError):
        return default


def remember(key: str, data) -> None:
    s = settings()
    s.setValue(key, data)
    s.sync()
