"""The probe context: every file a probe reads goes through it.

A context has a root directory. On a live system the root is "/"; in tests and for bug
reports it is a recorded machine tree (``--sysroot``) laid out like the real one
(``proc/``, ``sys/``, ``dev/``, ``etc/``, ``usr/``). Readers never raise: a missing,
unreadable or undecodable file reads as ``None`` (or an empty listing), because on real
machines sysfs files vanish, refuse to be read or hold garbage, and one bad file must not
cost the whole report.
"""

from __future__ import annotations

import fnmatch
import os
import threading

_UNSET = object()


class ProbeContext:
    """Where probes read from (``root``), whether they may import frameworks (``deep``), and
    the environment they see (``env``, the process environment unless given)."""

    __slots__ = ("root", "deep", "env", "_shared", "_shared_lock")

    def __init__(self, root: str = "/", deep: bool = False, env: dict | None = None):
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "deep", deep)
        object.__setattr__(self, "env", dict(os.environ) if env is None else env)
        object.__setattr__(self, "_shared", {})
        object.__setattr__(self, "_shared_lock", threading.Lock())

    def __setattr__(self, name, value):
        raise AttributeError("ProbeContext is frozen")

    def __eq__(self, other):
        if not isinstance(other, ProbeContext):
            return NotImplemented
        return (self.root, self.deep) == (other.root, other.deep)

    def __hash__(self):
        return hash((self.root, self.deep))

    def __repr__(self) -> str:
        return f"ProbeContext(root={self.root!r}, deep={self.deep!r})"

    def shared(self, key: str, make):
        """``make()``, computed once for this context and handed to every probe that asks
        for ``key`` (work two probes need, such as /proc/cpuinfo parsed: the probes run in
        parallel threads, so a second caller waits for the first instead of redoing it).
        A ``make`` that raises is tried again by the next caller."""
        with self._shared_lock:
            entry = self._shared.setdefault(key, [threading.Lock(), _UNSET])
        with entry[0]:
            if entry[1] is _UNSET:
                entry[1] = make()
            return entry[1]

    @property
    def live(self) -> bool:
        """True when probing the running system (libraries, PATH and psutil may be used)."""
        return os.path.realpath(self.root) == "/"

    def p(self, rel: str) -> str:
        """The path of ``rel`` under the root, as a string (the fast form for os calls)."""
        return f"{self.root.rstrip('/')}/{rel.lstrip('/')}"

    def read_bytes(self, rel: str, limit: int = 4 << 20) -> bytes | None:
        """At most ``limit`` bytes. Opened non-blocking, so a FIFO planted in a recorded
        tree reads as empty instead of hanging the probe."""
        try:
            fd = os.open(self.p(rel), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except (OSError, ValueError):
            return None
        chunks, size = [], 0
        try:
            while size < limit:
                data = os.read(fd, min(65536, limit - size))
                if not data:
                    break
                chunks.append(data)
                size += len(data)
        except OSError:
            return None
        finally:
            os.close(fd)
        return b"".join(chunks)

    def read_text(self, rel: str, default: str | None = None, limit: int = 4 << 20) -> str | None:
        data = self.read_bytes(rel, limit)
        if data is None:
            return default
        return data.decode("utf-8", errors="replace")

    def read_line(self, rel: str) -> str | None:
        """First line, stripped of whitespace and NULs; None when missing or empty."""
        text = self.read_text(rel)
        if text is None:
            return None
        line = text.split("\n", 1)[0].strip().strip("\x00").strip()
        return line or None

    def read_int(self, rel: str, base: int = 10) -> int | None:
        line = self.read_line(rel)
        if line is None:
            return None
        try:
            return int(line, base)
        except ValueError:
            return None

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.p(rel))

    def is_dir(self, rel: str) -> bool:
        return os.path.isdir(self.p(rel))

    def listdir(self, rel: str) -> list[str]:
        try:
            return sorted(os.listdir(self.p(rel)))
        except (OSError, ValueError):
            return []

    def readlink(self, rel: str) -> str | None:
        """Basename of a symlink's target (sysfs ``driver``, ``subsystem`` links) or None."""
        try:
            target = os.readlink(self.p(rel))
        except (OSError, ValueError):
            return None
        return os.path.basename(target.rstrip("/")) or None

    def realpath(self, rel: str) -> str | None:
        """The target of a link as a path relative to the root (sysfs device links)."""
        try:
            real = os.path.realpath(self.p(rel))
        except (OSError, ValueError):
            return None
        root = os.path.realpath(self.root)
        if real != root and not real.startswith(root.rstrip("/") + "/"):
            return None
        return os.path.relpath(real, root)

    def glob(self, pattern: str) -> list[str]:
        """Relative paths matching a pattern whose wildcards sit in the last component."""
        parent, _, name = pattern.rstrip("/").rpartition("/")
        return [f"{parent}/{n}" if parent else n
                for n in self.listdir(parent) if fnmatch.fnmatchcase(n, name)]
