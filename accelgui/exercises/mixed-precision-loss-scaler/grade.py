"""Grades the loss scaler in a simulated fp16 training loop whose true gradients the grader knows."""

import numpy as np


def _expected_scales(init, events, interval):
    scale, good, out = init, 0, []
    for overflow in events:
        if overflow:
            scale, good = scale * 0.5, 0
        else:
            good += 1
            if good == interval:
                scale, good = scale * 2.0, 0
        out.append(scale)
    return out


def grade(g):
    cls = g.learner("scaler").DynamicLossScaler
    rng = np.random.default_rng(g.seed)
    interval = int(rng.integers(3, 7))
    init = 2.0 ** int(rng.integers(10, 15))      # below 2**27 after 13 doublings: no real overflow
    scaler = cls(init_scale=init, growth=2.0, backoff=0.5, growth_interval=interval)
    loss = float(rng.uniform(0.5, 2.0))
    if not g.check("scale-loss", abs(float(scaler.scale_loss(loss)) - loss * init) <= 1e-6 * loss * init,
                   "scale_loss must multiply the loss by the scale"):
        return
    events = [bool(e) for e in rng.random(40) < 0.15]
    true = [np.exp(rng.uniform(np.log(1e-8), np.log(1e-4), 5000)) * rng.choice([-1, 1], 5000) for _ in events]
    want = _expected_scales(init, events, interval)
    # what a correct scaler brings back on the same steps (its scale follows ``want``): at a low
    # scale even a correct one loses the smallest gradients, so the learner is measured against it
    recovered, ideal, total, skipped_ok = 0, 0, 0, True
    for step, (overflow, grad) in enumerate(zip(events, true)):
        scaled = (grad * scaler.scale).astype(np.float16)
        if overflow:
            scaled[int(rng.integers(0, scaled.size))] = np.float16(np.inf)
        out = scaler.unscale([scaled])
        if overflow:
            skipped_ok &= out is None
            continue
        if out is None:
            skipped_ok = False
            continue
        got = np.asarray(out[0], dtype=np.float64)
        small = np.abs(grad) < 6.1e-5              # below fp16's smallest normal number
        total += int(small.sum())
        recovered += int((np.abs(got[small] - grad[small]) <= 1e-2 * np.abs(grad[small])).sum())
        before = init if step == 0 else want[step - 1]
        right = ((grad * before).astype(np.float16).astype(np.float32) / np.float32(before)).astype(np.float64)
        ideal += int((np.abs(right[small] - grad[small]) <= 1e-2 * np.abs(grad[small])).sum())
        g.check(f"float32-step{step}", np.asarray(out[0]).dtype == np.float32, "unscaled gradients must be float32")
        if g.failed:
            return
    g.check("skips-overflow", skipped_ok, "unscale must return None exactly on the steps with inf/NaN")
    g.check("scale-schedule", abs(scaler.scale - want[-1]) <= 1e-9 * want[-1],
            f"after 40 steps the scale is {scaler.scale:g}; halving on overflow and doubling after "
            f"{interval} good steps gives {want[-1]:g}")
    small = true[0][np.abs(true[0]) < 6.1e-5]
    plain = np.abs(small.astype(np.float16).astype(np.float64) - small) <= 1e-2 * np.abs(small)
    g.figure("recovered_pct", 100 * recovered / max(ideal, 1))
    g.figure("recovered_of_all_pct", 100 * recovered / max(total, 1))
    g.figure("unscaled_fp16_recovered_pct", 100 * float(plain.mean()))
