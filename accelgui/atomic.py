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

That is the contract for files the user names (``--output``, Export, the monitor's Save): a
link the user made is theirs to point where they like. The app's *own* state files (learner
progress, app settings and their backups) are different: nobody names them on a command
line, so a link or a FIFO there is a mistake or an attack, never a wish. They go through
``read_state_file`` and ``write_state_file``:

* read with ``O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC``, then ``fstat``: a symbolic link, a
  FIFO, a device, a socket or a directory is refused (``UnsafeFileError``) without blocking;
  so is a file larger than ``STATE_FILE_MAX_BYTES``, 2 MiB: a progress file with evidence
  for every one of the ~110 steps is about 0.2 MiB, and at the cap the most expensive JSON
  (tiny nested lists) still parses in about 0.2 s and 55 MiB
  (``tests/benchmarks/bench_progress_load.py``). The error names the path and what to do.
* written as a new temporary file in the same folder (``O_CREAT|O_EXCL|O_NOFOLLOW``, mode
  0600 whatever the umask: they may hold check evidence), fsynced, then renamed over the
  target. A target that is a symbolic link (dangling or not) or not a regular file is
  refused, never written through and never replaced: accelgui does not choose for the user
  between the link and the file it points to. The rename itself never follows a link, so a
  link swapped in at the last moment is replaced, its target untouched.
* refused files are left exactly as they are (same inode, same bytes).

On Windows the same holds with what the OS offers: a rename over a file another process has
open (an antivirus scanner, the indexer, a second accelgui) fails with a sharing violation for
a moment, so the rename is retried for up to REPLACE_RETRY_S before it is an error; there is no
``fchmod`` (the file's mode is the folder's ACL) and no ``fcntl``: :class:`FileLock` locks with
``msvcrt.locking`` there and ``fcntl.flock`` elsewhere.
"""

from __future__ import annotations

import errno
import os
import stat


class WriteError(OSError):
    """A file could not be written; the message names the path and the reason."""


class UnsafeFileError(OSError):
    """A state file accelgui will not read or replace: a link, not a regular file, or larger
    than the cap. The message names the path and what to do; the file is left untouched."""


STATE_FILE_MAX_BYTES = 2 * 1024 * 1024      # see the module doc
REPLACE_RETRY_S = 2.0                       # Windows: how long a sharing violation is waited out
_SHARING_ERRORS = (5, 32, 33)               # winerror: access denied, sharing / lock violation

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)

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
    # an overwritten file keeps its mode; a new one gets 0666 less the umask
    _replace_with(fd, tmp, target, directory, payload, path,
                  None if st is None else st.st_mode & 0o7777)


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


def _create_temp(directory: str, name: str, mode: int = 0o666) -> tuple[int, str]:
    """A new file ``.NAME.XXXXXXXX.tmp`` beside the target, created with mode 0666 so that
    the kernel applies the umask (reading the umask would mean changing it, which races with
    other threads)."""
    for _ in range(100):
        tmp = os.path.join(directory, f".{name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _NOFOLLOW,
                           mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def _fchmod(fd: int, mode: int) -> None:
    """The file's mode (POSIX); Windows has no fchmod before Python 3.13: its ACLs decide."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)


def replace(src: str, dst: str, retry_s: float | None = None, sleep=None) -> None:
    """``os.replace``; on Windows a sharing violation (another process has ``dst`` open for a
    moment) is retried, with a growing pause, for up to ``retry_s`` (REPLACE_RETRY_S)."""
    import time

    deadline = time.monotonic() + (REPLACE_RETRY_S if retry_s is None else retry_s)
    pause = 0.01
    while True:
        try:
            os.replace(src, dst)
            return
        except PermissionError as exc:
            if getattr(exc, "winerror", None) not in _SHARING_ERRORS or time.monotonic() >= deadline:
                raise
        (sleep or time.sleep)(pause)
        pause = min(pause * 2, 0.25)


class FileLock:
    """An exclusive lock on ``path`` (a lock file, created 0600, never through a link) held
    for a ``with`` block: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` of its first byte on
    Windows (which waits in one-second steps: retried until it is taken); where neither
    exists the block runs unlocked. UnsafeFileError when ``path`` is a link or not a file."""

    def __init__(self, path: str):
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> FileLock:
        check_state_target(self.path)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _CLOEXEC | _NOFOLLOW | _NONBLOCK, 0o600)
        except OSError as exc:
            raise WriteError(f"cannot lock {self.path}: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):         # swapped in after the check
            os.close(fd)
            raise _refuse_kind(self.path, os.stat(self.path).st_mode)
        self.fd = fd
        _lock_fd(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)           # closing releases the lock (both kinds)
            self.fd = None


def _lock_fd(fd: int) -> None:
    try:
        import fcntl
    except ImportError:
        fcntl = None
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    try:
        import msvcrt
    except ImportError:
        return
    while True:
        try:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)   # waits up to 10 s, then raises
            return
        except OSError:
            continue


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


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "something else"


def _refuse_link(path: str) -> UnsafeFileError:
    return UnsafeFileError(
        f"{path} is a symbolic link; accelgui does not follow links for its own state files. "
        "Nothing was changed. Replace the link with the file itself (or point "
        "$ACCELGUI_DATA_DIR / $ACCELGUI_CONFIG_DIR at the folder you want)")


def _refuse_kind(path: str, mode: int) -> UnsafeFileError:
    return UnsafeFileError(
        f"{path} is not a regular file (it is {_kind(mode)}); nothing was changed. "
        "Move it away (or remove it) and accelgui will create a fresh file there")


def _refuse_size(path: str, size: int, max_bytes: int) -> UnsafeFileError:
    return UnsafeFileError(
        f"{path} is {_mib(size)}, larger than the {_mib(max_bytes)} accelgui allows for its "
        f"state files; nothing was changed. Move it away (e.g. mv {path} {path}.big) to start "
        "afresh, or trim it")


def read_state_file(path: str, max_bytes: int = STATE_FILE_MAX_BYTES) -> bytes | None:
    """The bytes of one of the app's own state files; None when there is none. Never follows
    a link at ``path``, never blocks (a FIFO is refused, not waited on), never reads more
    than ``max_bytes`` + 1. Raises UnsafeFileError (see the module doc) or OSError (e.g. no
    permission); the file is never changed."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _NOCTTY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            try:
                is_link = stat.S_ISLNK(os.lstat(path).st_mode)
            except OSError:
                is_link = False
            if is_link:
                raise _refuse_link(path) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse_kind(path, st.st_mode)
        if st.st_size > max_bytes:
            raise _refuse_size(path, st.st_size, max_bytes)
        chunks, total = [], 0
        while total <= max_bytes:                # the file may grow while it is read
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise _refuse_size(path, max(total, os.fstat(fd).st_size), max_bytes)
        return b"".join(chunks)
    finally:
        os.close(fd)


def check_state_target(path: str) -> None:
    """Raise UnsafeFileError when ``path`` exists and is a link or not a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise _refuse_link(path)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse_kind(path, st.st_mode)


def _replace_with(fd: int, tmp: str, target: str, directory: str, payload: bytes, path: str,
                  mode: int | None, before_rename=None) -> None:
    """Write ``payload`` to the open temporary file ``fd`` (``tmp``), fsync it, rename it over
    ``target`` and fsync the folder; on any failure the temporary file is removed and the old
    file stays (an OSError becomes a WriteError naming ``path``; UnsafeFileError passes)."""
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                _fchmod(f.fileno(), mode)
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        if before_rename is not None:
            before_rename()
        replace(tmp, target)
        _fsync_dir(directory)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, UnsafeFileError):
            raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise


def write_state_file(path: str, data: str | bytes, mode: int = 0o600) -> None:
    """Replace one of the app's own state files atomically with ``data``, mode ``mode``
    (0600). Refuses (UnsafeFileError, nothing changed) when ``path`` is a symbolic link or
    not a regular file; any other failure (WriteError) leaves the old file in place."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path = os.path.abspath(path)
    check_state_target(path)
    directory, name = os.path.split(path)
    try:
        fd, tmp = _create_temp(directory, name, mode)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    # the umask never widens or narrows the mode; the check again just before the rename
    # narrows the window (the rename itself never follows a link)
    _replace_with(fd, tmp, path, directory, payload, path, mode,
                  before_rename=lambda: check_state_target(path))


def create_new_file(path: str, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` only if nothing is there (not even a dangling link):
    ``O_CREAT|O_EXCL|O_NOFOLLOW``. FileExistsError when something is; a partial file is
    removed on failure."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            _fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise
