#!/usr/bin/env python3
"""Wall time of `accelgui --probe` against `inxi -Fxz`, side by side in one run.

Target (issue: foundation): median accelgui --probe <= 0.15 x median inxi -Fxz.
Runs are interleaved so both see the same machine load. Prints one JSON object.
Usage: python tests/benchmarks/bench_probe.py [--runs N] [--sysroot DIR]
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sysroot", default=None)
    args = ap.parse_args()
    accel = [sys.executable, "-m", "accelgui", "--probe", "--format", "json"]
    if args.sysroot:
        accel += ["--sysroot", args.sysroot]
    inxi = shutil.which("inxi")
    wall(accel)  # warm the page cache and .pyc files
    if inxi:
        wall([inxi, "-Fxz"])
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(wall(accel))
        if inxi:
            theirs.append(wall([inxi, "-Fxz"]))
    result = {
        "runs": args.runs,
        "accelgui_probe_median_s": round(statistics.median(ours), 4),
        "accelgui_probe_min_s": round(min(ours), 4),
        "inxi_median_s": round(statistics.median(theirs), 4) if theirs else None,
    }
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
