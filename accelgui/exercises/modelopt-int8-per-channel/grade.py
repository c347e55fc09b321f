"""Grades the int8 quantiser on a small MLP built here whose hidden units differ in scale."""

import numpy as np


def _model(rng, d=128, hidden=256, classes=10):
    w1 = rng.normal(size=(hidden, d)).astype(np.float32) / float(np.sqrt(d))
    w2 = rng.normal(size=(classes, hidden)).astype(np.float32) / float(np.sqrt(hidden))
    # ReLU is positively homogeneous: scaling a hidden unit's row by s and its column of w2 by
    # 1/s leaves the function unchanged, but spreads the rows of w1 over three decades, as in
    # trained networks whose channels differ in magnitude.
    s = np.exp(rng.uniform(np.log(1e-3), 0, size=hidden)).astype(np.float32)
    return w1 * s[:, None], w2 / s[None, :]


def _predict(w1, w2, x):
    return (np.maximum(x @ w1.T, 0) @ w2.T).argmax(1)


def grade(g):
    mod = g.learner("quant")
    rng = np.random.default_rng(g.seed)
    w1, w2 = _model(rng)
    original = w1.copy()
    q, scale = mod.quantize_per_channel(w1)
    q, scale = np.asarray(q), np.asarray(scale)
    if not g.check("unchanged-input", np.array_equal(w1, original), "the input weights were modified"):
        return
    if not g.check("int8", q.dtype == np.int8 and q.shape == w1.shape and np.abs(q.astype(int)).max() <= 127,
                   f"q must be int8 of shape {w1.shape} within [-127, 127] (got {q.dtype} {q.shape})"):
        return
    if not g.check("one-scale-per-row", scale.shape == (w1.shape[0],) and np.all(scale > 0),
                   f"scale must have shape ({w1.shape[0]},) and be positive (got {scale.shape})"):
        return
    back = np.asarray(mod.dequantize(q, scale), dtype=np.float32)
    err = np.abs(back - w1).max(1) / np.maximum(np.abs(w1).max(1), 1e-30)
    g.check("rounding", err.max() <= 0.5 / 127 * 1.01,
            f"worst row error {err.max():.4g} of its largest weight (rounding allows {0.5 / 127:.4g})")
    zero = np.zeros((2, 8), np.float32)
    zq, zs = mod.quantize_per_channel(zero)
    g.check("zero-rows", np.all(np.isfinite(np.asarray(mod.dequantize(np.asarray(zq), np.asarray(zs))))),
            "a row of zeros gave a non-finite result (division by a zero scale?)")
    x = rng.normal(size=(4000, w1.shape[1])).astype(np.float32)
    labels = _predict(w1, w2, x)        # the float model is the reference
    agree = float((_predict(back, w2, x) == labels).mean())
    g.figure("agreement_with_float", agree)
    g.figure("accuracy_drop_points", 100 * (1 - agree))
    g.figure("compression", w1.nbytes / (q.nbytes + np.asarray(scale, np.float32).nbytes))
