"""``accelgui --install-desktop`` / ``--uninstall-desktop``: the desktop entry, AppStream
metainfo and hicolor icons, so that menus, docks and software centres know the app.

Installed into the user's XDG data dir (``$XDG_DATA_HOME``, else ``~/.local/share``), or with
``system=True`` into ``/usr/local/share``. Every name derives from one id, :data:`APP_ID`
(desktop file ``<id>.desktop``, metainfo ``<id>.metainfo.xml``, icon ``<id>``); the app sets
the same id as its desktop file name (``QGuiApplication.setDesktopFileName``). The files ship
in the package (``accelgui.resources.desktop`` and ``accelgui.resources.icons``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from accelgui.data import read_bytes

APP_ID = "io.github.accelgui.Accelgui"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
SYSTEM_DATA_DIR = "/usr/local/share"


def data_dir(system: bool = False) -> str:
    if system:
        return SYSTEM_DATA_DIR
    return os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")


def _files(base: str) -> dict[str, tuple[str, str]]:
    """target path -> (package, resource) of every file installed."""
    out = {
        os.path.join(base, "applications", APP_ID + ".desktop"):
            ("accelgui.resources.desktop", APP_ID + ".desktop"),
        os.path.join(base, "metainfo", APP_ID + ".metainfo.xml"):
            ("accelgui.resources.desktop", APP_ID + ".metainfo.xml"),
        os.path.join(base, "icons", "hicolor", "scalable", "apps", APP_ID + ".svg"):
            ("accelgui.resources", "icons/accelgui.svg"),
    }
    for size in ICON_SIZES:
        out[os.path.join(base, "icons", "hicolor", f"{size}x{size}", "apps", APP_ID + ".png")] = \
            ("accelgui.resources", f"icons/accelgui-{size}.png")
    return out


def exec_command() -> str:
    """How the menu starts the app: the ``accelgui`` on PATH, else this interpreter's module."""
    found = shutil.which("accelgui")
    if found:
        return _quoted(found)
    return f"{_quoted(sys.executable)} -m accelgui"


def _quoted(path: str) -> str:
    """A desktop-entry Exec argument (spec: quote when it holds reserved characters)."""
    if not any(c in path for c in ' \t\n"\'\\><~|&;$*?#()`'):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$") + '"'


def _write(path: str, data: bytes) -> None:
    """One installed file (menu entry, metainfo, icon), replaced atomically through a fresh
    temporary file: never through a link planted at its name or at a fixed temporary name."""
    from accelgui.atomic import write_state_file

    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_state_file(path, data, mode=0o644)


def _refresh_caches(base: str) -> None:
    """Tell menus and icon themes (where their tools exist; harmless when they do not)."""
    for argv in (["update-desktop-database", "-q", os.path.join(base, "applications")],
                 ["gtk-update-icon-cache", "-q", "-t", "-f", os.path.join(base, "icons", "hicolor")]):
        if shutil.which(argv[0]):
            try:
                subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
                               check=False)
            except (OSError, subprocess.SubprocessError):
                pass


def install(system: bool = False, base: str | None = None) -> list[str]:
    """Install every file; returns their paths."""
    base = base or data_dir(system)
    written = []
    for target, (package, name) in _files(base).items():
        data = read_bytes(package, name)
        if target.endswith(".desktop"):
            text = data.decode("utf-8")
            text = "\n".join(f"Exec={exec_command()}" if line.startswith("Exec=") else line
                             for line in text.splitlines()) + "\n"
            data = text.encode("utf-8")
        _write(target, data)
        written.append(target)
    _refresh_caches(base)
    return written


def uninstall(system: bool = False, base: str | None = None) -> list[str]:
    """Remove what :func:`install` put there; returns the paths removed."""
    base = base or data_dir(system)
    removed = []
    for target in _files(base):
        try:
            os.remove(target)
        except FileNotFoundError:
            continue
        removed.append(target)
    if removed:
        _refresh_caches(base)
    return removed
