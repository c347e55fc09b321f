"""Grades distillation_loss against a float64 reference on fresh logits, large ones included."""

import numpy as np


def _log_softmax(z):
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def _reference(s, t, y, T, alpha):  # noqa: N803 - T, the temperature
    p_t = np.exp(_log_softmax(t / T))
    kl = (p_t * (_log_softmax(t / T) - _log_softmax(s / T))).sum(1)
    ce = -_log_softmax(s)[np.arange(len(y)), y]
    return float((alpha * T * T * kl + (1 - alpha) * ce).mean())


def grade(g):
    fn = g.learner("kd").distillation_loss
    rng = np.random.default_rng(g.seed)
    cases = [(1.0, 0.5, 1.0), (4.0, 0.7, 1.0), (2.0, 1.0, 1.0), (3.0, 0.0, 1.0), (4.0, 0.5, 300.0)]
    worst = 0.0
    for i, (T, alpha, size) in enumerate(cases):
        n, k = 16 + i, 10
        s = rng.normal(size=(n, k)) * size
        t = rng.normal(size=(n, k)) * size
        y = rng.integers(0, k, size=n)
        want = _reference(s, t, y, T, alpha)
        with np.errstate(all="ignore"):
            got = float(fn(s.copy(), t.copy(), y.copy(), T=T, alpha=alpha))
        rel = abs(got - want) / max(abs(want), 1e-12) if np.isfinite(got) else float("inf")
        worst = max(worst, rel)
        label = "large-logits" if size > 1 else f"T{T:g}-alpha{alpha:g}"
        detail = f"T={T:g}, alpha={alpha:g}, logits x{size:g}: got {got!r}, expected {want!r}"
        if not g.check(label, rel <= 1e-6, detail):
            return
    g.figure("worst_relative_error", worst)
