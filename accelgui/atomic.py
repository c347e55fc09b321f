"""File writes that never destroy what they replace.

What happens depends on what the target is (symbolic links resolved first, so a link stays
a link and the file it points to is written):

* a regular file or a missing path: a temporary file in the target's directory, fsync, then
  rename. An unwritable directory, a full disk or an interrupt leaves the old file (or
  nothing) in place, never a partial one; an overwritten file keeps its mode.
* a FIFO, a character or block device, a socket: written directly (renaming over it would
  replace ``/dev/null`` or a named pipe with a regular file). A FIFO nobody reads is an error
  after no wait, not a hang.
* a directory: a clear error.
"""

from __future__ import annotations

import errno
import os
import stat


class WriteError(OSError):
    """A file could not be written; the message names the path and the reason."""


_MAX_LINKS = 40     # as the kernel's own limit on links followed in one lookup


def resolve_target(path: str) -> str:
    """``path`` absolute, with every symbolic link in it followed (a dangling link gives the
    path it points to, so the write creates the link's target). Raises WriteError on a loop."""
    target = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        directory, name = os.path.split(target)
        target = os.path.join(os.path.realpath(directory), name)    # links above it resolved
        try:
            link = os.readlink(target)
        except OSError:          # not a link (or no such path)
            return target
        target = os.path.normpath(os.path.join(os.path.dirname(target), link))
    raise WriteError(f"cannot write {path}: too many levels of symbolic links")


def write_atomic(path: str, data: str | bytes) -> None:
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = resolve_target(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise WriteError(f"cannot write {path}: it is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_in_place(path, target, payload)
        return
    directory = os.path.dirname(target)
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
            if st is not None:      # an overwritten file keeps its mode; a new one gets 0666 less the umask
                os.fchmod(f.fileno(), st.st_mode & 0o7777)
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


def _write_in_place(path: str, target: str, payload: bytes) -> None:
    """A FIFO, device or socket: open it and write, never replace it. A FIFO is opened
    non-blocking (no reader: ENXIO, an error instead of a hang), then written blocking."""
    try:
        st = os.stat(target)
        if stat.S_ISSOCK(st.st_mode):
            import socket

            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(target)
                sock.sendall(payload)
            return
        flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
        if stat.S_ISFIFO(st.st_mode):
            flags |= getattr(os, "O_NONBLOCK", 0)
        fd = os.open(target, flags)
    except OSError as exc:
        why = "no process is reading the pipe" if exc.errno == errno.ENXIO else \
            (exc.strerror or str(exc))
        raise WriteError(f"cannot write {path}: {why}") from exc
    try:
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


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
