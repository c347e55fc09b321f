"""Cost of loading the learner-progress file: before (plain ``open`` + ``json.loads`` of
whatever is there, as accelgui once did) and after (``accelgui.atomic.read_state_file``:
``O_NOFOLLOW|O_NONBLOCK``, ``fstat``, a 2 MiB cap), side by side in one run.

Each case runs in its own child process, so that its peak RSS is its own (``VmHWM`` of
``/proc/self/status`` after the load less ``VmRSS`` before it, the imports excluded;
``ru_maxrss`` would not do: Linux carries it over ``exec`` from the forking parent). Files:

* ``big``: a 38 MB progress file (~700,000 steps marked done), the size of the issue's report;
* ``cap``: the same shape cut to the cap (2 MiB), the largest file accelgui still reads;
* ``worst``: 2 MiB (the cap) of the shape that costs ``json.loads`` the most memory per byte (tiny
  nested lists inside a step's evidence), still under the cap;
* ``bigworst``: 38 MB of that shape (the issue's "8 s and 1.1 GB" kind of file).

    .venv/bin/python tests/benchmarks/bench_progress_load.py          # about 20 s, 1 GB at its peak

The "before" reader is kept here verbatim (what ``progress._read`` did), so that the two can be
compared after the old code is gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time


def _before_read(path: str) -> dict:
    """accelgui.progress._read as it once was (less its error wording)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    done = data.get("done", {})
    if isinstance(done, list):
        done = {s: None for s in done}
    goal = data.get("goal")
    verified = data.get("verified")
    return {
        "done": {k: (v if isinstance(v, str) else None) for k, v in done.items()},
        "goal": goal if isinstance(goal, str) and goal else None,
        "verified": {k: v for k, v in verified.items() if isinstance(k, str) and k and isinstance(v, dict)}
        if isinstance(verified, dict) else {},
    }


def _after_read(path: str) -> dict:
    from accelgui import progress
    from accelgui.atomic import UnsafeFileError

    try:
        return progress._read(path)
    except UnsafeFileError as exc:          # what every command then does: warn, go on
        return {"refused": str(exc)[:60]}


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _child(which: str, path: str) -> None:
    import accelgui.atomic  # imports outside the measurement
    import accelgui.progress  # noqa: F401

    read = _before_read if which == "before" else _after_read
    rss0 = _status_kib("VmRSS")
    t0 = time.perf_counter()
    state = read(path)
    seconds = time.perf_counter() - t0
    rss1 = _status_kib("VmHWM")
    print(json.dumps({"s": seconds, "mib": (rss1 - rss0) / 1024,
                      "steps": len(state.get("done", ())), "refused": "refused" in state}))


def _progress_file(path: str, size: int) -> None:
    entries, total, i = [], 40, 0
    while True:
        entry = f'    "route-{i // 40}.step-{i % 40}": "2026-11-29T10:00:00+00:00"'
        if total + len(entry) + 2 > size:
            break
        entries.append(entry)
        total += len(entry) + 2
        i += 1
    with open(path, "w") as f:
        f.write('{\n  "version": 1,\n  "done": {\n' + ",\n".join(entries) + "\n  }\n}\n")


def _worst_file(path: str, size: int) -> None:
    head = '{"version": 1, "done": {"a.b": null}, "verified": {"a.b": {"excerpt": ['
    tail = "]}}}\n"
    n = (size - len(head) - len(tail) + 1) // 3
    with open(path, "w") as f:
        f.write(head + ",".join(["[]"] * n) + tail)


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
        return 0
    from accelgui.atomic import STATE_FILE_MAX_BYTES

    with tempfile.TemporaryDirectory(prefix="bench-progress-") as tmp:
        files = {"big": os.path.join(tmp, "big.json"), "cap": os.path.join(tmp, "cap.json"),
                 "worst": os.path.join(tmp, "worst.json"),
                 "bigworst": os.path.join(tmp, "bigworst.json")}
        _progress_file(files["big"], 38_000_000)
        _progress_file(files["cap"], STATE_FILE_MAX_BYTES)
        _worst_file(files["worst"], STATE_FILE_MAX_BYTES)
        _worst_file(files["bigworst"], 38_000_000)
        print(f"cap: {STATE_FILE_MAX_BYTES} bytes; python {sys.version.split()[0]}")
        print(f"{'file':8} {'bytes':>11} | {'before s':>9} {'MiB':>7} | {'after s':>9} {'MiB':>7} | "
              f"{'time ratio':>10} {'mem ratio':>9} | after")
        for name, path in files.items():
            got = {}
            repeats = 1 if name.startswith("big") else 3     # the best of 3: a shared machine
            for which in ("before", "after"):
                runs = []
                for _ in range(repeats):
                    out = subprocess.run([sys.executable, __file__, "--child", which, path],
                                         capture_output=True, text=True, timeout=120, check=True)
                    runs.append(json.loads(out.stdout))
                got[which] = min(runs, key=lambda r: r["s"])
            b, a = got["before"], got["after"]
            # a refused file costs less than the resolution (1e-4 s, 0.1 MiB): ratios are ">"
            tr = b["s"] / max(a["s"], 1e-4)
            mr = b["mib"] / max(a["mib"], 0.1)
            lt = ">" if a["s"] < 1e-4 else " "
            lm = ">" if a["mib"] < 0.1 else " "
            print(f"{name:8} {os.path.getsize(path):>11} | {b['s']:>9.4f} {b['mib']:>7.1f} | "
                  f"{a['s']:>9.4f} {a['mib']:>7.1f} | {lt}{tr:>8.2f}x {lm}{mr:>7.2f}x | "
                  f"{'refused (left whole)' if a['refused'] else str(a['steps']) + ' steps read'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
