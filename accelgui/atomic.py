"""Atomic file writes: a temporary file in the target's directory, fsync, then rename.

An unwritable directory, a full disk or an interrupt leaves the old file (or nothing) in
place, never a partial one.
"""

from __future__ import annotations

import os


class WriteError(OSError):
    """A file could not be written; the message names the path and the reason."""


def write_atomic(path: str, data: str | bytes) -> None:
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = os.path.abspath(path)
    directory = os.path.dirname(target)
    if os.path.isdir(target):
        raise WriteError(f"cannot write {path}: it is a directory")
    if not os.path.exists(directory):
        raise WriteError(f"cannot write {path}: directory {directory} does not exist")
    if not os.path.isdir(directory):
        raise WriteError(f"cannot write {path}: {directory} is not a directory")
    try:
        fd, tmp = _create_temp(directory, os.path.basename(target))
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as f:
            try:    # an overwritten file keeps its mode; a new one gets 0666 less the umask
                os.fchmod(f.fileno(), os.stat(target).st_mode & 0o7777)
            except FileNotFoundError:
                pass
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        _fsync_dir(directory)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise


def _create_temp(directory: str, name: str) -> tuple[int, str]:
    """A new file ``.NAME.XXXXXXXX.tmp`` beside the target, created with mode 0666 so that
    the kernel applies the umask (reading the umask would mean changing it, which races with
    other threads)."""
    for _ in range(100):
        tmp = os.path.join(directory, f".{name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                           0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def _fsync_dir(directory: str) -> None:
    """Make the rename durable (best effort: not every filesystem allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
