"""Grades decode_step(): each output against full causal attention, and how many rows of keys
and values the learner's code asked the layer to project."""

import numpy as np


class Layer:
    """One attention head's projections, counting the rows each is asked to project."""

    def __init__(self, rng, d):
        self.wq, self.wk, self.wv = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))
        self.rows = {"q": 0, "k": 0, "v": 0}

    def _project(self, name, w, x):
        x = np.asarray(x, dtype=np.float64)
        self.rows[name] += 1 if x.ndim == 1 else x.shape[0]
        return x @ w

    def q(self, x):
        return self._project("q", self.wq, x)

    def k(self, x):
        return self._project("k", self.wk, x)

    def v(self, x):
        return self._project("v", self.wv, x)


class _Projections:
    """What the learner's code gets: the three projections, not the counts or the weights."""

    __slots__ = ("q", "k", "v")

    def __init__(self, layer):
        self.q = lambda x: layer.q(x)
        self.k = lambda x: layer.k(x)
        self.v = lambda x: layer.v(x)


def _attention(layer, xs):
    q, k, v = xs[-1] @ layer.wq, xs @ layer.wk, xs @ layer.wv
    s = k @ q / np.sqrt(xs.shape[1])
    p = np.exp(s - s.max())
    return (p / p.sum()) @ v


def grade(g):
    fn = g.learner("kv_cache").decode_step
    rng = np.random.default_rng(g.seed)
    d, steps = 32, 48 + int(rng.integers(0, 16))
    layer, cache = Layer(rng, d), {}
    xs = rng.normal(size=(steps, d)) * 4          # large enough that an unstable softmax overflows
    xs[steps // 2] *= 60
    view = _Projections(layer)
    for t in range(steps):
        out = np.asarray(fn(cache, xs[t].copy(), view), dtype=np.float64)
        want = _attention(layer, xs[: t + 1])
        if not g.check(f"output-step{t}", out.shape == (d,) and np.allclose(out, want, rtol=1e-9, atol=1e-9),
                       f"step {t}: the output differs from causal attention over the {t + 1} tokens so far"):
            return
    g.check("projects-every-token", min(layer.rows["k"], layer.rows["v"]) >= steps,
            "every token's key and value must come from layer.k and layer.v")
    g.figure("tokens", steps)
    g.figure("projected_rows_per_token", max(layer.rows["k"], layer.rows["v"]) / steps)
