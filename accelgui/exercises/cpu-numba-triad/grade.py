"""Grades the Numba triad: correct on fresh random arrays, then its bandwidth, timed here."""

import numpy as np

N = 1 << 23             # 64 MiB per array: far beyond the caches


def grade(g):
    mod = g.learner("triad")
    rng = np.random.default_rng(g.seed)
    s = float(rng.uniform(0.5, 4.0))
    n = 1000 + g.seed % 1000
    a, b, c = np.zeros(n), rng.random(n), rng.random(n)
    mod.triad(a, b, c, s)
    if not g.check("correct", np.allclose(a, b + s * c, rtol=1e-12, atol=0),
                   "a must hold b + s * c after the call"):
        return
    small = 1 << 20          # a first timing on 8 MiB arrays: a kernel far too slow stops here
    a, b, c = np.zeros(small), rng.random(small), rng.random(small)
    took = g.best_time(lambda: mod.triad(a, b, c, s), repeats=3, budget_s=0.3)
    if 3 * 8 * small / took / 1e9 < 0.5:         # a pure-Python loop: ~0.1 GB/s
        g.figure("triad_gbps", 3 * 8 * small / took / 1e9)
        g.figure("numpy_copy_gbps", 2 * 8 * small / g.best_time(lambda: np.copyto(a, b)) / 1e9)
        return
    a, b, c = np.zeros(N), rng.random(N), rng.random(N)
    took = copy = float("inf")
    for _ in range(4):          # interleaved with the baseline: a busy machine slows both alike
        took = min(took, g.best_time(lambda: mod.triad(a, b, c, s), repeats=3, budget_s=1.0))
        copy = min(copy, g.best_time(lambda: np.copyto(a, b), repeats=3, budget_s=0.5))
    mod.triad(a, b, c, s)
    g.check("correct-large", np.allclose(a, b + s * c, rtol=1e-12, atol=0),
            f"wrong result on {N} elements")
    g.figure("triad_gbps", 3 * 8 * N / took / 1e9)
    g.figure("numpy_copy_gbps", 2 * 8 * N / copy / 1e9)
