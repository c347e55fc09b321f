#!/usr/bin/env python3
"""Rendering a report with a huge device name: two revisions side by side in one run (bounded
strings).

The report is tests/fixtures/reports/rich.json with its first device's name made ``--chars``
characters (default 1,000,000) of hostile text (markup, pipes, backticks, ampersands); it is
read as ``--report FILE`` reads it (``accelgui.report.load_report``) and rendered as Markdown,
HTML and PDF, each render in its own child process, by the revision before (``--before``,
default HEAD, exported with ``git archive``) and after (``--after``, default WORKTREE: the
files as they are), interleaved. A render that runs past ``--timeout`` seconds is stopped and
reported as ``"timed_out": true`` with its time as a lower bound (before the change the PDF of
a 1 M-character name takes minutes). ``after_short_name``: the same report with a 12-character
name, rendered after the change, for scale. Target: every face after the change renders the huge
name in about the time of a short one (ratio after/before well under 0.1) and its output is
bounded. Prints one JSON object. Keep it short: about a minute with the defaults.

Usage: python tests/benchmarks/bench_hostile_render.py [--chars N] [--timeout S]
                                                       [--before REV] [--after REV|WORKTREE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
from bench_probe_ab import layout  # noqa: E402  (the same git-archive layout of a revision)

FORMATS = ("markdown", "html", "pdf")
HOSTILE = "<b>x</b> | `t` *e* _u_ [l](j:a) & \"q\" "

WORKER = r"""
import sys, time
from accelgui.report import load_report
from accelgui.export import render
t0 = time.perf_counter()
report = load_report(sys.argv[1])
t1 = time.perf_counter()
out = render(report, sys.argv[2])
t2 = time.perf_counter()
print(t1 - t0, t2 - t1, len(out), len(report.devices[0].name or ""))
"""


def make_report(path: Path, chars: int) -> None:
    data = json.loads((REPO / "tests" / "fixtures" / "reports" / "rich.json").read_text(encoding="utf-8"))
    data["devices"][0]["name"] = (HOSTILE * (chars // len(HOSTILE) + 1))[:chars]
    path.write_text(json.dumps(data), encoding="utf-8")


def run(lib: Path, report: Path, fmt: str, timeout: float, cwd: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(lib), QT_QPA_PLATFORM="offscreen")
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", WORKER, str(report), fmt], capture_output=True,
                              text=True, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return {"timed_out": True, "render_s": round(time.perf_counter() - start, 2)}
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"]}
    load_s, render_s, size, name_len = proc.stdout.split()
    return {"load_s": round(float(load_s), 3), "render_s": round(float(render_s), 3),
            "output_size": int(size), "name_chars_loaded": int(name_len)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=1_000_000)
    ap.add_argument("--timeout", type=float, default=40.0, help="seconds per render")
    ap.add_argument("--before", default="HEAD")
    ap.add_argument("--after", default="WORKTREE")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        libs = {k: layout(rev, Path(tmp) / k) for k, rev in (("before", args.before), ("after", args.after))}
        report, short = Path(tmp) / "huge-name.json", Path(tmp) / "short-name.json"
        make_report(report, args.chars)
        make_report(short, 12)
        results: dict = {}
        for i, fmt in enumerate(FORMATS):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")
            results[fmt] = {side: run(libs[side], report, fmt, args.timeout, tmp) for side in order}
            results[fmt]["after_short_name"] = run(libs["after"], short, fmt, args.timeout, tmp)
    out = {"chars": args.chars, "before": args.before, "after": args.after,
           "timeout_s": args.timeout, "formats": {}}
    for fmt, sides in results.items():
        b, a = sides["before"], sides["after"]
        row = {"before": b, "after": a, "after_short_name": sides["after_short_name"]}
        if "render_s" in b and "render_s" in a and a["render_s"] > 0:
            ratio = round(a["render_s"] / b["render_s"], 5)
            row["ratio_after_before"] = f"<= {ratio}" if b.get("timed_out") else ratio
        if "output_size" in b and "output_size" in a:
            row["output_size_ratio_after_before"] = round(a["output_size"] / b["output_size"], 5)
        s = sides["after_short_name"]
        if "render_s" in s and "render_s" in a and s["render_s"] > 0:
            row["ratio_after_huge_short"] = round(a["render_s"] / s["render_s"], 3)
        out["formats"][fmt] = row
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
