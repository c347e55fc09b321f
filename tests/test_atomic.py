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


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path):
    real = tmp_path / "data" / "report.json"
    real.parent.mkdir()
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to("data/report.json")
    write_atomic(str(link), "new")
    assert link.is_symlink() and os.readlink(link) == "data/report.json"
    assert real.read_text() == "new"
    assert real.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in real.parent.iterdir()) == ["report.json"]


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    write_atomic(str(link), "x")
    assert link.is_symlink() and (tmp_path / "new.json").read_text() == "x"


def test_a_symlink_loop_is_a_clear_error(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(WriteError, match="symbolic links"):
        write_atomic(str(tmp_path / "a"), "x")


def test_a_fifo_is_written_to_and_stays_a_fifo(tmp_path):
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    for _ in range(200):            # wait until the reader has the pipe open
        try:
            write_atomic(str(fifo), "through the pipe")
            break
        except WriteError as exc:
            assert "reading" in str(exc)
            import time

            time.sleep(0.01)
    reader.join(5)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_a_fifo_without_reader_is_an_error_not_a_hang(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(WriteError, match="no process is reading"):
        write_atomic(str(fifo), "x")


def test_a_character_device_is_written_in_place(tmp_path):
    import stat

    dev = tmp_path / "null"                  # a null device made here, never the real /dev/null
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root")
    write_atomic(str(dev), "discarded")
    st = os.lstat(dev)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_socket_is_written_in_place(tmp_path):
    import socket
    import stat

    path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    write_atomic(str(path), "hello")
    conn, _ = server.accept()
    assert conn.recv(100) == b"hello"
    conn.close()
    server.close()
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_a_directory_is_a_clear_error(tmp_path):
    with pytest.raises(WriteError, match="is a directory"):
        write_atomic(str(tmp_path), "x")
    link = tmp_path / "to-dir"
    link.symlink_to(tmp_path)
    with pytest.raises(WriteError, match="is a directory"):
        write_atomic(str(link), "x")


def test_a_relative_link_inside_a_linked_folder_resolves_as_the_kernel_does(tmp_path):
    real_dir = tmp_path / "b" / "c"
    real_dir.mkdir(parents=True)
    (tmp_path / "b" / "y").write_text("old")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "linked").symlink_to(real_dir)
    (real_dir / "x").symlink_to("../y")                 # relative to b/c, not to a/linked
    write_atomic(str(tmp_path / "a" / "linked" / "x"), "new")
    assert (tmp_path / "b" / "y").read_text() == "new"
    assert not (tmp_path / "a" / "y").exists()
    assert (real_dir / "x").is_symlink()
