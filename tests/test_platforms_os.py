"""What runs differently on macOS and Windows, tested on Linux with the OS faked: atomic
replaces through a sharing violation, file locks without fcntl, the CJK fonts, the desktop
integration (a macOS app bundle, a Windows Start-menu shortcut)."""

from __future__ import annotations

import os
import plistlib
import sys
import threading
import types

import pytest

from accelgui import atomic, desktop
from accelgui.gui import assets


def _sharing_violation():
    exc = PermissionError(13, "The process cannot access the file because it is being used")
    exc.winerror = 32
    return exc


def test_a_sharing_violation_is_waited_out(tmp_path, monkeypatch):
    src, dst = tmp_path / "new", tmp_path / "old"
    src.write_text("new")
    dst.write_text("old")
    real, failures = os.replace, [_sharing_violation(), _sharing_violation()]

    def flaky(a, b):
        if failures:
            raise failures.pop()
        real(a, b)

    monkeypatch.setattr(atomic.os, "replace", flaky)
    pauses = []
    atomic.replace(str(src), str(dst), sleep=pauses.append)
    assert dst.read_text() == "new" and pauses == [0.01, 0.02]


def test_a_lasting_violation_or_a_real_denial_is_an_error(tmp_path, monkeypatch):
    def locked(a, b):
        raise _sharing_violation()

    monkeypatch.setattr(atomic.os, "replace", locked)
    with pytest.raises(PermissionError):
        atomic.replace("a", "b", retry_s=0.05, sleep=lambda s: None)
    denied = PermissionError(13, "denied")            # POSIX: no winerror, no retry
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: (_ for _ in ()).throw(denied))
    calls = []
    with pytest.raises(PermissionError):
        atomic.replace("a", "b", sleep=calls.append)
    assert calls == []


def test_writes_without_fchmod_as_on_windows(tmp_path, monkeypatch):
    monkeypatch.delattr(atomic.os, "fchmod")
    atomic.write_state_file(str(tmp_path / "state.json"), "{}")
    atomic.write_atomic(str(tmp_path / "out.txt"), "x")
    assert (tmp_path / "state.json").read_text() == "{}" and (tmp_path / "out.txt").read_text() == "x"


def test_file_lock_excludes_a_second_holder(tmp_path):
    lock, order = str(tmp_path / "x.lock"), []

    def second():
        with atomic.FileLock(lock):
            order.append("second")

    with atomic.FileLock(lock):
        t = threading.Thread(target=second)
        t.start()
        t.join(0.3)
        order.append("first")
    t.join(5)
    assert order == ["first", "second"]


def test_file_lock_uses_msvcrt_where_there_is_no_fcntl(tmp_path, monkeypatch):
    calls = []
    fake = types.SimpleNamespace(LK_LOCK=1, locking=lambda fd, mode, n: calls.append((mode, n)))
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    with atomic.FileLock(str(tmp_path / "y.lock")):
        pass
    assert calls == [(1, 1)]


def test_file_lock_refuses_a_link(tmp_path):
    os.symlink(tmp_path / "elsewhere", tmp_path / "z.lock")
    with pytest.raises(atomic.UnsafeFileError):
        with atomic.FileLock(str(tmp_path / "z.lock")):
            pass


@pytest.mark.parametrize("platform, cjk", [("darwin", "PingFang SC"), ("win32", "Microsoft YaHei UI"),
                                           ("linux", "Noto Sans CJK SC")])
def test_each_os_gets_its_own_cjk_fonts(platform, cjk):
    families = assets.ui_font_families(platform)
    assert families[1] == cjk and len(families) >= 3
    assert families[0] in ("Segoe UI", ".AppleSystemUIFont", "Noto Sans")


def test_the_macos_app_bundle(tmp_path, monkeypatch):
    monkeypatch.setattr(desktop.sys, "platform", "darwin")
    written = desktop.install(base=str(tmp_path))
    plist = plistlib.loads((tmp_path / "accelgui.app" / "Contents" / "Info.plist").read_bytes())
    assert plist["CFBundleIdentifier"] == desktop.APP_ID and plist["CFBundleExecutable"] == "accelgui"
    launcher = tmp_path / "accelgui.app" / "Contents" / "MacOS" / "accelgui"
    assert launcher.read_text().startswith("#!/bin/sh\nexec ") and os.access(launcher, os.X_OK)
    assert sorted(desktop.uninstall(base=str(tmp_path))) == sorted(written)
    assert not (tmp_path / "accelgui.app").exists()


def test_the_windows_start_menu_shortcut(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(desktop.sys, "platform", "win32")
    monkeypatch.setattr(desktop, "gui_command", lambda: [r"C:\Python\Scripts\accelgui-gui.exe"])
    monkeypatch.setattr(desktop.subprocess, "run", lambda argv, **kw: ran.append(argv))
    (link,) = desktop.install(base=str(tmp_path))
    assert link == str(tmp_path / "accelgui.lnk")
    argv = ran[0]
    assert argv[:4] == ["powershell", "-NoProfile", "-NonInteractive", "-Command"]
    assert argv[5:] == [link, r"C:\Python\Scripts\accelgui-gui.exe", ""]     # data as arguments
    assert link not in argv[4]
    (tmp_path / "accelgui.lnk").write_bytes(b"L")
    assert desktop.uninstall(base=str(tmp_path)) == [link]


def test_the_pyinstaller_specs_share_one_list_and_name_every_os_target():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "packaging"
    for name in ("accelgui.spec", "accelgui-macos.spec", "accelgui-windows.spec", "bundle_common.py"):
        ast.parse((root / name).read_text(), name)          # each is valid Python
    mac, win = (root / "accelgui-macos.spec").read_text(), (root / "accelgui-windows.spec").read_text()
    assert "BUNDLE(" in mac and "bundle_identifier=APP_ID" in mac and desktop.APP_ID in mac
    assert 'name="accelgui-gui", console=False' in win and "icon=ICON" in win
    for spec in ("accelgui.spec", "accelgui-macos.spec", "accelgui-windows.spec"):
        assert "bundle_inputs()" in (root / spec).read_text()
    for icon in ("accelgui-512.png", "accelgui-256.png"):
        assert (root.parent / "resources" / "icons" / icon).is_file()
