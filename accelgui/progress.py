"""Learner progress: which learning steps the user marked as done.

One small JSON file shared by the CLI (``accelgui --done STEP`` / ``--undo STEP``) and the app::

    <data dir>/progress.json   {"version": 1, "done": {"gpu.setup-check": "2026-11-29T10:00:00+00:00"}}

The data dir is ``platformdirs.user_data_dir("accelgui")`` (``~/.local/share/accelgui`` on
Linux); ``$ACCELGUI_DATA_DIR`` overrides it. Writes are atomic (``accelgui.atomic``). A file
that cannot be read as progress gives empty progress and one warning on stderr; it is left as
it is until the next write, which first keeps a copy next to it (``progress.json.corrupt``).
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone

__all__ = ["ENV_VAR", "FILE_NAME", "data_dir", "progress_path", "load_done", "load_progress",
           "mark_done", "unmark", "load_verified", "record_verified"]

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
    """{step id: ISO time or None}. Raises _CorruptError with the reason; {} when there is no file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise _CorruptError(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _CorruptError(f"not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise _CorruptError("expected a JSON object")
    done = data.get("done", {})
    if isinstance(done, list):            # tolerate a hand-written list of ids
        done = {s: None for s in done}
    if not isinstance(done, dict) or not all(isinstance(k, str) and k for k in done):
        raise _CorruptError("'done' must map step ids to dates")
    return {k: (v if isinstance(v, str) else None) for k, v in done.items()}


def _warn(path: str, why: str) -> None:
    sys.stderr.write(f"accelgui: warning: ignoring learner progress in {path}: {why}; "
                     "it will be replaced (a copy kept as progress.json.corrupt) the next "
                     "time a step is marked\n")


def load_progress() -> dict:
    """{step id: date marked done (ISO string) or None}. Never raises for a bad file."""
    path = progress_path()
    try:
        return _read(path)
    except _CorruptError as exc:
        _warn(path, str(exc))
        return {}


def load_done() -> frozenset:
    """The ids of the steps marked done."""
    return frozenset(load_progress())


def _write(path: str, done: dict, verified: dict | None = None) -> None:
    from accelgui.atomic import write_atomic

    os.makedirs(os.path.dirname(path), exist_ok=True)
    payload = {"version": VERSION, "done": dict(sorted(done.items()))}
    verified = _read_verified(path) if verified is None else verified
    if verified:    # accelgui --verify evidence: {step: {"date", "status", "excerpt", ...}}
        payload["verified"] = dict(sorted(verified.items()))
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
        return {}


def mark_done(step: str) -> bool:
    """Mark ``step`` done. True if it was not done before."""
    if not isinstance(step, str) or not step.strip():
        raise ValueError("a step id is a non-empty string")
    path = progress_path()
    done = _load_for_update(path)
    if step in done:
        return False
    done[step] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    _write(path, done)
    return True


def unmark(step: str) -> bool:
    """Mark ``step`` not done (and forget its verification). True if it was done before."""
    path = progress_path()
    done = _load_for_update(path)
    verified = _read_verified(path)
    if step not in done and step not in verified:
        return False
    done.pop(step, None)
    verified.pop(step, None)
    _write(path, done, verified)
    return True


def _read_verified(path: str) -> dict:
    """{step id: evidence dict} from the progress file; {} when absent or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    verified = data.get("verified") if isinstance(data, dict) else None
    if not isinstance(verified, dict):
        return {}
    return {k: v for k, v in verified.items() if isinstance(k, str) and k and isinstance(v, dict)}


def load_verified() -> dict:
    """{step id: evidence} of the steps whose check passed (``accelgui --verify``)."""
    return _read_verified(progress_path())


def record_verified(step: str, evidence: dict) -> None:
    """Store the evidence that ``step``'s check passed; the step also counts as done."""
    if not isinstance(step, str) or not step.strip():
        raise ValueError("a step id is a non-empty string")
    path = progress_path()
    done = _load_for_update(path)
    verified = _read_verified(path)
    done.setdefault(step, evidence.get("date") or datetime.now(timezone.utc).isoformat(timespec="seconds"))
    verified[step] = dict(evidence)
    _write(path, done, verified)
