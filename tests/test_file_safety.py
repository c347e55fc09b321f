"""The app's own state files (learner progress, app settings, their backups) are never
followed through a link, never blocked on, never replaced when accelgui cannot keep what
they hold, and never left readable by others.

Every FIFO test runs in a child process with a timeout: before the fix a plain ``open`` of a
FIFO waits for a writer forever, and a hung test must fail, not hang the suite."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from accelgui import progress

SAMPLE = '{"version": 1, "done": {"a.b": null}}\n'


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    d = tmp_path / "data" / "accelgui"
    d.mkdir(parents=True)
    monkeypatch.setenv("ACCELGUI_DATA_DIR", str(d))
    return d


def _child(code: str, *args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, timeout=timeout, env=os.environ.copy())
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for {timeout} s (blocked opening a FIFO?)")


def _fingerprint(path) -> tuple:
    st = os.lstat(path)
    return st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns


# --- progress.json -----------------------------------------------------------------------

def test_a_fifo_progress_file_does_not_hang_reading_or_done(data_dir):
    fifo = data_dir / "progress.json"
    os.mkfifo(fifo)
    read = _child("from accelgui import progress; print(sorted(progress.load_done()), progress.load_goal())")
    assert read.returncode == 0 and read.stdout.strip() == "[] None"
    assert str(fifo) in read.stderr and "not a regular file" in read.stderr
    done = _child("import sys; from accelgui import cli; sys.exit(cli.main(['--done', sys.argv[1]]))",
                  _a_step())
    assert done.returncode == 1
    assert str(fifo) in done.stderr and "not a regular file" in done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)                 # left as it was
    assert sorted(p.name for p in data_dir.iterdir()) == ["progress.json", "progress.json.lock"]


def test_a_symlinked_progress_file_is_neither_read_nor_written_through(data_dir, tmp_path, capsys):
    victim = tmp_path / "elsewhere.json"
    victim.write_text(SAMPLE)
    before = victim.read_bytes(), _fingerprint(victim)
    (data_dir / "progress.json").symlink_to(victim)
    assert progress.load_done() == frozenset()
    err = capsys.readouterr().err
    assert "symbolic link" in err and str(data_dir / "progress.json") in err
    with pytest.raises(OSError, match="symbolic link") as info:
        progress.mark_done("gpu.setup-check")
    assert str(data_dir / "progress.json") in str(info.value)
    assert (victim.read_bytes(), _fingerprint(victim)) == before
    assert (data_dir / "progress.json").is_symlink()


def test_the_corrupt_backup_never_writes_through_a_link(data_dir, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("do not touch")
    before = _fingerprint(victim)
    (data_dir / "progress.json").write_text("{not json")
    (data_dir / "progress.json.corrupt").symlink_to(victim)
    assert progress.mark_done("gpu.setup-check") is True
    assert victim.read_text() == "do not touch" and _fingerprint(victim) == before
    assert (data_dir / "progress.json.corrupt").is_symlink()
    kept = data_dir / "progress.json.corrupt.1"                  # the next free name
    assert kept.read_text() == "{not json" and not kept.is_symlink()
    assert progress.load_done() == {"gpu.setup-check"}


def test_an_earlier_corrupt_backup_is_kept(data_dir):
    (data_dir / "progress.json.corrupt").write_text("first")
    (data_dir / "progress.json").write_text("second")
    progress.mark_done("gpu.setup-check")
    assert (data_dir / "progress.json.corrupt").read_text() == "first"
    assert (data_dir / "progress.json.corrupt.1").read_text() == "second"


def test_a_progress_file_over_the_cap_is_refused_and_left_whole(data_dir, capsys):
    from accelgui.atomic import STATE_FILE_MAX_BYTES

    path = data_dir / "progress.json"
    pad = "x" * STATE_FILE_MAX_BYTES
    path.write_text(json.dumps({"version": 1, "done": {"a.b": None}, "note": pad}))
    before = path.read_bytes(), _fingerprint(path)
    assert progress.load_done() == frozenset()
    err = capsys.readouterr().err
    assert str(path) in err and "MiB" in err
    with pytest.raises(OSError, match="MiB") as info:
        progress.mark_done("gpu.setup-check")
    assert str(path) in str(info.value) and "nothing was changed" in str(info.value)
    assert (path.read_bytes(), _fingerprint(path)) == before
    assert sorted(p.name for p in data_dir.iterdir()) == ["progress.json", "progress.json.lock"]


def test_a_progress_file_at_the_cap_still_loads(data_dir):
    from accelgui.atomic import STATE_FILE_MAX_BYTES

    head = json.dumps({"version": 1, "done": {"a.b": None}, "note": ""})
    pad = "x" * (STATE_FILE_MAX_BYTES - len(head))
    (data_dir / "progress.json").write_text(head.replace('"note": ""', f'"note": "{pad}"'))
    assert os.path.getsize(data_dir / "progress.json") == STATE_FILE_MAX_BYTES
    assert progress.load_done() == {"a.b"}


def test_progress_and_its_backup_are_private(data_dir):
    old = os.umask(0o022)
    try:
        path = data_dir / "progress.json"
        path.write_text("{broken")
        path.chmod(0o644)                        # a file written by an older version
        progress.record_verified("gpu.setup-check", {"date": "2026-12-01", "excerpt": "TOKEN=x"})
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.lstat(data_dir / "progress.json.corrupt").st_mode) == 0o600
        assert stat.S_IMODE(os.lstat(data_dir / "progress.json.lock").st_mode) == 0o600
        progress.mark_done("cpu.numba-jit")      # and a rewrite stays private
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    finally:
        os.umask(old)


def test_a_fifo_lock_file_does_not_hang_done(data_dir):
    os.mkfifo(data_dir / "progress.json.lock")
    done = _child("import sys; from accelgui import progress; progress.mark_done('a.b')")
    assert done.returncode != 0 and "progress.json.lock" in done.stderr
    assert not (data_dir / "progress.json").exists()


# --- the reader and the writer themselves --------------------------------------------------

def test_the_state_reader_refuses_what_is_not_a_regular_file(tmp_path):
    from accelgui.atomic import UnsafeFileError, read_state_file

    assert read_state_file(str(tmp_path / "missing")) is None
    (tmp_path / "ok").write_bytes(b"abc")
    assert read_state_file(str(tmp_path / "ok")) == b"abc"
    (tmp_path / "link").symlink_to(tmp_path / "ok")
    with pytest.raises(UnsafeFileError, match="symbolic link"):
        read_state_file(str(tmp_path / "link"))
    with pytest.raises(UnsafeFileError, match="not a regular file"):
        read_state_file(str(tmp_path))
    os.mkfifo(tmp_path / "fifo")                 # O_NONBLOCK: the open returns at once
    with pytest.raises(UnsafeFileError, match="not a regular file"):
        read_state_file(str(tmp_path / "fifo"))
    with pytest.raises(UnsafeFileError, match="larger than"):
        read_state_file(str(tmp_path / "ok"), max_bytes=2)


def test_the_state_writer_refuses_links_and_special_files(tmp_path):
    from accelgui.atomic import UnsafeFileError, write_state_file

    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "link").symlink_to(victim)
    (tmp_path / "dangling").symlink_to(tmp_path / "would-be-created")
    os.mkfifo(tmp_path / "fifo")
    for name, why in (("link", "symbolic link"), ("dangling", "symbolic link"),
                      ("fifo", "not a regular file")):
        with pytest.raises(UnsafeFileError, match=why):
            write_state_file(str(tmp_path / name), "new")
    assert victim.read_text() == "keep"
    assert not (tmp_path / "would-be-created").exists()
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "fifo", "link", "victim"]


def test_the_state_writer_writes_0600_whatever_the_umask(tmp_path):
    from accelgui.atomic import write_state_file

    old = os.umask(0)
    try:
        write_state_file(str(tmp_path / "state"), "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.lstat(tmp_path / "state").st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["state"]


# --- the app's settings (accelgui.ini) -------------------------------------------------------

def _settings_dir(monkeypatch, tmp_path):
    pytest.importorskip("PySide6.QtCore")
    folder = tmp_path / "cfg"
    folder.mkdir()
    monkeypatch.setenv("ACCELGUI_CONFIG_DIR", str(folder))
    return folder


def test_settings_are_private_and_round_trip(monkeypatch, tmp_path):
    folder = _settings_dir(monkeypatch, tmp_path)
    from accelgui.gui import settings

    old = os.umask(0o022)
    try:
        settings.remember("ui/language", "zh_CN")
        settings.remember("export/redact", False)
        settings.remember("window/geometry", b"\x01\x00\xffgeo")
    finally:
        os.umask(old)
    assert settings.value("ui/language") == "zh_CN"
    assert settings.value("export/redact", True, bool) is False
    assert bytes(settings.settings().value("window/geometry")) == b"\x01\x00\xffgeo"
    assert stat.S_IMODE(os.lstat(folder / "accelgui.ini").st_mode) == 0o600
    assert sorted(p.name for p in folder.iterdir()) == ["accelgui.ini"]


def test_a_symlinked_settings_file_is_not_written_through(monkeypatch, tmp_path, capsys):
    folder = _settings_dir(monkeypatch, tmp_path)
    from accelgui.gui import settings

    victim = tmp_path / "victim.ini"
    victim.write_text("[ui]\nlanguage=fr\n")
    before = victim.read_bytes(), _fingerprint(victim)
    (folder / "accelgui.ini").symlink_to(victim)
    assert settings.value("ui/language", "en") == "en"           # not read through it either
    settings.remember("ui/language", "zh_CN")
    assert (victim.read_bytes(), _fingerprint(victim)) == before
    assert (folder / "accelgui.ini").is_symlink()
    assert "symbolic link" in capsys.readouterr().err


def test_a_fifo_settings_file_does_not_hang(monkeypatch, tmp_path):
    folder = _settings_dir(monkeypatch, tmp_path)
    os.mkfifo(folder / "accelgui.ini")
    got = _child("from accelgui.gui import settings; settings.remember('ui/page', 'routes');"
                 "print(settings.value('ui/page', 'overview'))")
    assert got.returncode == 0 and got.stdout.strip() == "overview"
    assert "not a regular file" in got.stderr
    assert stat.S_ISFIFO(os.lstat(folder / "accelgui.ini").st_mode)


def _a_step() -> str:
    from accelgui.knowledge import load_knowledge

    return next(iter(load_knowledge().steps))


def test_accelgui_never_writes_a_progress_file_it_would_refuse_to_read(data_dir):
    from accelgui.atomic import STATE_FILE_MAX_BYTES

    progress.mark_done("a.b")
    path = data_dir / "progress.json"
    before = path.read_bytes(), _fingerprint(path)
    with pytest.raises(OSError, match="over the .* cap") as info:
        progress.record_verified("gpu.setup-check", {"excerpt": "x" * STATE_FILE_MAX_BYTES})
    assert "nothing was changed" in str(info.value)
    assert (path.read_bytes(), _fingerprint(path)) == before
    assert progress.load_done() == {"a.b"}
