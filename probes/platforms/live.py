"""Running one command of a backend on the live machine (macOS, Windows).

No shell: the program is resolved on PATH (or taken as given when absolute), run with its
standard input closed and its errors discarded, its output read to a cap and the process
killed at the time limit. What comes back is decoded like a recorded file
(:func:`accelgui.probes.platforms.recorded.decode`), so a live probe and a replayed one
parse the same text. Never used on Linux, nor by the tests (they pass a fake runner).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading

from accelgui.probes.platforms.recorded import MAX_BYTES, decode

# Windows: no console window flashing up for each command of the app
_NO_WINDOW = getattr(subprocess, "CREATE_NO_WINDOW", 0)


def resolve(program: str) -> str | None:
    """The program's path: absolute as given (when it exists), else found on PATH."""
    if os.path.isabs(program):
        return program if os.path.isfile(program) else None
    return shutil.which(program)


def run(argv, timeout_s: float = 20.0, limit: int = MAX_BYTES) -> tuple[str | None, str | None]:
    """(decoded output, None), or (None, why): "not-found", "failed", "timeout",
    "unparseable". Output past ``limit`` bytes is dropped ("truncated" with the text)."""
    path = resolve(str(argv[0])) if argv else None
    if path is None:
        return None, "not-found"
    try:
        proc = subprocess.Popen([path, *map(str, argv[1:])], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                shell=False, creationflags=_NO_WINDOW)
    except (OSError, ValueError):
        return None, "failed"
    chunks: list[bytes] = []
    state = {"size": 0, "more": False}

    def pump() -> None:
        assert proc.stdout is not None
        while True:
            data = proc.stdout.read(65536)
            if not data:
                return
            room = limit - state["size"]
            if room <= 0:
                state["more"] = True
                continue                # drain, so the child is not blocked on a full pipe
            chunks.append(data[:room])
            state["size"] += min(len(data), room)
            state["more"] = state["more"] or len(data) > room

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        reader.join(1.0)
        return None, "timeout"
    reader.join(timeout_s)
    text = decode(b"".join(chunks))
    if text is None:
        return None, "unparseable"
    if not text.strip() and proc.returncode:
        return None, "failed"
    return text, "truncated" if state["more"] else None
