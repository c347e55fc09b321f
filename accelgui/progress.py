"""Learner progress: which learning steps the user marked as done.

One small JSON file shared by the CLI (``accelgui --done STEP`` / ``--undo STEP``) and the app::

    <data dir>/progress.json   {"version": 2, "done": {"gpu.setup-check": "2026-11-29T10:00:00+00:00"},
                                "goal": "serve-llm",            # advisor.GOALS id, optional
                                "verified": {"cpu.numba-jit": {"proves": "work", "date": ...,
                                                               "figures": ..., "targets": ...}}}

``done`` holds the steps done (ticked by hand, or whose own work passed), ``verified`` the
evidence of ``accelgui --verify``: each says what it ``proves``. ``"environment"`` (a check
that the tools of the step work here) means "ready to start" and never marks a step done;
``"work"`` (the learner's exercise or artefact passed: figures, versions, machine key, date)
marks it done. Version 1 files are read as well: their evidence came from environment checks,
so it becomes "ready to start" and the tick it added is taken back (:func:`_upgrade`).
``goal`` is the learner's goal.
A saved goal ranks the next steps of every later run; every face says so ("Goal: ... (saved;
--goal none clears it)", ``advice.goal_source`` "saved" in a report), and ``--goal none`` on
any command that takes ``--goal`` (or the app's "No particular goal") clears it.

The data dir is ``platformdirs.user_data_dir("accelgui")`` (``~/.local/share/accelgui`` on
Linux); ``$ACCELGUI_DATA_DIR`` overrides it. Every read-modify-write holds an exclusive
``flock`` on ``progress.json.lock`` beside it, so parallel ``--done`` runs never lose each
other's steps.

The file is read and written as the app's own state (``accelgui.atomic.read_state_file`` /
``write_state_file``): never through a symbolic link, never blocking on a FIFO, at most
``STATE_FILE_MAX_BYTES`` (2 MiB; a write that would make the file larger is refused, so
accelgui never writes a file it would not read), always written whole (temporary file,
fsync, rename) with mode 0600, because verification evidence may quote a check's output. A file accelgui refuses
(a link, not a regular file, too large) gives empty progress and one warning on reading, and
every command that would change it fails with a clear error; it is never touched. To keep
progress in a synced folder, point ``$ACCELGUI_DATA_DIR`` at that folder instead of linking
the file.

A file that can be read but not as progress (bad JSON, wrong shape) gives empty progress and
one warning on stderr; it is left as it is until the next write, which first keeps a copy
next to it: ``progress.json.corrupt``, or ``progress.json.corrupt.N`` (N = 1..9) when that
name is taken. The copy is a new file (``O_EXCL|O_NOFOLLOW``, 0600): an existing backup, or
a link at its name, is never overwritten or followed. When no name is free the write is
refused, so nothing is lost.
"""

from __future__ import annotations

import json
import os
import sys

from accelgui.model import iso_now

__all__ = ["ENV_VAR", "FILE_NAME", "PROVES", "data_dir", "progress_path", "load_done", "load_progress",
           "mark_done", "unmark", "load_verified", "record_verified", "step_progress", "load_goal",
           "set_goal"]

ENV_VAR = "ACCELGUI_DATA_DIR"
FILE_NAME = "progress.json"
VERSION = 2
#: What a step's evidence proves (accelgui.verify.proves): only "work" marks a step done.
PROVES = ("environment", "work")


class _CorruptError(Exception):
    raw: bytes | None = None          # the bytes that could not be read as progress


def data_dir() -> str:
    override = os.environ.get(ENV_VAR)
    if override:
        return os.path.abspath(os.path.expanduser(override))
    if sys.platform.startswith("linux"):
        # platformdirs' XDG rule, inline: importing platformdirs (it pulls in tempfile and
        # shutil) costs the headless probe ~5 ms, and the probe only needs this one path.
        # tests/test_progress.py checks that the two agree.
        base = os.environ.get("XDG_DATA_HOME", "").strip() or os.path.expanduser("~/.local/share")
        return os.path.join(base, "accelgui")
    import platformdirs

    return platformdirs.user_data_dir("accelgui", appauthor=False)


def progress_path() -> str:
    return os.path.join(data_dir(), FILE_NAME)


def _read(path: str) -> dict:
    """The whole progress state ``{"done", "goal", "verified"}``; an empty state when there
    is no file. Raises UnsafeFileError for a file accelgui will not touch (a link, not a
    regular file, over the cap), _CorruptError (with ``.raw``, the bytes) for one it can read
    but not as progress."""
    from accelgui.atomic import UnsafeFileError, read_state_file

    try:
        raw = read_state_file(path)
    except UnsafeFileError:
        raise
    except OSError as exc:
        raise _CorruptError(f"cannot read: {exc.strerror or exc}") from exc
    if raw is None:
        return _empty()
    try:
        return _parse(raw)
    except _CorruptError as exc:
        exc.raw = raw
        raise


def _parse(raw: bytes) -> dict:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _CorruptError(f"not UTF-8 text ({exc.reason})") from exc
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _CorruptError(f"not valid JSON ({getattr(exc, 'msg', 'nested too deep')})") from exc
    if not isinstance(data, dict):
        raise _CorruptError("expected a JSON object")
    done = data.get("done", {})
    if isinstance(done, list):            # tolerate a hand-written list of ids
        done = {s: None for s in done}
    if not isinstance(done, dict) or not all(isinstance(k, str) and k for k in done):
        raise _CorruptError("'done' must map step ids to dates")
    goal = data.get("goal")
    verified = data.get("verified")
    state = {
        "done": {k: (v if isinstance(v, str) else None) for k, v in done.items()},
        "goal": goal if isinstance(goal, str) and goal else None,
        "verified": {k: dict(v) for k, v in verified.items() if isinstance(k, str) and k and isinstance(v, dict)}
        if isinstance(verified, dict) else {},
    }
    _upgrade(state)
    return state


def _upgrade(state: dict) -> None:
    """Evidence written before checks said what they prove (no ``proves``) came from
    environment checks: it means "ready to start", not "done". Such a check also ticked its
    step with the evidence's own date; that tick is taken back (a tick by hand, made before,
    has its own date and stays)."""
    for step, evidence in state["verified"].items():
        if evidence.get("proves") in PROVES:
            continue
        evidence["proves"] = "environment"
        if step in state["done"] and state["done"][step] in (None, evidence.get("date")):
            del state["done"][step]


def _empty() -> dict:
    return {"done": {}, "goal": None, "verified": {}}


def _warn(path: str, why: str) -> None:
    sys.stderr.write(f"accelgui: warning: ignoring learner progress in {path}: {why}; "
                     "it will be replaced the next time a step is marked (a copy kept beside "
                     "it as progress.json.corrupt, or .corrupt.N when that is taken)\n")


def _warn_refused(why: str) -> None:
    sys.stderr.write(f"accelgui: warning: ignoring learner progress: {why}\n")


_last: dict = {}     # the state last read, by (path, inode, mtime, size) of its file


def _state() -> dict:
    """The progress state for reading; a bad file gives an empty state and one warning. The
    file is read again only when it changed (every write replaces it: a new inode), so the
    readers of one command (goal, done steps, evidence) read it, and warn about it, once."""
    from accelgui.atomic import UnsafeFileError

    path = progress_path()
    try:
        st = os.lstat(path)            # never follows a link, never opens (a FIFO would block)
        key = (path, st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode)
    except OSError:
        key = None
    if key is None or _last.get("key") != key:
        try:
            state = _read(path)
        except UnsafeFileError as exc:
            _warn_refused(str(exc))
            state = _empty()
        except _CorruptError as exc:
            _warn(path, str(exc))
            state = _empty()
        _last.clear()
        if key is not None:
            _last.update(key=key, state=state)
    else:
        state = _last["state"]
    return {"done": dict(state["done"]), "goal": state["goal"], "verified": dict(state["verified"])}


def load_progress() -> dict:
    """{step id: date marked done (ISO string) or None}. Never raises for a bad file."""
    return _state()["done"]


def load_done() -> frozenset:
    """The ids of the steps marked done."""
    return frozenset(load_progress())


def load_goal() -> str | None:
    """The goal the learner picked (advisor.GOALS id; ``--goal``, the app's picker), or None."""
    return _state()["goal"]


def load_verified() -> dict:
    """{step id: evidence} of the steps whose check passed or whose work was graded
    (``accelgui --verify``); each evidence says what it ``proves``."""
    return _state()["verified"]


def step_progress(step: str, done=None, verified=None) -> str | None:
    """Where the learner stands on ``step``: ``"passed"`` (their own work passed: an exercise
    or a work check), ``"ticked"`` (marked done by hand), ``"ready"`` (an environment check
    passed: ready to start) or None. ``done``/``verified`` default to the stored ones."""
    done = load_progress() if done is None else done
    verified = load_verified() if verified is None else verified
    evidence = verified.get(step)
    if evidence and evidence.get("proves") == "work":
        return "passed"
    if step in done:
        return "ticked"
    return "ready" if evidence else None


def _write(path: str, state: dict) -> None:
    from accelgui.atomic import STATE_FILE_MAX_BYTES, UnsafeFileError, write_state_file

    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    payload = {"version": VERSION, "done": dict(sorted(state["done"].items()))}
    if state.get("goal"):
        payload["goal"] = state["goal"]
    if state.get("verified"):
        payload["verified"] = dict(sorted(state["verified"].items()))
    data = (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if len(data) > STATE_FILE_MAX_BYTES:
        raise UnsafeFileError(f"cannot write {path}: the progress would be "
                              f"{len(data) / 1048576:.1f} MiB, over the "
                              f"{STATE_FILE_MAX_BYTES / 1048576:.0f} MiB cap of accelgui's state "
                              "files; nothing was changed (--undo some steps to make room)")
    write_state_file(path, data)


_BACKUPS = 10          # progress.json.corrupt, then .corrupt.1 .. .corrupt.9


def _keep_copy(path: str, raw: bytes | None) -> str:
    """Save the unreadable ``raw`` as a new backup beside ``path``; its name. Never follows
    or overwrites anything; UnsafeFileError when no backup can be made (then the caller
    must not replace the file)."""
    from accelgui.atomic import UnsafeFileError, create_new_file

    if raw is None:        # unreadable (no permission...): it cannot be copied, so keep it
        raise UnsafeFileError(f"{path} cannot be read, so no copy of it can be kept; nothing "
                              "was changed. Fix its permissions or move it away")
    names = [path + ".corrupt"] + [f"{path}.corrupt.{i}" for i in range(1, _BACKUPS)]
    last = None
    for name in names:
        try:
            create_new_file(name, raw)
            return name
        except FileExistsError:
            continue
        except OSError as exc:
            last = exc
            break
    why = f"({last.strerror or last})" if last else f"({os.path.basename(names[0])} through " \
        f".corrupt.{_BACKUPS - 1} all exist; remove the ones you do not need)"
    raise UnsafeFileError(f"cannot keep a copy of the unreadable {path} {why}; nothing was "
                          "changed")


def _load_for_update(path: str) -> dict:
    """The state to change; UnsafeFileError (raised, nothing changed) for a file accelgui
    will not touch, so that a refused file is never replaced."""
    try:
        return _read(path)
    except _CorruptError as exc:
        _warn(path, str(exc))
        _keep_copy(path, exc.raw)
        return _empty()


class _Locked:
    """An exclusive advisory lock on ``PATH.lock`` for one read-modify-write (POSIX flock;
    where there is none, the update runs unlocked, as before)."""

    def __init__(self, path: str):
        self.path = path + ".lock"
        self.fd = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:
            return self
        import stat

        from accelgui.atomic import UnsafeFileError, WriteError, check_state_target

        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        check_state_target(self.path)     # a clear error for a link or a FIFO
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), 0o600)
        except OSError as exc:
            raise WriteError(f"cannot lock {self.path}: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):     # swapped in after the check
            os.close(fd)
            check_state_target(self.path)
            raise UnsafeFileError(f"{self.path} is not a regular file; nothing was changed")
        self.fd = fd
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)       # closing releases the lock
            self.fd = None


def _update(change) -> bool:
    """Apply ``change(state) -> bool`` under the lock; write when it says something changed."""
    path = progress_path()
    with _Locked(path):
        state = _load_for_update(path)
        if not change(state):
            return False
        _write(path, state)
        return True


def _now() -> str:
    return iso_now(utc=True)


def _step_id(step) -> str:
    if not isinstance(step, str) or not step.strip():
        raise ValueError("a step id is a non-empty string")
    return step


def mark_done(step: str) -> bool:
    """Mark ``step`` done. True if it was not done before."""
    _step_id(step)

    def change(state):
        if step in state["done"]:
            return False
        state["done"][step] = _now()
        return True
    return _update(change)


def unmark(step: str) -> bool:
    """Mark ``step`` not done (and forget its verification). True if it was done before."""
    def change(state):
        if step not in state["done"] and step not in state["verified"]:
            return False
        state["done"].pop(step, None)
        state["verified"].pop(step, None)
        return True
    return _update(change)


def set_goal(goal: str | None) -> str | None:
    """Remember ``goal`` with the learning progress (None forgets it: ``--goal none``, the
    app's "No particular goal"); the steps are kept. Returns the goal saved before, so that
    the caller can say what it replaced or cleared."""
    before: list = []

    def change(state):
        before.append(state.get("goal"))
        state["goal"] = goal or None
        return True
    _update(change)
    return before[0] if before else None


def record_verified(step: str, evidence: dict) -> None:
    """Store the evidence of ``step``'s check or graded exercise. Evidence that ``proves``
    "work" marks the step done too; environment evidence ("ready to start", the default)
    never does, and never replaces evidence of work."""
    _step_id(step)
    evidence = dict(evidence)
    if evidence.get("proves") not in PROVES:
        evidence["proves"] = "environment"

    def change(state):
        before = state["verified"].get(step) or {}
        if evidence["proves"] == "environment" and before.get("proves") == "work":
            return False
        if evidence["proves"] == "work":
            state["done"].setdefault(step, evidence.get("date") or _now())
        state["verified"][step] = evidence
        return True
    _update(change)
