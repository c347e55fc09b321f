#!/usr/bin/env python3
"""Probe cost against machine size: synthetic trees of 8, 1,024, 4,096 and
16,384 CPUs and of 1,024 GPUs (PCI functions), probed by this working tree ("after") and by
an earlier revision ("before", exported with `git archive`, laid out as bench_probe_ab.py
does), side by side in one run.

Each measurement runs in its own child process (a fresh interpreter: no cache or page of
one run helps the other): the CPU probe (``probes/cpu.py``) or the PCI probe
(``probes/pci.py``) once timed, once under tracemalloc (peak of the probe's own
allocations), then once with the context's file-system calls counted (os.lstat + os.stat
and os.read per file opened). The child's RSS high-water mark is reported as well. A run of
the old code that passes ``--child-timeout`` is reported as timed out (at 4,096 CPUs the
old CPU probe ran past the runner's 5 s timeout, which cost the report its CPU section).

Targets: time and memory per CPU / per GPU flat across sizes (ratio of the largest to the
smallest per-unit figure near 1, not growing with N), and the 4,096-CPU tree's CPU probe
peak within 150 MiB.

Writing a 16,384-CPU tree takes minutes on a slow disk (every file create is a journal
write): ``--tmp DIR`` puts the trees on another file system (a tmpfs such as /dev/shm).

Usage: python tests/benchmarks/bench_scale.py [--before REV] [--cpus 8,1024,4096,16384]
                                              [--gpus 128,1024] [--before-max-cpus 4096]
                                              [--per-socket 128|0] [--count-max-cpus N]
                                              [--tmp DIR] [--child-timeout S]
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_probe_ab import layout  # noqa: E402
from scale_trees import cpu_tree, gpu_tree  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time, tracemalloc
kind, root, count = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
from accelgui.probes.context import ProbeContext
from accelgui.probes import cpu, pci
probe = cpu.probe if kind == "cpu" else pci.probe

def clear():
    for name in ("_parse_cpumask", "_parse_cpulist_mask"):
        f = getattr(cpu, name, None)
        if hasattr(f, "cache_clear"):
            f.cache_clear()

t = time.perf_counter()
out = probe(ProbeContext(root=root))
wall = time.perf_counter() - t
clear()
tracemalloc.start()
probe(ProbeContext(root=root))
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
res = {"wall_s": wall, "peak_mib": peak / 2**20}
if count:
    clear()
    calls = dict.fromkeys(("lstat", "stat", "read", "open"), 0)
    for name in calls:
        real = getattr(os, name)
        def counted(*a, _r=real, _n=name, **k):
            calls[_n] += 1
            return _r(*a, **k)
        setattr(os, name, counted)
    asked = {"reads": 0, "other": 0}        # what the probe asked of the context
    for name, kind_ in (("_read", "reads"), ("exists", "other"), ("listdir", "other"),
                        ("is_dir", "other"), ("readlink", "other"), ("realpath", "other")):
        real = getattr(ProbeContext, name)
        def wrapped(self, *a, _r=real, _k=kind_, **k):
            asked[_k] += 1
            return _r(self, *a, **k)
        setattr(ProbeContext, name, wrapped)
    probe(ProbeContext(root=root))
    files = max(calls["open"], 1)
    res["calls"] = dict(calls, **asked)
    res["lstat_per_file_opened"] = round((calls["lstat"] + calls["stat"]) / files, 3)
    res["read_per_file_opened"] = round(calls["read"] / files, 3)
    res["lstat_per_lookup"] = round((calls["lstat"] + calls["stat"]) /
                                    max(asked["reads"] + asked["other"], 1), 3)
res["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if kind == "cpu":
    c = out["cpu"]
    res["answer"] = [c["logical_cpus"], c["sockets"], c["cores_per_socket"], c["threads_per_core"]]
else:
    res["answer"] = [len(out.get("pci_functions") or [])]
print(json.dumps(res))
"""


def measure(lib: Path, kind: str, root: Path, count: bool, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(lib), PYTHONDONTWRITEBYTECODE="")
    try:
        run = subprocess.run([sys.executable, "-c", CHILD, kind, str(root), "1" if count else "0"],
                             capture_output=True, text=True, env=env, timeout=timeout, cwd="/")
    except subprocess.TimeoutExpired:
        return {"timed_out": True, "limit_s": timeout}
    if run.returncode != 0:
        return {"error": run.stderr.strip().splitlines()[-1:]}
    return json.loads(run.stdout)


def per_unit(rows: list[dict], key: str, floor: int = 1024) -> dict:
    """Per-unit figures (value / N) and, over the sizes from ``floor`` up (below it the
    interpreter's fixed cost dominates), the per-unit figure of the largest size over that
    of the smallest: linear cost keeps it near 1, quadratic cost makes it grow like N."""
    vals = {r["n"]: r[key] / r["n"] for r in rows if isinstance(r.get(key), (int, float))}
    big = sorted((n, v) for n, v in vals.items() if n >= floor)
    return {"per_unit": {n: round(v, 6) for n, v in vals.items()},
            "largest_over_smallest": round(big[-1][1] / big[0][1], 2) if len(big) > 1 else None}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="HEAD")
    ap.add_argument("--cpus", default="8,1024,4096,16384")
    ap.add_argument("--gpus", default="128,1024")
    ap.add_argument("--before-max-cpus", type=int, default=4096)
    ap.add_argument("--count-max-cpus", type=int, default=4096)
    ap.add_argument("--per-socket", type=int, default=128,
                    help="CPUs per socket (and NUMA node); 0: one socket of all CPUs, the "
                         "old code's worst case (a set of every CPU, per CPU)")
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--child-timeout", type=float, default=60.0)
    args = ap.parse_args()
    sizes = [int(x) for x in args.cpus.split(",") if x]
    result: dict = {"cpu": {"per_socket": args.per_socket or "all", "after": [], "before": []},
                    "gpu": {}}
    with tempfile.TemporaryDirectory() as libdir, \
            tempfile.TemporaryDirectory(dir=args.tmp, prefix="bench-scale-") as treedir:
        libs = {"before": layout(args.before, Path(libdir) / "before"),
                "after": layout("WORKTREE", Path(libdir) / "after")}
        for n in sizes:
            root = Path(treedir) / f"cpus{n}"
            t = time.perf_counter()
            cpu_tree(root, n, with_ids=False,     # cache instances from the shared maps
                     per_socket=args.per_socket or n)
            made = time.perf_counter() - t
            for side in ("before", "after"):
                if side == "before" and n > args.before_max_cpus:
                    continue
                row = measure(libs[side], "cpu", root, n <= args.count_max_cpus,
                              args.child_timeout)
                row.update(n=n, tree_write_s=round(made, 1))
                result["cpu"][side].append(row)
                print(f"cpus={n} {side}: {row}", file=sys.stderr)
            shutil.rmtree(root)
        for n in [int(x) for x in args.gpus.split(",") if x]:
            root = Path(treedir) / f"gpus{n}"
            gpu_tree(root, n)
            for side in ("before", "after"):
                row = measure(libs[side], "gpu", root, True, args.child_timeout)
                row.update(n=n)
                result["gpu"].setdefault(side, []).append(row)
                print(f"gpus={n} {side}: {row}", file=sys.stderr)
            shutil.rmtree(root)
    for side in ("before", "after"):
        rows = result["cpu"][side]
        result["cpu"][f"{side}_time"] = per_unit(rows, "wall_s")
        result["cpu"][f"{side}_memory"] = per_unit(rows, "peak_mib")
    for side in ("before", "after"):
        rows = result["gpu"].get(side, [])
        result["gpu"][f"{side}_time"] = per_unit(rows, "wall_s", floor=128)
        result["gpu"][f"{side}_memory"] = per_unit(rows, "peak_mib", floor=128)
    after = {r["n"]: r for r in result["cpu"]["after"]}
    before = {r["n"]: r for r in result["cpu"]["before"]}
    result["cpu"]["after_over_before"] = {
        n: {k: round(after[n][k] / before[n][k], 4) for k in ("wall_s", "peak_mib")
            if k in before[n] and k in after[n] and before[n][k]}
        for n in before if n in after}
    a4096 = after.get(4096, {})
    result["targets"] = {"cpu_4096_peak_mib_le_150": a4096.get("peak_mib", 1e9) <= 150 if a4096 else None}
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
