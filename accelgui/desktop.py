"""``accelgui --install-desktop`` / ``--uninstall-desktop``: the desktop entry, AppStream
metainfo and hicolor icons, so that menus, docks and software centres know the app.

Installed into the user's XDG data dir (``$XDG_DATA_HOME``, else ``~/.local/share``), or with
``system=True`` into ``/usr/local/share``. Every name derives from one id, :data:`APP_ID`
(desktop file ``<id>.desktop``, metainfo ``<id>.metainfo.xml``, icon ``<id>``); the app sets
the same id as its desktop file name (``QGuiApplication.setDesktopFileName``). The files ship
in the package (``accelgui.resources.desktop`` and ``accelgui.resources.icons``).

On macOS the same command writes a small application bundle, ``~/Applications/accelgui.app``
(an ``Info.plist`` and a launcher script that starts this interpreter's ``accelgui``), so the
app is in Launchpad and Spotlight; the PyInstaller bundle (packaging/accelgui-macos.spec) is
the stand-alone alternative. On Windows it writes a Start-menu shortcut,
``%APPDATA%/Microsoft/Windows/Start Menu/Programs/accelgui.lnk``, through the Windows
Script Host's ``WScript.Shell`` (PowerShell, no shell string built from user input).
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


def gui_command() -> list[str]:
    """The app's command line as a list: the ``accelgui-gui`` script (no console window on
    Windows) when installed, else this interpreter with ``-m accelgui``."""
    found = shutil.which("accelgui-gui") or shutil.which("accelgui")
    return [found] if found else [sys.executable, "-m", "accelgui"]


def _mac_bundle(base: str | None) -> str:
    return os.path.join(base or os.path.join(os.path.expanduser("~"), "Applications"), "accelgui.app")


_PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleName</key><string>accelgui</string>
<key>CFBundleDisplayName</key><string>accelgui</string>
<key>CFBundleIdentifier</key><string>{app_id}</string>
<key>CFBundleExecutable</key><string>accelgui</string>
<key>CFBundlePackageType</key><string>APPL</string>
<key>CFBundleShortVersionString</key><string>{version}</string>
<key>LSMinimumSystemVersion</key><string>11.0</string>
<key>NSHighResolutionCapable</key><true/>
</dict></plist>
"""


def _install_macos(base: str | None) -> list[str]:
    from accelgui import __version__
    from accelgui.atomic import write_state_file

    app = _mac_bundle(base)
    plist, launcher = os.path.join(app, "Contents", "Info.plist"), os.path.join(app, "Contents", "MacOS", "accelgui")
    os.makedirs(os.path.dirname(launcher), exist_ok=True)
    write_state_file(plist, _PLIST.format(app_id=APP_ID, version=__version__), mode=0o644)
    import shlex

    write_state_file(launcher, "#!/bin/sh\nexec " + " ".join(map(shlex.quote, gui_command())) + ' "$@"\n',
                     mode=0o755)
    return [plist, launcher]


def _windows_shortcut(base: str | None) -> str:
    programs = base or os.path.join(os.environ.get("APPDATA") or os.path.expanduser("~"),
                                    "Microsoft", "Windows", "Start Menu", "Programs")
    return os.path.join(programs, "accelgui.lnk")


def _install_windows(base: str | None, run=None) -> list[str]:
    """The shortcut, made by WScript.Shell; the paths go in as PowerShell arguments ($args),
    never spliced into the script text."""
    link = _windows_shortcut(base)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    argv = gui_command()
    script = ("$s = (New-Object -ComObject WScript.Shell).CreateShortcut($args[0]); "
              "$s.TargetPath = $args[1]; $s.Arguments = $args[2]; $s.Description = 'accelgui'; $s.Save()")
    (run or subprocess.run)(["powershell", "-NoProfile", "-NonInteractive", "-Command", script, link, argv[0],
         " ".join(argv[1:])], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=True)
    return [link]


def install(system: bool = False, base: str | None = None) -> list[str]:
    """Install every file; returns their paths."""
    if sys.platform == "darwin":
        return _install_macos(base)
    if sys.platform == "win32":
        return _install_windows(base)
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


def _uninstall_other_os(base: str | None) -> list[str]:
    """macOS: the bundle's two files and its folders; Windows: the shortcut."""
    if sys.platform == "win32":
        targets, folders = [_windows_shortcut(base)], []
    else:
        app = _mac_bundle(base)
        targets = [os.path.join(app, "Contents", "Info.plist"), os.path.join(app, "Contents", "MacOS", "accelgui")]
        folders = [os.path.join(app, "Contents", "MacOS"), os.path.join(app, "Contents"), app]
    removed = []
    for target in targets:
        try:
            os.remove(target)
        except FileNotFoundError:
            continue
        removed.append(target)
    for folder in folders:              # only when empty: anything else there is the user's
        try:
            os.rmdir(folder)
        except OSError:
            pass
    return removed


def uninstall(system: bool = False, base: str | None = None) -> list[str]:
    """Remove what :func:`install` put there; returns the paths removed."""
    if sys.platform in ("darwin", "win32"):
        return _uninstall_other_os(base)
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
