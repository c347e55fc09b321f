"""Atomic file writes: a temporary file in the target's directory, fsync, then rename.

An unwritable directory, a full disk or an interrupt leaves the old file (or nothing) in
place, never a partial one.
"""

from __future__ import annotations

import os
import tempfile


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
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp",
                                   dir=directory)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
