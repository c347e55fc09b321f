#!/usr/bin/env python3
"""Wall time of `accelgui --probe` against `inxi -Fxz`, side by side in one run.

Target (issue: foundation): median accelgui --probe <= 0.15 x median inxi -Fxz.
Runs are interleaved so both see the same machine load. Prints one JSON object.
Usage: python tests/benchmarks/bench_probe.py [--runs N] [--sysroot DIR] [--baseline DIR]

``--baseline DIR``: a checkout of an earlier version laid out as an importable package
(DIR/accelgui with probes/, knowledge/, resources/ inside it), run interleaved with this
one in the same loop; the result then has ``ratio_after_before`` (median this / median
baseline: the "--probe must not grow" check, target <= 1.05).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def wall(cmd: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=env, cwd="/")
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sysroot", default=None)
    ap.add_argument("--baseline", default=None, help="an earlier version to run side by side")
    args = ap.parse_args()
    base_env = None
    if args.baseline:
        base_env = dict(os.environ, PYTHONPATH=os.path.abspath(args.baseline))
    accel = [sys.executable, "-m", "accelgui", "--probe", "--format", "json"]
    if args.sysroot:
        accel += ["--sysroot", args.sysroot]
    inxi = shutil.which("inxi")
    wall(accel)  # warm the page cache and .pyc files
    if base_env:
        wall(accel, base_env)
    if inxi:
        wall([inxi, "-Fxz"])
    ours, theirs, before = [], [], []
    for _ in range(args.runs):
        ours.append(wall(accel))
        if base_env:
            before.append(wall(accel, base_env))
        if inxi:
            theirs.append(wall([inxi, "-Fxz"]))
    result = {
        "runs": args.runs,
        "accelgui_probe_median_s": round(statistics.median(ours), 4),
        "accelgui_probe_min_s": round(min(ours), 4),
        "inxi_median_s": round(statistics.median(theirs), 4) if theirs else None,
    }
    if before:
        result["baseline_median_s"] = round(statistics.median(before), 4)
        result["ratio_after_before"] = round(statistics.median(ours) / statistics.median(before), 3)
    if theirs:
        result["ratio"] = round(result["accelgui_probe_median_s"] / result["inxi_median_s"], 3)
        result["target"] = "ratio <= 0.15"
        result["pass"] = result["ratio"] <= 0.15
    else:
        result["note"] = "inxi not installed (Debian package inxi): no yardstick"
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
