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
        mine = min(mine, _timed_calls(g, fn, rng, 3) / (200 * 200))
        if g.failed:
            return
        loop = min(loop, g.best_time(lambda: _loops(X[:20], Y[:20]), repeats=1) / (20 * 20))
    g.check("correct-timed", True, "every timed call computed its own points")
    g.figure("ns_per_pair", mine * 1e9)
    g.figure("loop_ns_per_pair", loop * 1e9)
    g.figure("speedup_over_loops", loop / mine)


def _timed_calls(g, fn, rng, repeats):
    """The fastest of ``repeats`` timed calls, each on new points and its result checked after
    (an answer kept from an earlier call fails ``correct-timed``); inf once a check failed."""
    best = float("inf")
    for _ in range(repeats):
        X, Y = rng.normal(size=(200, 32)), rng.normal(size=(200, 32))
        t0 = g.clock()
        got = fn(X, Y)
        took = g.clock() - t0
        want = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        if not (np.shape(got) == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-9 * want.max())):
            g.check("correct-timed", False, "a timed call gave wrong distances (each call must compute its own points)")
            return float("inf")
        best = min(best, took)
    return best
