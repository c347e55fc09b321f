#!/usr/bin/env python3
"""Numba micro-kernels against the plain-C reference (tests/benchmarks/bench-ref/run), in one run.

Targets:
  * Numba STREAM triad >= 0.95 x C triad, 1 thread and all threads
  * Numba FP64 FMA     >= 0.95 x C FMA,   1 thread and all threads
  * measured FP64 FMA  >= 0.90 x the theoretical peak in the report
  * `accelgui --probe --bench quick` <= 10 s with a cold JIT cache, <= 5 s warm

What it runs, interleaved so both sides see the same machine load:
  1. `accelgui --probe --bench quick` with a fresh NUMBA_CACHE_DIR (cold), then again (warm);
  2. the C reference with the same array length as the quick bench's STREAM arrays;
  3. the same kernels directly (this script, --direct): triad with the C program's array
     length and pass count, FMA with the C program's accumulator count and work per thread;
  4. an FMA accumulator sweep (how many independent accumulators reach the peak);
  5. the assembly of the FMA and triad kernels (zmm/ymm FMAs?).
Prints a JSON summary (ratios, pass/fail) on stdout, progress on stderr.

Usage: python tests/benchmarks/bench_kernels.py [--rounds N] [--skip-cli] [--ref PATH]
       python tests/benchmarks/bench_kernels.py --gpu-only   (NVIDIA machine: GPU figures)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# the plain-C reference, vendored here so that `make bench` works from a fresh clone
DEFAULT_REF = HERE / "bench-ref" / "run"


def log(msg: str) -> None:
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


# ------------------------------------------------------------------ direct (child) mode

def direct(n: int, what: str) -> dict:
    """The kernels measured like the C reference; runs in its own process."""
    from accelgui.probes.kernels.__main__ import run_threads, setup_environment

    setup_environment()
    import numba
    import numpy as np

    from accelgui.probes.kernels import cpu_kernels as ck

    threads = len(os.sched_getaffinity(0))
    numba.set_num_threads(threads)
    out: dict = {"threads": threads}
    if what in ("all", "stream"):
        a, b, c = np.empty(n), np.empty(n), np.empty(n)
        for label, nt in (("stream_1t", 1), ("stream_mt", threads)):
            ck.stream_mt(ck.INIT, a, b, c, 3.0, threads)  # parallel first touch, as triad.c
            best = {op: 1e30 for op in ck.STREAM_OPS}
            for k in range(10):  # NTIMES = 10, first pass dropped
                for op in ck.STREAM_OPS:
                    t = time.perf_counter()
                    if nt == 1:
                        ck.stream_op(op, a, b, c, 3.0)
                    else:
                        ck.stream_mt(op, a, b, c, 3.0, nt)
                    t = time.perf_counter() - t
                    if k and t < best[op]:
                        best[op] = t
            out[label] = {f"{ck.STREAM_NAMES[op]}_gbps": round(ck.STREAM_BYTES[op] * n / best[op] / 1e9, 2)
                          for op in ck.STREAM_OPS}
    if what in ("all", "fma"):
        feats = os.environ.get("NUMBA_CPU_FEATURES") or ""
        import llvmlite.binding as ll

        feats = feats or ll.get_host_cpu_features().flatten()
        lanes = 8 if "+avx512f" in feats else 4 if "+avx" in feats else 2
        nacc = 16  # as fma.c (NACC), W lanes as fma.c's W
        k = ck.make_fma_kernel(nacc, lanes, np.float64)
        m, cc = 0.9999999, 1e-7
        k(1, 1.0, m, cc)
        iters = 50_000_000  # fma.c ITERS: the same work per thread
        flops = 2.0 * nacc * lanes * iters
        best1 = min(_timed(k, iters, 1.0, m, cc) for _ in range(5))
        bestm = min(run_threads(threads, k, lambda i: (iters, 1.0 + i, m, cc))[0] for _ in range(5))
        out["fma_1t"] = {"fp64_gflops": round(flops / best1 / 1e9, 2), "vector_doubles": lanes,
                         "accumulators": nacc}
        out["fma_mt"] = {"fp64_gflops": round(flops * threads / bestm / 1e9, 2)}
    if what == "sweep":
        import llvmlite.binding as ll

        feats = os.environ.get("NUMBA_CPU_FEATURES") or ll.get_host_cpu_features().flatten()
        lanes = 8 if "+avx512f" in feats else 4 if "+avx" in feats else 2
        rows = []
        for nacc in (2, 4, 6, 8, 10, 12, 16, 20, 24, 32):
            k = ck.make_fma_kernel(nacc, lanes, np.float64)
            k(1, 1.0, 0.9999999, 1e-7)
            iters = int(2e9 / (nacc * lanes))
            best = min(_timed(k, iters, 1.0, 0.9999999, 1e-7) for _ in range(3))
            rows.append({"accumulators": nacc, "vector_doubles": lanes,
                         "fp64_gflops_1t": round(2.0 * nacc * lanes * iters / best / 1e9, 2)})
        out["accumulator_sweep"] = rows
    if what == "asm":
        out["asm"] = asm_report()
    return out


def _timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def asm_report() -> dict:
    """Which vector registers the FMA and triad loops use (needs a fresh compile)."""
    import numpy as np

    from accelgui.probes.kernels import cpu_kernels as ck

    rep = {}
    k = ck.make_fma_kernel(12, 8, np.float64)
    k(1, 1.0, 0.5, 0.25)
    asm = k.inspect_asm(k.signatures[0])
    rep["fma_fp64"] = _count(asm, r"vfmadd\w+")
    k32 = ck.make_fma_kernel(12, 16, np.float32)
    k32(1, 1.0, np.float32(0.5), np.float32(0.25))
    rep["fma_fp32"] = _count(k32.inspect_asm(k32.signatures[0]), r"vfmadd\w+")
    a = np.ones(64)
    ck.stream_op(ck.TRIAD, a, a.copy(), a.copy(), 3.0)
    asm = ck.stream_op.inspect_asm(ck.stream_op.signatures[0])
    rep["stream"] = {"vfmadd": _count(asm, r"vfmadd\w+"), "vmovupd": _count(asm, r"vmovupd"),
                     "vmovntpd": _count(asm, r"vmovntpd")}
    ck.chase(np.zeros(8, np.uint64), 1)
    rep["chase_loop_is_plain_loads"] = bool(re.search(
        r"movq\s+\(%\w+,%(\w+),8\),\s*%\1", ck.chase.inspect_asm(ck.chase.signatures[0])))
    return rep


def _count(asm: str, mnemonic: str) -> dict:
    out = {}
    for reg in ("zmm", "ymm", "xmm"):
        out[reg] = len(re.findall(mnemonic + r"[^\n]*%" + reg, asm))
    return out


# ------------------------------------------------------------------ orchestration

def run_json(cmd: list[str], env: dict | None = None, timeout: float = 600) -> tuple[dict | None, float, str]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    wall = time.perf_counter() - t
    try:
        return json.loads(proc.stdout), wall, proc.stderr
    except ValueError:
        return None, wall, proc.stderr + proc.stdout[-2000:]


def ratio(a, b):
    return round(a / b, 3) if a and b else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved C/Numba rounds (best kept)")
    ap.add_argument("--ref", default=os.environ.get("ACCELGUI_BENCH_REF", str(DEFAULT_REF)))
    ap.add_argument("--skip-cli", action="store_true", help="skip the cold/warm accelgui runs")
    ap.add_argument("--direct", choices=("all", "stream", "fma", "sweep", "asm"), help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=20_000_000, help=argparse.SUPPRESS)
    ap.add_argument("--gpu-only", action="store_true", help="GPU figures only (numba-cuda)")
    args = ap.parse_args()

    if args.direct:
        print(json.dumps(direct(args.n, args.direct)))
        return 0
    if args.gpu_only:
        return gpu_only()

    py = sys.executable
    summary: dict = {"machine": os.uname().machine, "nproc": os.cpu_count(),
                     "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")}
    cache = tempfile.mkdtemp(prefix="accelgui-numba-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)

    quick = None
    n = args.n
    if not args.skip_cli:
        cmd = [py, "-m", "accelgui", "--probe", "--bench", "quick", "--format", "json"]
        log("accelgui --probe --bench quick (cold JIT cache) ...")
        rep, cold, err = run_json(cmd, env)
        if rep is None:
            log(err[-3000:])
            return 1
        walls = []
        for i in range(2):
            log(f"accelgui --probe --bench quick (warm) {i + 1}/2 ...")
            quick, w, err = run_json(cmd, env)
            walls.append(w)
        quick = quick["benchmarks"]
        summary["quick_bench"] = {
            "cold_wall_s": round(cold, 2), "warm_wall_s": round(min(walls), 2),
            "warm_walls_s": [round(w, 2) for w in walls],
            "cold_jit_compile_s": rep["benchmarks"]["jit"]["compile_s"],
            "warm_jit_s": quick["jit"]["compile_s"],
            "target_cold_s": 10.0, "target_warm_s": 5.0,
            "ok": cold <= 10.0 and min(walls) <= 5.0}
        n = quick["cpu"]["stream"]["array_bytes"] // 8

    ref = Path(args.ref)
    c_runs, d_runs = [], []
    for r in range(args.rounds):
        if ref.exists():
            log(f"C reference round {r + 1}/{args.rounds} (N={n}) ...")
            c, _, err = run_json([str(ref), str(n)])
            if c is None:
                log("C reference failed: " + err[-1500:])
            else:
                c_runs.append(c)
        log(f"Numba direct round {r + 1}/{args.rounds} ...")
        d, _, err = run_json([py, __file__, "--direct", "all", "--n", str(n)], env)
        if d is None:
            log("direct run failed: " + err[-3000:])
            return 1
        d_runs.append(d)

    def best(runs, path):
        vals = []
        for run in runs:
            x = run
            for p in path:
                x = (x or {}).get(p)
            if x:
                vals.append(x)
        return max(vals) if vals else None

    ratios = {}
    if c_runs:
        c_tri1, c_trim = best(c_runs, ["stream_1t", "triad_gbps"]), best(c_runs, ["stream_mt", "triad_gbps"])
        c_fma1, c_fmam = best(c_runs, ["fma_1t", "fp64_gflops"]), best(c_runs, ["fma_mt", "fp64_gflops"])
        d_tri1, d_trim = best(d_runs, ["stream_1t", "triad_gbps"]), best(d_runs, ["stream_mt", "triad_gbps"])
        d_fma1, d_fmam = best(d_runs, ["fma_1t", "fp64_gflops"]), best(d_runs, ["fma_mt", "fp64_gflops"])
        summary["c_reference"] = {"triad_gbps_1t": c_tri1, "triad_gbps_mt": c_trim,
                                  "fp64_gflops_1t": c_fma1, "fp64_gflops_mt": c_fmam,
                                  "n_doubles": n, "runs": c_runs}
        summary["numba_direct"] = {"triad_gbps_1t": d_tri1, "triad_gbps_mt": d_trim,
                                   "fp64_gflops_1t": d_fma1, "fp64_gflops_mt": d_fmam,
                                   "runs": d_runs}
        ratios["direct_vs_c"] = {"triad_1t": ratio(d_tri1, c_tri1), "triad_mt": ratio(d_trim, c_trim),
                                 "fma_1t": ratio(d_fma1, c_fma1), "fma_mt": ratio(d_fmam, c_fmam)}
        if quick:
            st, fma = quick["cpu"]["stream"], quick["cpu"]["fma"]
            ratios["quick_bench_vs_c"] = {
                "triad_1t": ratio(st["single_thread"]["triad_gbps"], c_tri1),
                "triad_mt": ratio(st["triad_gbps"], c_trim),
                "fma_1t": ratio(fma["fp64_gflops_1t"], c_fma1),
                "fma_mt": ratio(fma["fp64_gflops_mt"], c_fmam)}
    else:
        summary["c_reference"] = f"not run: {ref} missing"
    if quick:
        eff = quick["cpu"]["efficiency"]
        theo = quick["cpu"]["theoretical"]
        ratios["fma_vs_theoretical"] = {"fp64_1t": eff.get("fp64_1t"), "fp64_mt": eff.get("fp64_mt"),
                                        "theoretical_fp64_gflops_1t": theo.get("fp64_gflops_1t"),
                                        "theoretical_fp64_gflops_mt": theo.get("fp64_gflops_mt"),
                                        "clock_mhz": theo.get("clock_mhz"),
                                        "clock_source": theo.get("clock_source")}
        summary["quick_bench_figures"] = {
            "stream": {k: v for k, v in quick["cpu"]["stream"].items() if k.endswith("gbps") or k == "single_thread"},
            "fma": {k: v for k, v in quick["cpu"]["fma"].items() if "gflops" in k},
            "latency_ns": quick["cpu"]["latency_ns"], "gemm": quick["cpu"]["gemm"],
            "cache_sweep": quick["cpu"]["cache_sweep"], "caches": quick["cpu"]["caches"],
            "roofline": quick["roofline"], "environment": {
                k: quick["environment"].get(k) for k in ("threads", "threading_layer", "llvm_cpu_name",
                                                         "numba_cpu_features_override", "vector_bits")}}
    log("FMA accumulator sweep ...")
    sweep, _, err = run_json([py, __file__, "--direct", "sweep"], env)
    summary["accumulator_sweep"] = (sweep or {}).get("accumulator_sweep") or err[-1500:]
    asm_env = dict(env, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="accelgui-asm-"))
    asm, _, err = run_json([py, __file__, "--direct", "asm"], asm_env)
    summary["asm"] = (asm or {}).get("asm") or err[-1500:]
    summary["ratios"] = ratios
    checks = {}
    for key, val in ratios.get("direct_vs_c", {}).items():
        checks[f"direct {key} >= 0.95 x C"] = val is not None and val >= 0.95
    for key, val in ratios.get("quick_bench_vs_c", {}).items():
        checks[f"quick bench {key} >= 0.95 x C"] = val is not None and val >= 0.95
    for key in ("fp64_1t", "fp64_mt"):
        val = ratios.get("fma_vs_theoretical", {}).get(key)
        checks[f"FMA {key} >= 0.90 x theoretical"] = val is not None and val >= 0.90
    if "quick_bench" in summary:
        checks["quick bench cold <= 10 s"] = summary["quick_bench"]["cold_wall_s"] <= 10.0
        checks["quick bench warm <= 5 s"] = summary["quick_bench"]["warm_wall_s"] <= 5.0
    summary["checks"] = checks
    print(json.dumps(summary, indent=1))
    log("\n".join(f"{'PASS' if ok else 'FAIL'}  {name}" for name, ok in checks.items()))
    return 0


def gpu_only() -> int:
    """GPU figures with the report's names, plus triad against the NVML memory peak."""
    from accelgui.probes.kernels import gpu_skip_reason

    reason = gpu_skip_reason()
    if reason:
        print(json.dumps({"gpu": {"skipped": reason}}))
        return 0
    from accelgui.probes.kernels.__main__ import setup_environment

    setup_environment()
    from accelgui.probes.kernels import gpu_kernels

    t = time.perf_counter()
    out = gpu_kernels.run(scale=1.0, on_progress=lambda f, m: log(f"{f:.2f} {m}"))
    checks = {}
    for idx, dev in out.items():
        if isinstance(dev, dict) and dev.get("triad_efficiency") is not None:
            checks[f"gpu {idx} triad >= 0.85 x NVML peak"] = dev["triad_efficiency"] >= 0.85
    print(json.dumps({"gpu": out, "wall_s": round(time.perf_counter() - t, 2), "checks": checks}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
