"""What the app remembers between runs (language, theme, window geometry, last page, the
redaction choice of Export and Copy): one INI file, ``$ACCELGUI_CONFIG_DIR/accelgui.ini``, else
``$XDG_CONFIG_HOME/accelgui/accelgui.ini`` (``~/.config`` when unset). The path is worked out
on every call, so tests point it at a temporary folder.

The file is the app's own state, so it is read and written as ``accelgui.atomic`` reads and
writes state files: never through a symbolic link, never blocking on a FIFO, at most
``STATE_FILE_MAX_BYTES`` (2 MiB), written whole (temporary file, fsync, rename) with mode 0600.
QSettings keeps the format (the same INI as before), but it only ever sees a private scratch
copy: it opens files with a plain ``open`` and writes through links. A file accelgui refuses
(a link, not a regular file, too large, or one QSettings cannot parse) is left untouched: the
app runs on its defaults, remembers nothing, and says why once on stderr."""

from __future__ import annotations

import os
import sys
import tempfile

from PySide6.QtCore import QSettings

from accelgui.atomic import UnsafeFileError, read_state_file, write_state_file

FILE_NAME = "accelgui.ini"


def path() -> str:
    folder = os.environ.get("ACCELGUI_CONFIG_DIR")
    if not folder:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        folder = os.path.join(base, "accelgui")
    return os.path.join(folder, FILE_NAME)


_warned: set = set()


def _warn(why: str) -> None:
    if why not in _warned:
        _warned.add(why)
        sys.stderr.write(f"accelgui: warning: app settings not remembered: {why}\n")


class Snapshot:
    """The remembered values at one moment, read-only (``value(key, default)`` as QSettings)."""

    def __init__(self, values: dict):
        self._values = values

    def value(self, key: str, default=None):
        return self._values.get(key, default)

    def allKeys(self) -> list:           # QSettings' name
        return sorted(self._values)


def _raw(file: str) -> bytes | None:
    """The file's bytes, None when there is none; raises OSError (UnsafeFileError for a
    refused file) when it cannot be used."""
    return read_state_file(file)


def _scratch_settings(folder: str, raw: bytes | None) -> QSettings:
    scratch = os.path.join(folder, FILE_NAME)
    if raw is not None:
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
    return QSettings(scratch, QSettings.Format.IniFormat)


_cache: dict = {}


def settings() -> Snapshot:
    """What is remembered now; an empty Snapshot (and one warning) for a file that cannot be
    used."""
    file = path()
    try:
        st = os.lstat(file)
        key = (file, st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode)
    except OSError:
        key = None
    if key is not None and _cache.get("key") == key:
        return Snapshot(_cache["values"])
    values: dict = {}
    try:
        raw = _raw(file)
    except OSError as exc:
        _warn(str(exc) if isinstance(exc, UnsafeFileError) else f"cannot read {file}: {exc.strerror or exc}")
        raw = None
    if raw:
        with tempfile.TemporaryDirectory(prefix="accelgui-settings-") as folder:
            s = _scratch_settings(folder, raw)
            if s.status() == QSettings.Status.NoError:
                values = {k: s.value(k) for k in s.allKeys()}
            else:
                _warn(f"{file} cannot be read as settings; it is left as it is")
            del s
    _cache.clear()
    if key is not None:
        _cache.update(key=key, values=values)
    return Snapshot(dict(values))


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
    """Remember ``data`` under ``key``. Never raises: a file that cannot be used is left as it
    is, with one warning."""
    file = path()
    try:
        raw = _raw(file)
    except OSError as exc:
        _warn(str(exc) if isinstance(exc, UnsafeFileError) else f"cannot read {file}: {exc.strerror or exc}")
        return
    with tempfile.TemporaryDirectory(prefix="accelgui-settings-") as folder:
        s = _scratch_settings(folder, raw)
        if s.status() != QSettings.Status.NoError:
            _warn(f"{file} cannot be read as settings; it is left as it is")
            return
        s.setValue(key, data)
        s.sync()
        ok = s.status() == QSettings.Status.NoError
        del s
        if not ok:
            _warn(f"cannot write {file}")
            return
        with open(os.path.join(folder, FILE_NAME), "rb") as f:      # our own scratch file
            new = f.read()
    try:
        os.makedirs(os.path.dirname(file), mode=0o700, exist_ok=True)
        write_state_file(file, new)
    except OSError as exc:
        _warn(str(exc))
