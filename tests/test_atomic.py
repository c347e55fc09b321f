"""Atomic writes: the file appears whole or not at all, with sensible permissions."""

import os

import pytest

from accelgui.atomic import WriteError, write_atomic


def test_new_file_gets_the_umask_and_an_overwrite_keeps_its_mode(tmp_path):
    old = os.umask(0o027)
    try:
        target = tmp_path / "report.json"
        write_atomic(str(target), "one")
        assert target.read_text() == "one"
        assert target.stat().st_mode & 0o777 == 0o640
        target.chmod(0o600)
        write_atomic(str(target), b"two")
        assert target.read_bytes() == b"two"
        assert target.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]   # no temporary left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(WriteError, match="No space left"):
        write_atomic(str(target), "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
