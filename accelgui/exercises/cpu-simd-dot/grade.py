"""Grades dot.c: compiled here with fixed flags, checked on fresh random data, timed in C."""

import ctypes
import math
import os
import random
import shutil
import subprocess

FLAGS = ["-O2", "-march=native", "-fopenmp-simd", "-shared", "-fPIC"]
HARNESS = r"""
#include <time.h>
double dot(const double *a, const double *b, long n);
__attribute__((noinline)) static double one_sum(const double *a, const double *b, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
/* Each call sees new data (one element of a moves by 0.5 before it), so a result kept from an
   earlier call is wrong; *sink gets the sum of every result, compared with one_sum's. */
double time_it(int which, double *a, const double *b, long n, long reps, double *sink)
{
    double best = 1e30, total = 0.0;
    for (int r = 0; r < 5; r++) {
        double t0 = now(), s = 0.0;
        for (long k = 0; k < reps; k++) {
            a[k % n] += 0.5;
            s += which ? dot(a, b, n) : one_sum(a, b, n);
            __asm__ volatile("" ::: "memory");
        }
        double t = now() - t0;
        total += s;
        if (t < best)
            best = t;
    }
    *sink = total;
    return best;
}
"""


def grade(g):
    cc = shutil.which("cc") or shutil.which("gcc")
    src = os.path.join(g.scratch, "dot.c")
    shutil.copy(g.path("dot.c"), src)
    harness = os.path.join(g.scratch, "harness.c")
    with open(harness, "w") as fh:
        fh.write(HARNESS)
    lib = os.path.join(g.scratch, "libdot.so")
    built = subprocess.run([cc, *FLAGS, "-o", lib, src, harness], capture_output=True, text=True)
    if not g.check("compiles", built.returncode == 0, built.stderr[-400:]):
        return
    so = ctypes.CDLL(lib)
    so.dot.restype = ctypes.c_double
    so.dot.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    so.time_it.restype = ctypes.c_double
    so.time_it.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_long,
                           ctypes.POINTER(ctypes.c_double)]
    rng = random.Random(g.seed)
    for n in (1, 7, 1003, 4096 + rng.randrange(1, 16)):
        a = (ctypes.c_double * n)(*[rng.uniform(-1, 1) for _ in range(n)])
        b = (ctypes.c_double * n)(*[rng.uniform(-1, 1) for _ in range(n)])
        want = math.fsum(x * y for x, y in zip(a, b))
        got = so.dot(a, b, n)
        if not g.check(f"correct-{n}", abs(got - want) <= 1e-10 * max(1.0, math.fsum(abs(x * y) for x, y in zip(a, b))),
                       f"dot of {n} elements: got {got!r}, expected {want!r}"):
            return
    n, reps = 2048, 2000                   # 32 KiB of data: in the L1/L2 cache, compute-bound
    a = (ctypes.c_double * n)(*[rng.uniform(-1, 1) for _ in range(n)])
    b = (ctypes.c_double * n)(*[rng.uniform(-1, 1) for _ in range(n)])
    start = (ctypes.c_double * n)(*a)
    sums = ctypes.c_double(0.0), ctypes.c_double(0.0)
    mine = so.time_it(1, a, b, n, reps, ctypes.byref(sums[0]))
    ctypes.memmove(a, start, ctypes.sizeof(a))              # the same data again, for one_sum
    base = so.time_it(0, a, b, n, reps, ctypes.byref(sums[1]))
    bound = 1e-12 * 5 * reps * n * (1 + 0.5 * 5 * reps / n)  # rounding of 5 * reps dots of |a| < 1 + bumps
    if not g.check("correct-timed", abs(sums[0].value - sums[1].value) <= bound,
                   f"the timed calls' results add up to {sums[0].value!r}, one loop's to {sums[1].value!r}: "
                   "each call must compute the dot of the data it is given"):
        return
    g.figure("dot_gflops", 2 * n * reps / mine / 1e9)
    g.figure("one_sum_gflops", 2 * n * reps / base / 1e9)
    g.figure("speedup_over_one_sum", base / mine)
