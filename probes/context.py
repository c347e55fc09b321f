"""The probe context: every file a probe reads goes through it.

A context has a root directory. On a live system the root is "/"; in tests and for bug
reports it is a recorded machine tree (``--sysroot``) laid out like the real one
(``proc/``, ``sys/``, ``dev/``, ``etc/``, ``usr/``). Readers never raise: a missing,
unreadable or undecodable file reads as ``None`` (or an empty listing), because on real
machines sysfs files vanish, refuse to be read or hold garbage, and one bad file must not
cost the whole report.

Reading is confined and bounded (docs/probe-warnings.md):

* in a recorded tree every path is resolved component by component without letting the OS
  follow links: a link is read and followed here, an absolute target is taken relative to
  the root (as inside a chroot), and a path that climbs above the root is refused
  (``outside-tree``); more than 40 links is a ``loop``. Nothing outside the root is ever
  opened, listed or stat'ed on the tree's behalf. Each folder is resolved once per context
  and kept (a tree does not change while it is probed), so a file in a folder seen before
  costs one ``lstat`` and, below 64 KiB, one ``read``.
* only regular files are read: a FIFO, a device or a socket planted in a tree is never
  opened (``not-a-file``); on the live system, where /proc and /sys are trusted, the opened
  file is checked instead.
* every read is capped (``READ_LIMIT`` unless the caller asks for another cap; more is
  ``truncated``) and every line of text is cut at ``LINE_LIMIT`` characters before any
  parser sees it, so no parser is ever handed a megabyte-long line.

What could not be used is a *fault*: ``(path, reason)`` recorded for the probe that asked
(each probe's thread is bound to its name by the runner, :meth:`ProbeContext.bound`); the
runner turns them into the probe's ``warnings``. Probes record their own faults for values
they could not parse or that are out of range (:meth:`ProbeContext.fault`).

A recorded machine is either a tree of files (Linux, read as above) or a folder of command
outputs (macOS, Windows: :mod:`accelgui.probes.platforms.recorded`); :attr:`ProbeContext.platform`
says which backend describes it, and :meth:`ProbeContext.output` hands a probe the text of one
command, read from the folder or, live on that OS, run (bounded, no shell).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
import threading
import time
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from accelgui.probes.platforms.recorded import Recording

T = TypeVar("T")
Runner = Callable[[tuple[str, ...], float], tuple["str | None", "str | None"]]
DirEntry = tuple["str | None", int, int]    # (host path or None when plain, links, state)

_UNSET = object()
_MISSING = -1                 # what _lookup says of a path that does not exist
_PLAIN: DirEntry = (None, 0, 0)   # a folder of the tree reached without a link: root/rel
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

READ_LIMIT = 4 << 20          # bytes read from one file unless the caller asks otherwise
LINE_LIMIT = 64 << 10         # characters of one line handed to a parser
MAX_LINKS = 40                # as the kernel's own limit on links in one lookup

# why an input could not be used (the ``reason`` of a warning; l10n ids safety.reason.<reason>)
REASONS = ("unreadable", "not-a-file", "outside-tree", "loop", "unparseable", "out-of-range",
           "truncated", "disagree")


class ProbeDeadline(BaseException):
    """Raised inside a probe that reads after its deadline (the runner has already reported
    it as timed out): stops an abandoned probe thread at its next read. A BaseException so
    that a probe's own ``except Exception`` does not swallow it."""


class ProbeContext:
    """Where probes read from (``root``), whether they may import frameworks (``deep``), and
    the environment they see (``env``, the process environment unless given).
    ``run_command(argv, timeout_s) -> (text or None, reason or None)`` runs a backend's
    command live (:func:`accelgui.probes.platforms.live.run` unless given: tests pass a fake)."""

    __slots__ = ("root", "deep", "env", "_shared", "_shared_lock", "_live", "_base",
                 "_dirs", "_faults", "_local", "_run_command", "_platform")

    root: str
    deep: bool
    env: dict[str, str]
    _shared: dict[str, list[Any]]
    _shared_lock: threading.Lock
    _live: bool
    _base: str
    _dirs: dict[str, DirEntry | str]
    _faults: dict[str, dict[tuple[str, str], None]]
    _local: threading.local
    _run_command: Runner | None
    _platform: str | None

    def __init__(self, root: str = "/", deep: bool = False, env: dict[str, str] | None = None,
                 run_command: Runner | None = None):
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "deep", deep)
        object.__setattr__(self, "env", dict(os.environ) if env is None else env)
        object.__setattr__(self, "_shared", {})
        object.__setattr__(self, "_shared_lock", threading.Lock())
        try:
            real = os.path.realpath(root)
        except (OSError, ValueError):
            real = root
        object.__setattr__(self, "_live", real == "/" or root in ("/", os.sep))
        object.__setattr__(self, "_base", root.rstrip("/"))
        object.__setattr__(self, "_dirs", {})         # resolved directories of the tree
        object.__setattr__(self, "_faults", {})       # probe name -> {(path, reason): None}
        object.__setattr__(self, "_local", threading.local())
        object.__setattr__(self, "_run_command", run_command)
        object.__setattr__(self, "_platform", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ProbeContext is frozen")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProbeContext):
            return NotImplemented
        return (self.root, self.deep) == (other.root, other.deep)

    def __hash__(self) -> int:
        return hash((self.root, self.deep))

    def __repr__(self) -> str:
        return f"ProbeContext(root={self.root!r}, deep={self.deep!r})"

    def shared(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, computed once for this context and handed to every probe that asks
        for ``key`` (work two probes need, such as /proc/cpuinfo parsed: the probes run in
        parallel threads, so a second caller waits for the first instead of redoing it).
        A ``make`` that raises is tried again by the next caller. The faults ``make``
        records belong to every probe that uses the result, not only to the first caller."""
        with self._shared_lock:
            entry = self._shared.setdefault(key, [threading.Lock(), _UNSET, ()])
        with entry[0]:
            if entry[1] is _UNSET:
                outer = getattr(self._local, "collect", None)
                collected: list[tuple[str, str]] = []
                self._local.collect = collected
                try:
                    entry[1] = make()
                finally:
                    self._local.collect = outer
                    if outer is not None:
                        outer.extend(collected)
                entry[2] = tuple(collected)
            else:
                for rel, reason in entry[2]:
                    self.fault(rel, reason)
            result: T = entry[1]
            return result

    @property
    def live(self) -> bool:
        """True when probing the running system (libraries, PATH and psutil may be used)."""
        return self._live

    # ------------------------------------------------------------------ platforms

    @property
    def platform(self) -> str:
        """The backend that describes this machine: ``"linux"``, ``"macos"`` or
        ``"windows"``. Live: the running OS. A recorded root: a Linux tree when it holds a
        tree's folders (``proc``, ``sys``, ``etc``...), else the OS whose commands claim
        the most files of the folder, else ``"linux"`` (what an empty root always was)."""
        if self._platform is None:
            from accelgui.probes import platforms

            if self._live:
                name = platforms.live_platform()
            elif platforms.looks_like_linux_tree(self.root) is not False:
                name = "linux"
            else:
                name = self._recording().platform or "linux"
            object.__setattr__(self, "_platform", name)
        return str(self._platform)

    def _recording(self) -> Recording:
        """The recorded folder read and recognised once; the files nothing could use are
        warnings of the ``platform`` probe, whichever probe asked first."""
        def scan() -> Recording:
            from accelgui.probes.platforms import recorded

            found = recorded.scan(self.root)
            entries = self._faults.setdefault("platform", {})
            for name, reason in found.faults[:200]:
                entries[(name, reason)] = None
            return found

        with self._shared_lock:     # not shared(): its faults would go to every caller
            entry = self._shared.setdefault("platforms.recording", [threading.Lock(), _UNSET, ()])
        with entry[0]:
            if entry[1] is _UNSET:
                entry[1] = scan()
            found: Recording = entry[1]
            return found

    def outputs(self, key: str) -> list[str]:
        """The texts of command ``key`` (``"macos.sysctl"``): every file of a recorded
        folder recognised as its output, in file-name order, or its output run live on
        that OS (once per context). [] when there is none; never raises. Faults of those
        files (``truncated``...) are recorded for the calling probe, path = the file's name
        (live: the command line)."""
        self._check_deadline()
        if self._live:
            return self._live_output(key)
        if self.platform == "linux":
            return []
        texts = []
        for name, text, faults in self._recording().claimed.get(key, ()):
            for reason in faults:
                self.fault(name, reason)
            texts.append(text)
        return texts

    def output(self, key: str) -> str | None:
        """The text of command ``key``: its files joined by a newline (``sysctl hw`` and
        ``sysctl machdep`` saved apart are one ``sysctl`` output), or None."""
        texts = self.outputs(key)
        return "\n".join(texts) if texts else None

    @property
    def recorded_commands(self) -> dict[str, list[str]]:
        """Command key -> the recorded files recognised as its output ({} live or for a
        Linux tree)."""
        if self._live or self.platform == "linux":
            return {}
        return self._recording().files()

    def _live_output(self, key: str) -> list[str]:
        from accelgui.probes import platforms

        cmd = platforms.command(key)
        if cmd is None or cmd.os != self.platform:
            return []               # never run another OS's commands (nor any on Linux)

        def run() -> tuple[str | None, str | None]:
            runner = self._run_command
            if runner is None:
                from accelgui.probes.platforms import live

                runner = live.run
            deadline = getattr(self._local, "deadline", None)
            limit = cmd.timeout_s if deadline is None else \
                max(0.1, min(cmd.timeout_s, deadline - time.monotonic()))
            return runner(cmd.argv, limit)

        text, reason = self.shared(f"platforms.live.{key}", run)
        if reason is not None:
            self.fault(" ".join(cmd.argv), "truncated" if reason == "truncated" else "unreadable")
        return [text] if text is not None else []

    # ------------------------------------------------------------------ faults

    def bound(self, probe: str, deadline: float | None = None) -> AbstractContextManager[ProbeContext]:
        """Context manager: faults recorded in this thread belong to ``probe``; reads after
        ``deadline`` (time.monotonic()) raise ProbeDeadline."""
        ctx = self

        class _Binding:
            def __enter__(self) -> ProbeContext:
                ctx._local.probe = probe
                ctx._local.deadline = deadline
                return ctx

            def __exit__(self, *exc: object) -> None:
                ctx._local.probe = None
                ctx._local.deadline = None

        return _Binding()

    def fault(self, rel: str, reason: str) -> None:
        """Record that input ``rel`` could not be used, and why (one of REASONS)."""
        collect = getattr(self._local, "collect", None)
        if collect is not None:                 # inside shared(): kept for its other users
            collect.append((rel, reason))
        probe = getattr(self._local, "probe", None) or ""
        entries = self._faults.setdefault(probe, {})
        if len(entries) < 200:                  # a hostile tree cannot grow the report without end
            entries[(str(rel).lstrip("/"), reason)] = None

    def faults(self, probe: str) -> list[tuple[str, str]]:
        """The (path, reason) pairs recorded for ``probe``, in the order they happened."""
        return list(self._faults.get(probe, ()))

    def take_faults(self, probe: str) -> list[tuple[str, str]]:
        """The (path, reason) pairs recorded for ``probe``, forgotten here."""
        return list(self._faults.pop(probe, ()))

    def _check_deadline(self) -> None:
        deadline = getattr(self._local, "deadline", None)
        if deadline is not None and time.monotonic() > deadline:
            raise ProbeDeadline(getattr(self._local, "probe", None))

    # ------------------------------------------------------------------ paths

    def p(self, rel: str) -> str:
        """The path of ``rel`` under the root, as a string, without any confinement: for
        the live system only (use :meth:`path` for a path that may lie in a tree)."""
        return f"{self._base}/{rel.lstrip('/')}"

    def path(self, rel: str, follow: bool = True) -> str | None:
        """The host path of ``rel`` with every link inside the tree resolved, or None when
        it leads out of the tree or loops (recorded as a fault). ``follow=False`` leaves a
        link in the last component as it is (to read the link itself)."""
        if self._live:
            return self.p(rel)
        return self._resolve(rel, follow)

    def _resolve(self, rel: str, follow: bool) -> str | None:
        return self._lookup(rel, follow)[0]

    def _lookup(self, rel: str, follow: bool) -> tuple[str | None, int | None]:
        """(host path or None, what the last lstat said of it): its ``st_mode``, ``_MISSING``
        when it does not exist, None when not known (not looked at, or an error the open
        will name). Every folder on the way is resolved once per context (``_dirs``), so a
        file in a folder seen before costs one lstat; a folder reached by ``follow`` is
        kept for the files under it."""
        key = rel.strip("/")
        parent, _, name = key.rpartition("/")
        entry = self._dir(parent)
        if isinstance(entry, str):              # the parent itself is outside or loops
            self.fault(rel, entry)
            return None, None
        comps = self._comps(entry, parent)
        if not name or name == ".":
            return "/".join([self._base, *comps]), None
        if not follow and name != "..":
            return "/".join([self._base, *comps, name]), None
        if entry[2]:                            # below a missing or unreadable folder
            return "/".join([self._base, *comps, name]), _MISSING if entry[2] == 1 else None
        out = self._walk(name, comps, entry[1])
        if isinstance(out, str):
            self.fault(rel, out)
            return None, None
        comps, links, mode = out
        if mode is not None and mode != _MISSING and stat.S_ISDIR(mode):
            self._dirs[key] = self._entry(entry, name, comps, links, 0)
        return "/".join([self._base, *comps]), mode

    def _dir(self, rel: str) -> DirEntry | str:
        """The resolved folder ``rel`` of the tree: ``_PLAIN`` (no link on the way: its host
        path is root/rel), (host path, links followed, state) or the reason it cannot be
        resolved. State 0: resolved; 1: missing; 2: could not be looked at. Resolved from
        the nearest folder already known, one component at a time, each prefix that exists
        (or is refused) kept."""
        entry: DirEntry | str | None = self._dirs.get(rel) if rel else _PLAIN
        if entry is not None:
            return entry
        names: list[str] = []
        cur = rel
        while cur:
            cur, _, name = cur.rpartition("/")
            names.append(name)
            entry = self._dirs.get(cur) if cur else _PLAIN
            if entry is not None:
                break
        prefix = cur
        assert entry is not None                # the root's entry ends the climb
        for name in reversed(names):
            key = f"{prefix}/{name}" if prefix else name
            if not isinstance(entry, str):
                comps = self._comps(entry, prefix)
                if entry[2]:                    # below a missing folder: nothing to look at
                    entry = ("/".join([self._base, *comps, name]), entry[1], entry[2])
                else:
                    out = self._walk(name, comps, entry[1])
                    if isinstance(out, str):
                        entry = out
                    else:
                        state = 1 if out[2] == _MISSING else 2 if out[2] is None else 0
                        entry = self._entry(entry, name, out[0], out[1], state)
            if isinstance(entry, str) or not entry[2]:
                self._dirs[key] = entry         # a missing folder is looked at again next
            prefix = key                        # time (a monitor replays a tree for hours)
        return entry

    def _entry(self, parent: DirEntry, name: str, comps: list[str], links: int, state: int) -> DirEntry:
        """A folder's cache entry: ``_PLAIN`` where its host path is root/rel (the parent's
        plain and this component neither a link nor "..")."""
        if parent is _PLAIN and state == 0 and links == 0 and name not in ("..", "."):
            return _PLAIN
        return ("/".join([self._base, *comps]), links, state)

    def _comps(self, entry: DirEntry, rel: str) -> list[str]:
        """The resolved components of a folder entry (``rel``: its key)."""
        if entry is _PLAIN:
            return [c for c in rel.split("/") if c] if rel else []
        host = entry[0] or ""
        return host[len(self._base) + 1:].split("/") if len(host) > len(self._base) else []

    def _walk(self, rel: str, comps: list[str], links: int) -> tuple[list[str], int, int | None] | str:
        """Resolve ``rel`` below the resolved components ``comps``: (components, links, mode)
        or the reason it cannot be resolved ("outside-tree", "loop"). ``mode``: the lstat
        of the result (``_MISSING`` when it does not exist, None when unknown)."""
        todo = [c for c in reversed(rel.split("/")) if c and c != "."]
        mode = stat.S_IFDIR                     # nothing to walk: the folder it starts from
        while todo:
            c = todo.pop()
            if c == "..":
                if not comps:
                    return "outside-tree"
                comps.pop()
                mode = stat.S_IFDIR             # the folder that held what was looked at
                continue
            comps.append(c)
            try:
                mode = os.lstat("/".join([self._base, *comps])).st_mode
            except (FileNotFoundError, NotADirectoryError):
                comps.extend(reversed(todo))
                return comps, links, _MISSING
            except (OSError, ValueError):       # unreadable: let the open say so
                comps.extend(reversed(todo))
                return comps, links, None
            if stat.S_ISLNK(mode):
                links += 1
                if links > MAX_LINKS:
                    return "loop"
                try:
                    target = os.readlink("/".join([self._base, *comps]))
                except (OSError, ValueError):
                    return "unreadable"
                comps.pop()
                if target.startswith("/"):
                    comps = []                  # absolute: from the tree's root
                todo.extend(c for c in reversed(target.split("/")) if c and c != ".")
                mode = stat.S_IFDIR             # a target of no component: a folder resolved
        return comps, links, mode

    # ------------------------------------------------------------------ reading

    def read_bytes(self, rel: str, limit: int = READ_LIMIT) -> bytes | None:
        """At most ``limit`` bytes of a regular file (more is recorded as ``truncated``).
        Opened non-blocking and never through a link, so nothing but a file inside the tree
        is ever opened."""
        data, more = self._read(rel, limit)
        if more:
            self.fault(rel, "truncated")
        return data

    def _read(self, rel: str, limit: int) -> tuple[bytes | None, bool]:
        """(at most ``limit`` bytes or None, whether the file holds more). In a tree a file
        costs one lstat (while resolving it) and, below 64 KiB, one read: a short read of a
        regular file is its end."""
        self._check_deadline()
        mode: int | None = None
        if self._live:
            path = self.p(rel)
        else:
            found, mode = self._lookup(rel, True)
            if found is None or mode == _MISSING:
                return None, False
            path = found
        flags = _OPEN_FLAGS
        try:
            if not self._live:
                if mode is None:
                    mode = os.stat(path).st_mode
                if not stat.S_ISREG(mode):      # resolved: no link left
                    self.fault(rel, "not-a-file")
                    return None, False
                flags |= _NOFOLLOW
            fd = os.open(path, flags)
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return None, False
        except OSError as exc:
            self.fault(rel, "loop" if exc.errno == errno.ELOOP else "unreadable")
            return None, False
        chunks, size, more = [], 0, False
        try:
            if self._live and not stat.S_ISREG(os.fstat(fd).st_mode):
                self.fault(rel, "not-a-file")
                return None, False
            while size < limit:
                want = min(65536, limit - size)
                data = os.read(fd, want)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
                if len(data) < want and not self._live:
                    break                       # procfs reads short; a regular file does not
            more = size >= limit and bool(os.read(fd, 1))
        except OSError as exc:
            self.fault(rel, "not-a-file" if exc.errno == errno.EISDIR else "unreadable")
            return None, False
        finally:
            os.close(fd)
        return b"".join(chunks), more

    def read_text(self, rel: str, default: str | None = None, limit: int = READ_LIMIT) -> str | None:
        """The file decoded as UTF-8 (bad bytes replaced), every line cut at LINE_LIMIT."""
        data = self.read_bytes(rel, limit)
        if data is None:
            return default
        text = data.decode("utf-8", errors="replace")
        if len(text) > LINE_LIMIT:
            lines = text.split("\n")
            if max(map(len, lines)) > LINE_LIMIT:
                self.fault(rel, "truncated")
                text = "\n".join(line[:LINE_LIMIT] for line in lines)
        return text

    def read_line(self, rel: str) -> str | None:
        """First line, stripped of whitespace and NULs; None when missing or empty."""
        data, more = self._read(rel, LINE_LIMIT)
        if data is None:
            return None
        first = data.split(b"\n", 1)
        if len(first) == 1 and more:            # the first line goes on past the cap
            self.fault(rel, "truncated")
        line = first[0].decode("utf-8", errors="replace").strip().strip("\x00").strip()
        return line or None

    def read_int(self, rel: str, base: int = 10) -> int | None:
        """The first line as an integer; a line that is not one is recorded (unparseable)."""
        line = self.read_line(rel)
        if line is None:
            return None
        if len(line) > 64:
            self.fault(rel, "out-of-range")
            return None
        try:
            return int(line, base)
        except ValueError:
            self.fault(rel, "unparseable")
            return None

    def exists(self, rel: str) -> bool:
        path = self.path(rel, follow=False)
        return path is not None and os.path.lexists(path)

    def is_dir(self, rel: str) -> bool:
        path = self.path(rel)
        return path is not None and os.path.isdir(path)

    def listdir(self, rel: str) -> list[str]:
        self._check_deadline()
        path = self.path(rel)
        if path is None:
            return []
        try:
            return sorted(os.listdir(path))
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return []
        except OSError as exc:
            self.fault(rel, "loop" if exc.errno == errno.ELOOP else "unreadable")
            return []

    def readlink(self, rel: str) -> str | None:
        """Basename of a symlink's target (sysfs ``driver``, ``subsystem`` links) or None."""
        path = self.path(rel, follow=False)
        if path is None:
            return None
        try:
            target = os.readlink(path)
        except (OSError, ValueError):
            return None
        return os.path.basename(target.rstrip("/")) or None

    def realpath(self, rel: str) -> str | None:
        """The target of a link as a path relative to the root (sysfs device links)."""
        if self._live:
            try:
                return os.path.relpath(os.path.realpath(self.p(rel)), "/")
            except (OSError, ValueError):
                return None
        path = self.path(rel)
        if path is None:
            return None
        return os.path.relpath(path, self._base or "/")

    def glob(self, pattern: str) -> list[str]:
        """Relative paths matching a pattern whose wildcards sit in the last component."""
        parent, _, name = pattern.rstrip("/").rpartition("/")
        return [f"{parent}/{n}" if parent else n
                for n in self.listdir(parent) if fnmatch.fnmatchcase(n, name)]
