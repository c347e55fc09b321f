"""Desktop integration: --install-desktop puts a valid desktop entry, AppStream metainfo and
hicolor icons under the XDG data dir, all named by one id that the app also uses."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys

import pytest

from accelgui import cli, desktop


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    return tmp_path / "share"


def _entry(xdg) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(xdg / "applications" / f"{desktop.APP_ID}.desktop", encoding="utf-8")
    return parser


def test_install_names_everything_by_one_id_and_uninstall_removes_it(xdg, capsys):
    assert cli.main(["--install-desktop"]) == 0
    out = capsys.readouterr().out
    entry = _entry(xdg)["Desktop Entry"]
    icon = entry["Icon"]
    assert icon == desktop.APP_ID
    assert (xdg / "icons/hicolor/scalable/apps" / f"{icon}.svg").is_file()
    for size in desktop.ICON_SIZES:
        png = xdg / f"icons/hicolor/{size}x{size}/apps/{icon}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
    metainfo = (xdg / "metainfo" / f"{desktop.APP_ID}.metainfo.xml").read_text(encoding="utf-8")
    assert f"<id>{desktop.APP_ID}</id>" in metainfo
    assert f'<launchable type="desktop-id">{desktop.APP_ID}.desktop</launchable>' in metainfo
    assert "<screenshots>" in metainfo
    exec_line = entry["Exec"]
    assert "accelgui" in exec_line and (shutil.which(exec_line.split()[0].strip('"')) or
                                        os.path.isfile(exec_line.split()[0].strip('"')))
    from accelgui import cli_docs

    assert out.count("installed: ") == len(desktop._files(str(xdg))) + len(cli_docs.targets(str(xdg)))
    man = [p for p in cli_docs.targets(str(xdg)) if "/man/" in p]
    assert man and all(os.path.isfile(p) for p in cli_docs.targets(str(xdg)))
    assert cli.main(["--uninstall-desktop"]) == 0
    assert not [p for p in desktop._files(str(xdg)) if os.path.exists(p)]
    assert cli.main(["--uninstall-desktop"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="desktop-file-validate not installed "
                    "(apt-get install desktop-file-utils)")
def test_installed_desktop_entry_validates(xdg):
    desktop.install()
    run = subprocess.run(["desktop-file-validate", str(xdg / "applications" / f"{desktop.APP_ID}.desktop")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(not shutil.which("appstreamcli"), reason="appstreamcli not installed "
                    "(apt-get install appstream)")
def test_installed_metainfo_validates(xdg):
    desktop.install()
    run = subprocess.run(["appstreamcli", "validate", "--no-net",
                          str(xdg / "metainfo" / f"{desktop.APP_ID}.metainfo.xml")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_system_install_needs_root(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cli.main(["--install-desktop", "--system"]) == cli.EXIT_USAGE
    assert "root" in capsys.readouterr().err


def test_the_app_uses_the_desktop_file_id():
    pytest.importorskip("PySide6")
    code = ("from accelgui.gui.app import create_app; from PySide6.QtGui import QGuiApplication; "
            "create_app(); print(QGuiApplication.desktopFileName())")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), timeout=60)
    assert run.stdout.strip() == desktop.APP_ID, run.stderr
