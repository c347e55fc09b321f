"""Grades pairwise_sq_distances: exact on fresh random points, and its speed against loops,
both on one core (BLAS limited to one thread: the loops get one, and a busy machine's threads
would measure the load, not the code)."""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import numpy as np  # noqa: E402 - after the thread limits


def _loops(X, Y):  # noqa: N803 - the names of the maths
    out = [[0.0] * len(Y) for _ in X]
    for i, x in enumerate(X.tolist()):
        for j, y in enumerate(Y.tolist()):
            out[i][j] = sum((p - q) ** 2 for p, q in zip(x, y))
    return out


def grade(g):
    fn = g.learner("distances").pairwise_sq_distances
    rng = np.random.default_rng(g.seed)
    for n, m, d in ((1, 5, 3), (37, 53, 7), (200, 150, 64)):
        X, Y = rng.normal(size=(n, d)) * 3 + 1, rng.normal(size=(m, d))
        want = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        got = np.asarray(fn(X, Y))
        ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-9 * want.max())
        if not g.check(f"correct-{n}x{m}x{d}", ok, f"wrong distances for X {X.shape}, Y {Y.shape}"):
            return
    g.check("non-negative", (np.asarray(fn(X, X)) >= 0).all(), "distances of a set to itself went below 0")
    X, Y = rng.normal(size=(200, 32)), rng.normal(size=(200, 32))
    mine = loop = float("inf")
    for _ in range(3):          # interleaved: a busy machine slows both alike
        mine = min(mine, g.best_time(lambda: fn(X, Y), repeats=3, budget_s=0.3) / (200 * 200))
        loop = min(loop, g.best_time(lambda: _loops(X[:20], Y[:20]), repeats=1) / (20 * 20))
    g.figure("ns_per_pair", mine * 1e9)
    g.figure("loop_ns_per_pair", loop * 1e9)
    g.figure("speedup_over_loops", loop / mine)
