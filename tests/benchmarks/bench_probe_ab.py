#!/usr/bin/env python3
"""`accelgui --probe` wall time of two revisions side by side in one run (before/after a change).

Each revision is exported with `git archive` and laid out the way the installed package is
(accelgui/, accelgui/probes <- probes/, accelgui/knowledge <- knowledge/, accelgui/resources
<- resources/), so both run from plain folders with this interpreter's dependencies; runs are
interleaved so both see the same machine load. Target: after/before median <= 1.05.
Prints one JSON object.
Usage: python tests/benchmarks/bench_probe_ab.py [--before REV] [--after REV|WORKTREE]
                                                 [--runs N] [--sysroot DIR]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAPPED = {"probes": "probes", "knowledge": "knowledge", "resources": "resources"}


def layout(rev: str, dest: Path) -> Path:
    """A folder holding the package of revision ``rev`` ("WORKTREE": the files as they are)."""
    src = dest / "src"
    if rev == "WORKTREE":
        shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".venv", ".git", "tests", "__pycache__"))
    else:
        src.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pkg = dest / "lib" / "accelgui"
    shutil.copytree(src / "accelgui", pkg)
    for name, folder in MAPPED.items():
        if (src / folder).is_dir():
            shutil.copytree(src / folder, pkg / name, dirs_exist_ok=True)
    return dest / "lib"


def wall(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="main")
    ap.add_argument("--after", default="WORKTREE")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--sysroot", default=None)
    args = ap.parse_args()
    cmd = [sys.executable, "-m", "accelgui", "--probe", "--format", "json"]
    if args.sysroot:
        cmd += ["--sysroot", args.sysroot]
    with tempfile.TemporaryDirectory() as tmp:
        libs = {k: layout(rev, Path(tmp) / k) for k, rev in (("before", args.before), ("after", args.after))}
        envs = {k: dict(os.environ, PYTHONPATH=str(v), PYTHONDONTWRITEBYTECODE="") for k, v in libs.items()}
        times: dict[str, list[float]] = {"before": [], "after": []}
        for k in times:
            wall(cmd, envs[k])          # compile .pyc files, warm the page cache
        for i in range(args.runs):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")
            for k in order:
                times[k].append(wall(cmd, envs[k]))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(json.dumps({
        "runs": args.runs, "before": args.before, "after": args.after, "sysroot": args.sysroot,
        "before_median_s": round(med["before"], 4), "after_median_s": round(med["after"], 4),
        "before_min_s": round(min(times["before"]), 4), "after_min_s": round(min(times["after"]), 4),
        "ratio_after_before": round(med["after"] / med["before"], 3),
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
