"""Grades uint8 calibration on fresh activations of three shapes of distribution."""

import numpy as np


def grade(g):
    mod = g.learner("calib")
    rng = np.random.default_rng(g.seed)
    worst = 0.0
    cases = {"relu": np.maximum(rng.normal(1.0, 2.0, 20000), 0),
             "skewed": rng.gamma(2.0, 1.5, 20000) - 0.7,
             "negative": -rng.uniform(0.5, 3.0, 20000)}
    for name, x in cases.items():
        x = x.astype(np.float32)
        scale, zp = mod.calibrate(x[:5000])
        scale, zp = float(scale), zp
        if not g.check(f"zero-point-{name}", float(zp).is_integer() and 0 <= int(zp) <= 255,
                       f"zero_point must be an integer in [0, 255] (got {zp!r})"):
            return
        zp = int(zp)
        lo, hi = min(float(x[:5000].min()), 0.0), max(float(x[:5000].max()), 0.0)
        best = (hi - lo) / 255
        q = np.asarray(mod.quantize(x, scale, zp))
        if not g.check(f"uint8-{name}", q.dtype == np.uint8 and q.shape == x.shape,
                       f"quantize must return uint8 codes of shape {x.shape} (got {q.dtype} {q.shape})"):
            return
        back = np.asarray(mod.dequantize(q, scale, zp), dtype=np.float64)
        zero = float(np.asarray(mod.dequantize(np.asarray(mod.quantize(np.zeros(1, np.float32), scale, zp)),
                                               scale, zp))[0])
        g.check(f"zero-exact-{name}", zero == 0.0, f"0.0 comes back as {zero!r}")
        inside = (x >= lo) & (x <= hi)
        err = float(np.abs(back[inside] - x[inside]).max()) / best
        worst = max(worst, err)
        over = np.array([hi * 10 + 1, lo * 10 - 1], np.float32)
        codes = np.asarray(mod.quantize(over, scale, zp)).astype(int).tolist()
        g.check(f"clips-{name}", codes == [255, 0], f"values beyond the range gave codes {codes}, expected [255, 0]")
    g.figure("worst_error_in_steps", worst)
