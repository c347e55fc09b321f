"""Grades prune_2_4 on fresh random matrices: the 2:4 pattern, the weights kept, the input intact."""

import numpy as np


def grade(g):
    fn = g.learner("prune").prune_2_4
    rng = np.random.default_rng(g.seed)
    ratios = []
    for shape in ((4, 8), (64, 256), (33, 132)):
        w = rng.normal(size=shape).astype(np.float32)
        w[0, :4] = [0.0, 3.0, -3.0, 0.5]            # a group with a zero and equal magnitudes
        original = w.copy()
        p = np.asarray(fn(w))
        if not g.check(f"unchanged-input-{shape[0]}x{shape[1]}", np.array_equal(w, original),
                       "the input matrix was modified"):
            return
        if not g.check(f"shape-{shape[0]}x{shape[1]}", p.shape == w.shape, f"shape {p.shape}, expected {w.shape}"):
            return
        groups = p.reshape(shape[0], -1, 4)
        zeros = (groups == 0).sum(-1)
        if not g.check(f"pattern-{shape[0]}x{shape[1]}", bool((zeros >= 2).all()),
                       f"{int((zeros < 2).sum())} groups of 4 have fewer than 2 zeros"):
            return
        kept = p != 0
        if not g.check(f"values-{shape[0]}x{shape[1]}", np.array_equal(p[kept], w[kept]),
                       "kept weights must keep their values"):
            return
        best = np.sort(np.abs(w).reshape(shape[0], -1, 4), -1)[..., 2:].sum()
        ratios.append(float(np.abs(p).sum() / best))
    g.figure("kept_magnitude_pct", 100 * min(ratios))
    g.figure("sparsity", float((p == 0).mean()))
