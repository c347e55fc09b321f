"""The benchmark child: ``python -m accelgui.probes.kernels --mode quick|full|test``.

Prints JSON lines on stdout, one object per line, flushed at once:

    {"type": "progress", "stage": "stream", "fraction": 0.25, "message": "...", "partial": {...}}
    {"type": "result", "benchmarks": {...}}          (the report's "benchmarks" object)
    {"type": "error", "message": "..."}              (then exit code 1)

SIGTERM keeps its default action (the process ends at once, even inside a Numba call,
which never runs Python signal handlers). With ``--watch-stdin`` the child also ends when
its parent goes away (stdin reaches end of file).

Test hooks: ``ACCELGUI_BENCH_CRASH=1|abort`` aborts after the first progress line,
``=exception`` raises, ``=hang`` sleeps until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import sys
import threading
import time

from accelgui import BENCHMARK_CONTRACT

_T0 = time.perf_counter()

GIB = 1 << 30
MIB = 1 << 20

# Per-mode knobs. Times are per timed call; every stage also has a count of repetitions.
MODES = {
    "test": dict(stream_array_bytes=1 * MIB, ntimes=3, clock_s=0.002, clock_reps=2,
                 fma_s=0.002, fma_reps=2, nacc_sweep=None, sweep_per_octave=1,
                 sweep_max_bytes=1 * MIB, sweep_s=0.0005, sweep_reps=1, lat_s=0.0005,
                 lat_reps=1, lat_dram=False, gemm_n=64, gemm_reps=1, gpu_scale=0.01),
    "quick": dict(stream_array_bytes=None, ntimes=7, clock_s=0.002, clock_reps=10,
                  fma_s=0.003, fma_reps=12, nacc_sweep=None, sweep_per_octave=1,
                  sweep_max_bytes=None, sweep_s=0.006, sweep_reps=2, lat_s=0.012,
                  lat_reps=2, lat_dram=True, gemm_n=1024, gemm_reps=3, gpu_scale=0.25),
    "full": dict(stream_array_bytes=None, ntimes=10, clock_s=0.005, clock_reps=20,
                 fma_s=0.05, fma_reps=10, nacc_sweep=(4, 6, 8, 10, 12, 16, 20, 24),
                 sweep_per_octave=3, sweep_max_bytes=None, sweep_s=0.02, sweep_reps=3,
                 lat_s=0.05, lat_reps=3, lat_dram=True, gemm_n=2048, gemm_reps=5,
                 gpu_scale=1.0),
}

# Timed calls are kept short and repeated (best of N): on a shared machine a short call
# has a fair chance to run between two preemptions, a long one has none.

# Stage weights for the progress fraction (they add up to 1).
STAGES = [("setup", 0.06), ("clock", 0.04), ("fma", 0.20), ("stream", 0.28),
          ("cache_sweep", 0.14), ("latency", 0.12), ("gemm", 0.08), ("gpu", 0.08)]


class Protocol:
    """Writes the JSON lines; keeps the progress fraction monotonic."""

    def __init__(self, stream):
        self.stream = stream
        self.fraction = 0.0
        self.lock = threading.Lock()
        self.starts = {}
        acc = 0.0
        for name, weight in STAGES:
            self.starts[name] = (acc, weight)
            acc += weight

    def send(self, obj: dict) -> None:
        line = json.dumps(obj, allow_nan=False, default=_json_default)
        with self.lock:
            self.stream.write(line + "\n")
            self.stream.flush()

    def progress(self, stage: str, within: float, message: str, partial: dict | None = None) -> None:
        start, weight = self.starts.get(stage, (self.fraction, 0.0))
        frac = min(1.0, max(self.fraction, start + weight * max(0.0, min(1.0, within))))
        self.fraction = frac
        self.send({"type": "progress", "stage": stage, "fraction": round(frac, 4),
                   "message": message, "partial": partial or {}})


def _json_default(obj):
    try:
        import numpy as np

        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return _finite(float(obj))
        if isinstance(obj, np.ndarray):
            return obj.tolist()
    except ImportError:
        pass
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    return str(obj)


def _finite(x):
    return x if x is None or math.isfinite(x) else None


def _r(x, nd=2):
    return None if x is None or not math.isfinite(x) else round(float(x), nd)


# ------------------------------------------------------------------ environment set-up

def setup_environment() -> dict:
    """Set Numba's cache dir and target features before Numba is imported."""
    info = {"cache_dir": None, "cpu_features_override": None}
    if not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            import platformdirs

            base = platformdirs.user_cache_dir("accelgui")
        except ImportError:
            base = os.path.join(os.path.expanduser("~"), ".cache", "accelgui")
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, "numba")
    info["cache_dir"] = os.environ["NUMBA_CACHE_DIR"]
    # LLVM prefers 256-bit vectors on Skylake-SP, Ice Lake and others ("prefer-256-bit"
    # tuning), which halves FMA throughput on CPUs with two 512-bit FMA units. Ask for the
    # host's own features minus that preference (clang's -mprefer-vector-width=512).
    if not os.environ.get("NUMBA_CPU_FEATURES") and not os.environ.get("NUMBA_CPU_NAME"):
        try:
            import llvmlite.binding as ll

            feats = ll.get_host_cpu_features().flatten()
            if "+avx512f" in feats.split(","):
                os.environ["NUMBA_CPU_FEATURES"] = feats + ",-prefer-256-bit"
                info["cpu_features_override"] = "-prefer-256-bit"
        except Exception:  # noqa: BLE001 - keep Numba's defaults
            pass
    return info


def _rlimit_as() -> int | None:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else int(soft)


def memory_cap(ctx, requested: int | None, rlimit_as: int | None = None
               ) -> tuple[int, str, int | None, dict]:
    """(cap bytes, why, available bytes, limits): a quarter of the smallest headroom of
    MemAvailable, this process's cgroup (memory.max / memory.limit_in_bytes minus usage, every
    ancestor included) and RLIMIT_AS (minus what the process has mapped already)."""
    from accelgui.probes.kernels import peaks

    avail = peaks.available_memory_bytes(ctx)
    if avail is None and ctx.live:
        try:
            import psutil

            avail = int(psutil.virtual_memory().available)
        except Exception:  # noqa: BLE001
            avail = None
    cg = peaks.cgroup_memory(ctx)
    address = peaks.address_space_headroom(ctx, rlimit_as)
    limits = {"meminfo_available_bytes": avail, "cgroup_limit_bytes": cg["limit_bytes"],
              "cgroup_available_bytes": cg["available_bytes"], "rlimit_as_bytes": rlimit_as,
              "rlimit_as_available_bytes": address}
    bounds = [(v, why) for v, why in ((avail, "available memory"),
                                      (cg["available_bytes"], f"the cgroup {cg['version']} memory limit"),
                                      (address, "RLIMIT_AS")) if v is not None]
    if bounds:
        least, why = min(bounds, key=lambda b: b[0])
        quarter, src = max(least // 4, 64 * 1024), f"25% of what {why} leaves"
    else:
        quarter, src = 1 * GIB, "1 GiB (available memory unknown)"
    if requested is not None and requested < quarter:
        return max(int(requested), 64 * 1024), "--mem-cap-bytes", avail, limits
    return quarter, src, avail, limits


# ------------------------------------------------------------------ helpers

class Jit:
    """First-call timing (compile or cache load) apart from the measured time."""

    def __init__(self):
        self.per_kernel: dict[str, float] = {}
        self.dispatchers = []

    def warm(self, name: str, fn, *args):
        t = time.perf_counter()
        out = fn(*args)
        self.per_kernel[name] = self.per_kernel.get(name, 0.0) + time.perf_counter() - t
        if fn not in self.dispatchers:
            self.dispatchers.append(fn)
        return out

    def summary(self) -> dict:
        hits = misses = 0
        for d in self.dispatchers:
            try:
                st = d.stats
                hits += sum(st.cache_hits.values())
                misses += sum(st.cache_misses.values())
            except Exception:  # noqa: BLE001
                pass
        return {"compile_s": _r(sum(self.per_kernel.values()), 3),
                "per_kernel_s": {k: _r(v, 3) for k, v in self.per_kernel.items()},
                "cache_hits": hits, "cache_misses": misses}


def run_threads(n: int, fn, args_for) -> tuple[float, list[float]]:
    """Run fn(*args_for(i)) on n threads started together; (wall seconds, per-thread seconds).

    The kernels are ``nogil`` Numba functions, so the threads really run in parallel,
    like the C reference's ``omp parallel`` region (one call per thread).
    """
    barrier = threading.Barrier(n)
    starts, ends, results = [0.0] * n, [0.0] * n, [None] * n

    def work(i):
        args = args_for(i)
        barrier.wait()
        starts[i] = time.perf_counter()
        results[i] = fn(*args)
        ends[i] = time.perf_counter()

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return max(ends) - min(starts), [e - s for s, e in zip(starts, ends)]


def aligned_view(x, align: int = 64):
    """The largest view of 1-D ``x`` whose first element sits on an ``align``-byte boundary."""
    skip = ((-x.ctypes.data) % align) // x.itemsize
    n = (x.shape[0] - skip) // (align // x.itemsize) * (align // x.itemsize)
    return x[skip: skip + n]


@contextlib.contextmanager
def gc_paused():
    """The stage inside runs with automatic garbage collection off, as ``timeit`` times: a
    full collection over the JIT's objects (tens of ms) would otherwise land inside a timed
    call now and then. Collected first, so nothing piles up from one stage to the next."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def summarize(times: list[float], work: float) -> dict:
    """best / median rate, the spread of a list of timings and every rate (rate = work / time)."""
    ts = sorted(times)
    med = ts[len(ts) // 2] if len(ts) % 2 else 0.5 * (ts[len(ts) // 2 - 1] + ts[len(ts) // 2])
    best = work / ts[0] if ts[0] > 0 else None
    return {"best": best, "median": work / med if med > 0 else None,
            "spread": (ts[-1] - ts[0]) / med if med > 0 else None,
            "rates": [work / t for t in ts if t > 0]}


# ------------------------------------------------------------------ the benchmark

class Bench:
    def __init__(self, mode: str, proto: Protocol, mem_cap_bytes: int | None, gpu: bool,
                 env_info: dict):
        from accelgui.probes.context import ProbeContext
        from accelgui.probes.kernels import peaks

        self.mode = mode
        self.cfg = MODES[mode]
        self.proto = proto
        self.gpu = gpu
        self.env_info = env_info
        self.ctx = ProbeContext()
        self.cpus = peaks.usable_cpus(self.ctx)
        self.threads = max(1, len(self.cpus))
        self.cores = min(self.threads, peaks.physical_cores(self.ctx, self.cpus))
        self.caches = peaks.cache_sizes(self.ctx, self.cpus)
        self.cpuinfo = peaks.cpuinfo(self.ctx)
        self.cap, self.cap_source, self.avail, self.cap_limits = memory_cap(
            self.ctx, mem_cap_bytes, _rlimit_as())
        self.numa_nodes = len([n for n in self.ctx.listdir("sys/devices/system/node")
                               if n.startswith("node") and n[4:].isdigit()]) or 1
        self.warnings: list[str] = []
        self.spread: dict[str, dict] = {}   # dotted figure path -> repeat spread
        self.jit = Jit()
        self.result: dict = {}

    # -- setup ---------------------------------------------------------------------
    def setup(self):
        self.proto.progress("setup", 0.0, "loading Numba")
        t = time.perf_counter()
        global np, ck
        import numpy as np
        import numba

        from accelgui.probes.kernels import cpu_kernels as ck
        self.import_s = time.perf_counter() - t
        self.numba = numba
        try:
            numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
        except Exception:  # noqa: BLE001
            pass
        self.vector_bits = self._compiled_vector_bits()
        # Accumulators in flight: at least FMA latency x pipes (4-5 x 2 on x86, 4 x 4 on
        # Neoverse V2 and Apple cores), within 32 vector registers (AArch64) or leaving
        # room in 16 (AVX2). The full mode measures a sweep of counts and keeps the best;
        # on the Zen 4 dev machine 4-24 zmm accumulators reach the peak; with AVX2
        # (16 ymm registers) 8-14 do and 16 spills (tests/benchmarks/README.md).
        self.nacc = 16 if os.uname().machine in ("aarch64", "arm64") else 12
        self.proto.progress("setup", 1.0, f"Numba {numba.__version__} loaded")

    def _compiled_vector_bits(self) -> int:
        feats = os.environ.get("NUMBA_CPU_FEATURES")
        if feats is None:
            try:
                import llvmlite.binding as ll

                feats = ll.get_host_cpu_features().flatten()
            except Exception:  # noqa: BLE001
                feats = ""
        f = set(feats.split(","))
        machine = os.uname().machine
        if machine in ("x86_64", "AMD64", "i686"):
            if "+avx512f" in f:
                return 512  # explicit 512-bit vectors in the FMA kernel
            if "+avx" in f:
                return 256
        return 128

    # -- clock ----------------------------------------------------------------------
    def clock(self):
        from accelgui.probes.kernels import peaks

        self.proto.progress("clock", 0.0, "measuring the effective clock")
        self.jit.warm("add_chain", ck.add_chain, 10, 3, 5)
        n = 20000
        while True:
            t = timed(ck.add_chain, n, 3, 5)
            if t >= self.cfg["clock_s"] / 4 or n > 1 << 34:
                break
            n *= 4
        n = max(1000, int(n * self.cfg["clock_s"] / max(t, 1e-6)))
        best = min(timed(ck.add_chain, n, 3, 5) for _ in range(self.cfg["clock_reps"]))
        mhz_1t = 8 * n / best / 1e6
        self.clock_n = n
        mhz_mt = self._clock_mt()
        maxf = peaks.cpufreq_max_mhz(self.ctx, self.cpus)
        self.clock_info = {"measured_mhz_1t": _r(mhz_1t, 0), "measured_mhz_mt": _r(mhz_mt, 0),
                           "cpufreq_max_mhz": _r(maxf, 0),
                           "cpuinfo_mhz": _r(self.cpuinfo.get("cpu_mhz"), 0),
                           "method": "dependent add/xor chain, 8 single-cycle ops per iteration"}
        self.maxf = maxf
        self._set_clock_used()
        self.proto.progress("clock", 1.0, f"clock {mhz_1t:.0f} MHz (measured)",
                            {"clock": self.clock_info})

    def keep_spread(self, path: str, s: dict) -> None:
        """Record the repeat spread of a rate figure from :func:`summarize`'s summary."""
        from accelgui.probes.kernels.peaks import repeat_spread

        entry = repeat_spread(s.get("rates") or [])
        if entry:
            self.spread[path] = entry

    def _set_clock_used(self):
        """Clock for the theoretical peak: cpufreq's maximum, else the measured one.

        An all-thread clock far below the one-thread clock (< 80 %) is taken as a
        measurement disturbed by another process, and the one-thread clock is used.
        """
        if self.maxf:
            self.clock_used = (self.maxf, self.maxf, "cpufreq_max")
            return
        c1 = self.clock_info["measured_mhz_1t"]
        cm = self.clock_info["measured_mhz_mt"]
        if not cm or cm < 0.8 * c1:
            cm = c1
        self.clock_used = (c1, cm, "measured")

    def _clock_mt(self) -> float:
        """All threads at once: each thread's best time; the slowest core sets the pace."""
        n = self.clock_n
        per_thread = [math.inf] * self.threads
        for _ in range(self.cfg["clock_reps"]):
            _, times = run_threads(self.threads, ck.add_chain, lambda i: (n, 3 + i, 5))
            per_thread = [min(p, t) for p, t in zip(per_thread, times)]
        return 8 * n / max(per_thread) / 1e6

    # -- FMA --------------------------------------------------------------------------
    def _fma_kernel(self, nacc: int, dtype):
        lanes = self.vector_bits // (64 if dtype == np.float64 else 32)
        key = (nacc, lanes, np.dtype(dtype).name)
        cache = self.__dict__.setdefault("_fma_cache", {})
        if key not in cache:
            k = ck.make_fma_kernel(nacc, lanes, dtype)
            m, c = dtype(0.9999999), dtype(1e-7)
            self.jit.warm(f"fma_{key[2]}_x{nacc}", k, 1, 1.0, m, c)
            cache[key] = (k, nacc * lanes)
        return cache[key]

    def _fma_measure(self, nacc: int, dtype, threads: int) -> tuple[float, dict]:
        k, lanes_total = self._fma_kernel(nacc, dtype)
        m, c = dtype(0.9999999), dtype(1e-7)
        iters = 1000
        while True:
            t = timed(k, iters, 1.0, m, c)
            if t >= self.cfg["fma_s"] / 5 or iters > 1 << 34:
                break
            iters *= 4
        iters = max(10, int(iters * self.cfg["fma_s"] / max(t, 1e-7)))
        flops = 2.0 * lanes_total * iters * threads
        times = []
        for _ in range(self.cfg["fma_reps"]):
            if threads == 1:
                times.append(timed(k, iters, 1.0, m, c))
            else:
                times.append(run_threads(threads, k, lambda i: (iters, 1.0 + i, m, c))[0])
        s = summarize(times, flops / 1e9)
        return s["best"], s

    def fma(self):
        self.proto.progress("fma", 0.0, "FMA throughput")
        out: dict = {}
        sweep = self.cfg["nacc_sweep"]
        steps = 4 + (len(sweep) if sweep else 0)
        done = 0
        if sweep:
            rows = []
            for nacc in sweep:
                g, _ = self._fma_measure(nacc, np.float64, 1)
                rows.append({"accumulators": nacc, "fp64_gflops_1t": _r(g)})
                done += 1
                self.proto.progress("fma", done / steps, f"{nacc} accumulators: {g:.1f} GFLOP/s")
            best = max(rows, key=lambda r: r["fp64_gflops_1t"] or 0)
            self.nacc = best["accumulators"]  # the measured best count is used below
            out["accumulator_sweep"] = rows
        spreads = {}
        for prec, dtype in (("fp64", np.float64), ("fp32", np.float32)):
            for suffix, threads in (("1t", 1), ("mt", self.threads)):
                g, s = self._fma_measure(self.nacc, dtype, threads)
                out[f"{prec}_gflops_{suffix}"] = _r(g)
                self.keep_spread(f"cpu.fma.{prec}_gflops_{suffix}", s)
                spreads[f"{prec}_{suffix}"] = {"median_gflops": _r(s["median"]), "spread": _r(s["spread"], 4)}
                done += 1
                self.proto.progress("fma", done / steps, f"{prec} {suffix}: {g:.1f} GFLOP/s",
                                    {"fma": dict(out)})
        out.update({"accumulators": self.nacc, "vector_bits": self.vector_bits,
                    "threads": self.threads, "median": spreads,
                    "method": "acc = acc * m + c on independent vector accumulators, "
                              "best of %d" % self.cfg["fma_reps"]})
        self.result["fma"] = out

    # -- STREAM -------------------------------------------------------------------------
    def _stream_size(self) -> int:
        want = self.cfg["stream_array_bytes"]
        llc = self.caches.get("llc_total_bytes")
        if want is None:
            want = 4 * llc if llc else 256 * MIB
            want = max(want, 64 * MIB)
        per_array_cap = self.cap // 4  # three arrays plus headroom
        size = min(want, per_array_cap)
        if self.cfg["stream_array_bytes"] is None and llc and size < 4 * llc:
            self.warnings.append(
                f"STREAM arrays capped at {size} bytes by the memory cap ({self.cap} bytes), "
                f"below 4x the last-level cache ({llc} bytes): caches may inflate the figures")
        n = max(1024, size // 8)
        return n - n % 64

    def _stream_run(self, a, b, c, threads: int, label: str, frac0: float, frac1: float,
                    stage: str = "stream") -> dict:
        s = 3.0
        ntimes = self.cfg["ntimes"]
        n = a.shape[0]
        times = {op: [] for op in ck.STREAM_OPS}
        for k in range(ntimes):
            for op in ck.STREAM_OPS:
                if threads == 1:
                    t = timed(ck.stream_op, op, a, b, c, s)
                else:
                    t = timed(ck.stream_mt, op, a, b, c, s, threads)
                if k:  # first pass dropped, as STREAM does
                    times[op].append(t)
            self.proto.progress(stage, frac0 + (frac1 - frac0) * (k + 1) / ntimes,
                                f"STREAM {label} pass {k + 1}/{ntimes}")
        out = {}
        for op in ck.STREAM_OPS:
            name = ck.STREAM_NAMES[op]
            summ = summarize(times[op], ck.STREAM_BYTES[op] * n / 1e9)
            out[f"{name}_gbps"] = _r(summ["best"])
            out.setdefault("median", {})[f"{name}_gbps"] = _r(summ["median"])
            out.setdefault("spread", {})[name] = _r(summ["spread"], 4)
            out.setdefault("summary", {})[f"{name}_gbps"] = summ
        return out

    def stream(self):
        n = self._stream_size()
        self.proto.progress("stream", 0.0, f"STREAM: 3 arrays of {n * 8 / MIB:.0f} MiB")
        self.stream_n = n
        s = 3.0
        # compile on tiny arrays first (compile time is reported apart)
        ta, tb, tc = np.empty(64), np.empty(64), np.empty(64)
        self.jit.warm("stream_op", ck.stream_op, ck.INIT, ta, tb, tc, s)
        self.jit.warm("stream_mt", ck.stream_mt, ck.INIT, ta, tb, tc, s, self.threads)
        try:
            self.threading_layer = self.numba.threading_layer()
        except Exception:  # noqa: BLE001
            self.threading_layer = None
        passes = 0
        if self.numa_nodes > 1:
            # single-thread figures from arrays the one thread touched first (node-local)
            a, b, c = np.empty(n), np.empty(n), np.empty(n)
            ck.stream_op(ck.INIT, a, b, c, s)
            single = self._stream_run(a, b, c, 1, "1 thread", 0.05, 0.5)
            del a, b, c
            a, b, c = np.empty(n), np.empty(n), np.empty(n)
            ck.stream_mt(ck.INIT, a, b, c, s, self.threads)  # parallel first touch
            self.stream_arrays = (a, b, c)
            multi = self._stream_run(a, b, c, self.threads, f"{self.threads} threads", 0.5, 1.0)
            passes = self.cfg["ntimes"]
        else:
            a, b, c = np.empty(n), np.empty(n), np.empty(n)
            ck.stream_mt(ck.INIT, a, b, c, s, self.threads)  # parallel first touch
            self.stream_arrays = (a, b, c)
            single = self._stream_run(a, b, c, 1, "1 thread", 0.05, 0.5)
            multi = self._stream_run(a, b, c, self.threads, f"{self.threads} threads", 0.5, 1.0)
            passes = 2 * self.cfg["ntimes"]
        check = self._stream_check(a, b, c, passes)
        for key, summ in multi.pop("summary").items():
            self.keep_spread(f"cpu.stream.{key}", summ)
        for key, summ in single.pop("summary").items():
            self.keep_spread(f"cpu.stream.single_thread.{key}", summ)
        out = {"threads": self.threads, "array_bytes": int(n * 8),
               "copy_gbps": multi["copy_gbps"], "scale_gbps": multi["scale_gbps"],
               "add_gbps": multi["add_gbps"], "triad_gbps": multi["triad_gbps"],
               "median": multi["median"], "spread": multi["spread"],
               "single_thread": {k: single[k] for k in ("copy_gbps", "scale_gbps", "add_gbps", "triad_gbps")},
               "single_thread_median": single["median"], "single_thread_spread": single["spread"],
               "ntimes": self.cfg["ntimes"], "first_pass_dropped": True,
               "bytes_counted": "STREAM convention: copy/scale 16 B, add/triad 24 B per element, "
                                "no write-allocate traffic",
               "check_ok": check}
        if not check:
            self.warnings.append("STREAM result check failed: the arrays hold unexpected values")
        self.result["stream"] = out
        self.proto.progress("stream", 1.0, f"triad {out['triad_gbps']} GB/s ({self.threads} threads)",
                            {"stream": out})

    def _stream_check(self, a, b, c, passes: int) -> bool:
        s = 3.0
        ea, eb, ec = 1.0, 2.0, 0.0
        for _ in range(passes):
            ec = ea
            eb = s * ec
            ec = ea + eb
            ea = eb + s * ec
        idx = [0, a.shape[0] // 2, a.shape[0] - 1]
        for arr, exp in ((a, ea), (b, eb), (c, ec)):
            for i in idx:
                if not math.isclose(float(arr[i]), exp, rel_tol=1e-12):
                    return False
        return True

    # -- cache sweep --------------------------------------------------------------------------
    def cache_sweep(self):
        ck.stream_mt(ck.INIT, *self.stream_arrays, 3.0, self.threads)  # a = 1, c = 0 again
        # 64-byte aligned views: a vector load that straddles two cache lines halves the
        # L1 bandwidth. Two placements (arrays a and c), best of both, for working sets
        # that fit the caches: on VMs some pages are slower than others.
        a, c2 = (aligned_view(x, 64) for x in (self.stream_arrays[0], self.stream_arrays[2]))
        max_bytes = self.cfg["sweep_max_bytes"] or a.nbytes
        max_bytes = min(max_bytes, a.nbytes, c2.nbytes)
        small = (self.caches.get("llc_bytes") or 0) // 2
        per_oct = self.cfg["sweep_per_octave"]
        sizes = []
        i = 0
        while True:
            size = int(4096 * 2 ** (i / per_oct)) // 64 * 64
            if size > max_bytes:
                break
            if not sizes or size != sizes[-1]:
                sizes.append(size)
            i += 1
        if sizes[-1] != max_bytes // 64 * 64:
            sizes.append(max_bytes // 64 * 64)
        self.proto.progress("cache_sweep", 0.0, f"read bandwidth at {len(sizes)} working-set sizes")
        self.jit.warm("read_sum", ck.read_sum, a[:64], 1)
        est = 100e9
        rows = []
        for k, size in enumerate(sizes):
            reps = max(1, int(self.cfg["sweep_s"] * est / size))
            best = math.inf
            for buf in ((a, c2) if size <= small else (a,)):
                view = buf[: size // 8]
                ck.read_sum(view, 1)  # bring it into the cache
                best = min(best, min(timed(ck.read_sum, view, reps) for _ in range(self.cfg["sweep_reps"])))
            gbps = size * reps / best / 1e9
            est = gbps * 1e9
            rows.append({"bytes": int(size), "gbps": _r(gbps)})
            if k % 4 == 3 or k == len(sizes) - 1:
                self.proto.progress("cache_sweep", (k + 1) / len(sizes),
                                    f"{size // 1024} KiB: {gbps:.1f} GB/s",
                                    {"cache_sweep": list(rows)})
        self.result["cache_sweep"] = rows

    # -- latency ---------------------------------------------------------------------------
    def latency(self):
        from accelgui.probes.kernels.peaks import repeat_spread

        c = self.caches
        l1, l2, l3 = c.get("l1d_bytes"), c.get("l2_bytes"), c.get("l3_bytes")
        bufs = [aligned_view(x, 64).view(np.uint64) for x in self.stream_arrays[1:]]
        capacity = min(b.nbytes for b in bufs)   # alignment can leave the views a line apart
        levels = []
        if l1:
            levels.append(("l1", l1 // 2))
        if l2:
            levels.append(("l2", max(l2 // 2, min(4 * (l1 or 0), 3 * l2 // 4))))
        if l3:
            levels.append(("l3", max(2 * (l2 or 0), min(l3 // 2, 4 * (l2 or l3 // 8)))))
        if self.cfg["lat_dram"]:
            llc = c.get("llc_total_bytes") or 64 * MIB
            levels.append(("dram", max(4 * llc, 64 * MIB)))
        stride = 8  # 64-byte cache lines
        self.proto.progress("latency", 0.0, "pointer chase latency")
        self.jit.warm("chase", ck.chase, np.zeros(8, np.uint64), 1)
        out = {"l1": None, "l2": None, "l3": None, "dram": None}
        sizes = {}
        for k, (name, ws) in enumerate(levels):
            ws = min(ws, capacity) // 64 * 64
            n_lines = max(2, ws // 64)
            if ws < 4096 or (name == "dram" and ws < 2 * (c.get("llc_total_bytes") or 0)):
                self.warnings.append(f"latency {name}: working set limited to {ws} bytes by the memory cap")
                if name == "dram":
                    continue
            best_ns = math.inf
            all_ns = []
            # two placements for cache-sized sets (some VM pages are slower), best of both
            for buf in (bufs if name != "dram" else bufs[:1]):
                view = buf[: n_lines * stride]
                ck.build_chase(view, n_lines, stride, 12345 + k)
                steps = 20000
                t = timed(ck.chase, view, steps)
                per = max(t / steps, 2e-10)
                steps = max(1000, int(self.cfg["lat_s"] / per))
                reps = [timed(ck.chase, view, steps) / steps * 1e9 for _ in range(self.cfg["lat_reps"])]
                all_ns.extend(reps)
                best_ns = min(best_ns, min(reps))
            out[name] = _r(best_ns, 2)
            self.spread[f"cpu.latency_ns.{name}"] = repeat_spread(all_ns)
            sizes[name] = int(n_lines * 64)
            self.proto.progress("latency", (k + 1) / len(levels), f"{name}: {out[name]} ns",
                                {"latency_ns": dict(out)})
        self.result["latency_ns"] = out
        self.result["latency_working_set_bytes"] = sizes

    # -- GEMM ------------------------------------------------------------------------------
    def gemm(self):
        n = self.cfg["gemm_n"]
        while n > 64 and 3 * n * n * 8 > self.cap // 2:
            n //= 2
        self.proto.progress("gemm", 0.0, f"BLAS GEMM n={n}")
        out = {"n": n, "dgemm_gflops": None, "sgemm_gflops": None}
        rng = np.random.default_rng(7)
        for k, (name, dt) in enumerate((("dgemm", np.float64), ("sgemm", np.float32))):
            x = rng.random((n, n)).astype(dt)
            y = rng.random((n, n)).astype(dt)
            z = np.empty((n, n), dt)
            np.dot(x, y, out=z)  # warm-up: BLAS threads start, pages touched
            summ = summarize([timed(np.dot, x, y, z) for _ in range(self.cfg["gemm_reps"])],
                             2.0 * n ** 3 / 1e9)
            out[f"{name}_gflops"] = _r(summ["best"])
            self.keep_spread(f"cpu.gemm.{name}_gflops", summ)
            self.proto.progress("gemm", (k + 1) / 2, f"{name}: {out[name + '_gflops']} GFLOP/s",
                                {"gemm": dict(out)})
        out["blas"] = blas_info()
        coretype = os.environ.get("OPENBLAS_CORETYPE")
        out["openblas_coretype"] = coretype
        if coretype:
            out["note"] = (f"OPENBLAS_CORETYPE={coretype} is set: OpenBLAS uses that kernel "
                           "instead of the best one for this CPU (it can halve dgemm)")
        self.result["gemm"] = out

    # -- second chance ------------------------------------------------------------------------
    def recheck(self):
        """Measure the all-thread figures again when they look slowed by another process.

        On a shared machine a neighbour that takes a core for a few hundred milliseconds
        halves an all-thread figure. Signs of that: FMA on all cores below 85 % of
        cores x one core, the all-thread clock below 90 % of one core's, STREAM on all
        threads below one thread. The best of both tries is kept and the retry is noted.
        """
        if self.threads < 2:
            return
        notes = []
        fma = self.result["fma"]
        c1 = self.clock_info.get("measured_mhz_1t") or 0
        if (self.clock_info.get("measured_mhz_mt") or 0) < 0.9 * c1:
            again = self._clock_mt()
            if again > (self.clock_info["measured_mhz_mt"] or 0):
                self.clock_info["measured_mhz_mt"] = _r(again, 0)
                self._set_clock_used()
            notes.append("clock (all threads)")
        for prec, dtype in (("fp64", np.float64), ("fp32", np.float32)):
            one, mt = fma.get(f"{prec}_gflops_1t") or 0, fma.get(f"{prec}_gflops_mt") or 0
            if mt < 0.85 * one * self.cores:
                self.proto.progress("recheck", 0.0, f"{prec} FMA on all threads again")
                g, s = self._fma_measure(self.nacc, dtype, self.threads)
                if g > mt:
                    self.keep_spread(f"cpu.fma.{prec}_gflops_mt", s)
                fma[f"{prec}_gflops_mt"] = _r(max(g, mt))
                notes.append(f"{prec} FMA (all threads)")
        st = self.result["stream"]
        if (st.get("triad_gbps") or 0) < (st["single_thread"].get("triad_gbps") or 0):
            a, b, c = self.stream_arrays
            ck.stream_mt(ck.INIT, a, b, c, 3.0, self.threads)
            again = self._stream_run(a, b, c, self.threads, "again", 0.0, 0.0, stage="recheck")
            for key in ("copy_gbps", "scale_gbps", "add_gbps", "triad_gbps"):
                if (again[key] or 0) > (st[key] or 0):
                    st[key] = again[key]
                    self.keep_spread(f"cpu.stream.{key}", again["summary"][key])
                    st["median"][key] = again["median"][key]
                    st["spread"][key[:-5]] = again["spread"][key[:-5]]
            notes.append("STREAM (all threads)")
        if notes:
            self.warnings.append("measured twice, best kept (the first try looked slowed by "
                                 "another process): " + ", ".join(notes))

    # -- GPU ---------------------------------------------------------------------------------
    def gpu_stage(self) -> dict:
        from accelgui.probes.kernels import CUDA_HINT, gpu_skip_reason

        if not self.gpu:
            return {"skipped": "GPU benchmarks disabled (--no-gpu)"}
        reason = gpu_skip_reason()
        if reason:
            return {"skipped": reason}
        self.proto.progress("gpu", 0.0, "GPU benchmarks (numba-cuda)")
        try:
            from accelgui.probes.kernels import gpu_kernels
        except Exception as exc:  # noqa: BLE001 - ImportError, CudaSupportError, ...
            return {"skipped": f"numba-cuda unusable: {exc} ({CUDA_HINT})"}

        def prog(within, message, partial=None):
            self.proto.progress("gpu", within, message, partial)
        try:
            return gpu_kernels.run(scale=self.cfg["gpu_scale"], on_progress=prog,
                                   host_cap_bytes=self.cap // 2)
        except Exception as exc:  # noqa: BLE001 - a GPU failure must not lose the CPU figures
            return {"error": f"{type(exc).__name__}: {exc}"}

    # -- the whole run -----------------------------------------------------------------------
    def run(self) -> dict:
        from accelgui.probes.kernels import peaks

        t_all = time.perf_counter()
        self.setup()
        _inject("after-setup")
        stages = [("clock", self.clock), ("fma", self.fma), ("stream", self.stream),
                  ("cache_sweep", self.cache_sweep), ("latency", self.latency), ("gemm", self.gemm)]
        for _name, fn in stages:
            with gc_paused():
                fn()
        with gc_paused():
            self.recheck()
        self.stream_arrays = None  # give the memory back before the GPU stage
        with gc_paused():
            gpu = self.gpu_stage()
        for key, entry in gpu.items():   # each device's spreads into the one map
            if isinstance(entry, dict):
                for fig, s in (entry.pop("spread", None) or {}).items():
                    self.spread[f"gpu.{key}.{fig}"] = s
        self.proto.progress("gpu", 1.0, "GPU: " + (gpu.get("skipped") or gpu.get("error") or "done"),
                            {"gpu": gpu})
        width = peaks.fma_width(self.ctx, self.cpuinfo)
        c1, cm, csrc = self.clock_used
        theo = peaks.theoretical(width, self.cores, c1, cm, csrc)
        fma = self.result["fma"]
        eff = {}
        for key in ("fp64_1t", "fp64_mt", "fp32_1t", "fp32_mt"):
            prec, suf = key.split("_")
            meas, peak = fma.get(f"{prec}_gflops_{suf}"), theo.get(f"{prec}_gflops_{suf}")
            eff[key] = _r(meas / peak, 3) if meas and peak else None
        gemm = self.result["gemm"]
        if gemm.get("dgemm_gflops") and theo.get("fp64_gflops_mt"):
            eff["dgemm"] = _r(gemm["dgemm_gflops"] / theo["fp64_gflops_mt"], 3)
        cpu = {"threads": self.threads, "cores": self.cores,
               "stream": self.result["stream"], "fma": fma,
               "latency_ns": self.result["latency_ns"],
               "latency_working_set_bytes": self.result["latency_working_set_bytes"],
               "cache_sweep": self.result["cache_sweep"],
               "caches": self.caches, "gemm": gemm,
               "clock": self.clock_info, "theoretical": theo, "efficiency": eff}
        roof = roofline(theo, fma, self.result["stream"], gemm)
        env = self.environment()
        jit = self.jit.summary()
        jit.update({"cache_dir": self.env_info.get("cache_dir"),
                    "import_s": _r(self.import_s, 3)})
        total = time.perf_counter() - _T0
        bench = {"contract": BENCHMARK_CONTRACT, "mode": self.mode, "cpu": cpu, "gpu": gpu, "roofline": roof,
                 "environment": env, "jit": jit,
                 "memory_cap_bytes": int(self.cap), "memory_cap_source": self.cap_source,
                 "memory_available_bytes": self.avail, "memory_cap_limits": self.cap_limits,
                 "elapsed_s": _r(total, 3),
                 "measure_s": _r(time.perf_counter() - t_all - (jit["compile_s"] or 0) - self.import_s, 3),
                 "warnings": self.warnings, "spread": self.spread}
        return bench

    def environment(self) -> dict:
        import llvmlite
        import llvmlite.binding as ll

        try:
            feats = ll.get_host_cpu_features().flatten()
            enabled = sorted(f[1:] for f in feats.split(",") if f.startswith("+"))
        except Exception:  # noqa: BLE001
            enabled = None
        return {"threads": self.threads, "physical_cores": self.cores,
                "numa_nodes": self.numa_nodes,
                "numba_version": self.numba.__version__, "llvmlite_version": llvmlite.__version__,
                "numpy_version": np.__version__, "python_version": sys.version.split()[0],
                "threading_layer": getattr(self, "threading_layer", None),
                "numba_num_threads": self.numba.get_num_threads(),
                "llvm_cpu_name": _safe(ll.get_host_cpu_name),
                "llvm_cpu_features": enabled,
                "numba_cpu_name": os.environ.get("NUMBA_CPU_NAME"),
                "numba_cpu_features_override": self.env_info.get("cpu_features_override"),
                "vector_bits": self.vector_bits,
                "blas": blas_info(), "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
                "openblas_l2_size": os.environ.get("OPENBLAS_L2_SIZE")}


def _safe(fn):
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return None


def blas_info() -> dict | None:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    for row in threadpool_info():
        if row.get("user_api") == "blas":
            return {"internal_api": row.get("internal_api"), "version": row.get("version"),
                    "architecture": row.get("architecture") or row.get("corename"),
                    "num_threads": row.get("num_threads"),
                    "threading_layer": row.get("threading_layer"),
                    "prefix": row.get("prefix")}
    return None


def roofline(theo: dict, fma: dict, stream: dict, gemm: dict) -> dict:
    if theo.get("fp64_gflops_mt"):
        peak, src = theo["fp64_gflops_mt"], "theoretical fp64 (all cores)"
    else:
        peak, src = fma.get("fp64_gflops_mt"), "measured fp64 FMA (all threads)"
    bw = stream.get("triad_gbps")
    points = []
    if bw:
        points.append({"name": "stream_triad", "flops_per_byte": _r(2 / 24, 4),
                       "gflops": _r(bw * 2 / 24, 3)})
    if gemm.get("dgemm_gflops") and gemm.get("n"):
        # 2n^3 flops over the 3 n^2 doubles that must move at least once
        points.append({"name": "dgemm", "flops_per_byte": _r(2 * gemm["n"] / 24.0, 2),
                       "gflops": gemm["dgemm_gflops"]})
    if fma.get("fp64_gflops_mt"):
        points.append({"name": "fma_fp64", "flops_per_byte": None, "gflops": fma["fp64_gflops_mt"]})
    return {"peak_gflops": _r(peak), "peak_gflops_source": src,
            "peak_gbps": _r(bw), "peak_gbps_source": "measured STREAM triad (all threads)",
            "ridge_flops_per_byte": _r(peak / bw, 3) if peak and bw else None,
            "measured_points": points}


def _inject(where: str) -> None:
    mode = os.environ.get("ACCELGUI_BENCH_CRASH", "").strip().lower()
    if not mode or mode in ("0", "no", "false"):
        return
    sys.stderr.write(f"accelgui bench: ACCELGUI_BENCH_CRASH={mode} injected {where}\n")
    sys.stderr.flush()
    if mode == "exception":
        raise RuntimeError("injected failure (ACCELGUI_BENCH_CRASH=exception)")
    if mode == "hang":
        while True:
            time.sleep(3600)
    os.abort()


def _watch_stdin() -> None:
    """End the child when the parent closes our stdin (the parent died)."""
    def watch():
        try:  # raw reads: a buffered stdin would hold a lock at interpreter shutdown
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        os._exit(3)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m accelgui.probes.kernels",
                                description="accelgui benchmark child (JSON lines on stdout)")
    p.add_argument("--mode", choices=tuple(MODES), default="quick")
    p.add_argument("--mem-cap-bytes", type=int, default=None,
                   help="largest total memory the benchmarks may use (default: 25%% of available)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--gpu", dest="gpu", action="store_true", default=True)
    g.add_argument("--no-gpu", dest="gpu", action="store_false")
    p.add_argument("--watch-stdin", action="store_true",
                   help="exit when stdin closes (used by the parent process)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    # The protocol owns the real stdout; anything else written to fd 1 (C libraries,
    # stray prints) goes to stderr so it cannot break the JSON lines.
    proto_stream = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    try:
        os.dup2(2, 1)
    except OSError:
        pass
    sys.stdout = sys.stderr
    proto = Protocol(proto_stream)
    if args.watch_stdin:
        _watch_stdin()
    try:
        env_info = setup_environment()
        bench = Bench(args.mode, proto, args.mem_cap_bytes, args.gpu, env_info)
        result = bench.run()
        proto.send({"type": "result", "benchmarks": result})
        return 0
    except Exception as exc:  # noqa: BLE001 - reported to the parent, then exit 1
        import traceback

        traceback.print_exc(file=sys.stderr)
        where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        loc = f" (at {os.path.basename(where.filename)}:{where.lineno})" if where else ""
        try:
            proto.send({"type": "error", "message": f"{type(exc).__name__}: {exc}{loc}"})
        except Exception:  # noqa: BLE001
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
