"""Learner progress: which learning steps the user marked as done.

One small JSON file shared by the CLI (``accelgui --done STEP`` / ``--undo STEP``) and the app::

    <data dir>/progress.json   {"version": 1, "done": {"gpu.setup-check": "2026-11-29T10:00:00+00:00"},
                                "goal": "serve-llm",            # advisor.GOALS id, optional
                                "verified": {"cpu.numba-jit": {"date": ..., "excerpt": ...}}}

``done`` holds the ticked steps, ``verified`` the evidence of the steps whose machine check
passed (``accelgui --verify``; a verified step is done too), ``goal`` the learner's goal.
A saved goal ranks the next steps of every later run; every face says so ("Goal: ... (saved;
--goal none clears it)", ``advice.goal_source`` "saved" in a report), and ``--goal none`` on
any command that takes ``--goal`` (or the app's "No particular goal") clears it.

The data dir is ``platformdirs.user_data_dir("accelgui")`` (``~/.local/share/accelgui`` on
Linux); ``$ACCELGUI_DATA_DIR`` overrides it. Writes go through ``accelgui.atomic`` (a
symlinked progress file stays a link; its target is replaced atomically), and every
read-modify-write holds an exclusive ``flock`` on ``progress.json.lock`` beside it, so parallel
``--done`` runs never lose each other's steps. A file
that cannot be read as progress gives empty progress and one warning on stderr; it is left as
it is until the next write, which first keeps a copy next to it (``progress.json.corrupt``).
"""

from __future__ import annotations

import json
import os
import sys

from accelgui.record import iso_now

__all__ = ["ENV_VAR", "FILE_NAME", "data_dir", "progress_path", "load_done", "load_progress",
           "mark_done", "unmark", "load_verified", "record_verified", "load_goal", "set_goal"]

ENV_VAR = "ACCELGUI_DATA_DIR"
FILE_NAME = "progress.json"
VERSION = 1


class _CorruptError(Exception):
    pass


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
    """The whole progress state ``{"done", "goal", "verified"}``. Raises _CorruptError with the
    reason; an empty state when there is no file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return _empty()
    except (OSError, UnicodeDecodeError) as exc:
        raise _CorruptError(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
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
    return {
        "done": {k: (v if isinstance(v, str) else None) for k, v in done.items()},
        "goal": goal if isinstance(goal, str) and goal else None,
        "verified": {k: v for k, v in verified.items() if isinstance(k, str) and k and isinstance(v, dict)}
        if isinstance(verified, dict) else {},
    }


def _empty() -> dict:
    return {"done": {}, "goal": None, "verified": {}}


def _warn(path: str, why: str) -> None:
    sys.stderr.write(f"accelgui: warning: ignoring learner progress in {path}: {why}; "
                     "it will be replaced (a copy kept as progress.json.corrupt) the next "
                     "time a step is marked\n")


_last: dict = {}     # the state last read, by (path, inode, mtime, size) of its file


def _state() -> dict:
    """The progress state for reading; a bad file gives an empty state and one warning. The
    file is read again only when it changed (every write replaces it: a new inode), so the
    readers of one command (goal, done steps, evidence) read it, and warn about it, once."""
    path = progress_path()
    try:
        st = os.stat(path)
        key = (path, st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    if key is None or _last.get("key") != key:
        try:
            state = _read(path)
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
    """{step id: evidence} of the steps whose check passed (``accelgui --verify``)."""
    return _state()["verified"]


def _write(path: str, state: dict) -> None:
    from accelgui.atomic import write_atomic

    os.makedirs(os.path.dirname(path), exist_ok=True)
    payload = {"version": VERSION, "done": dict(sorted(state["done"].items()))}
    if state.get("goal"):
        payload["goal"] = state["goal"]
    if state.get("verified"):
        payload["verified"] = dict(sorted(state["verified"].items()))
    write_atomic(path, json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def _load_for_update(path: str) -> dict:
    try:
        return _read(path)
    except _CorruptError as exc:
        _warn(path, str(exc))
        try:
            import shutil

            shutil.copyfile(path, path + ".corrupt")
        except OSError:
            pass
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
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
                          | getattr(os, "O_NOFOLLOW", 0), 0o666)
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
    """Store the evidence that ``step``'s check passed; the step also counts as done."""
    _step_id(step)

    def change(state):
        state["done"].setdefault(step, evidence.get("date") or _now())
        state["verified"][step] = dict(evidence)
        return True
    _update(change)
