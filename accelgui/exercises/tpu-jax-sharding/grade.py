"""Grades sharded_matmul on 8 emulated CPU devices: the values, and how the result is laid out."""

import os

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
os.environ["JAX_PLATFORMS"] = "cpu"


def grade(g):
    import jax
    import numpy as np
    from jax.sharding import Mesh

    if not g.check("eight-devices", len(jax.devices()) == 8, f"XLA gave {len(jax.devices())} CPU devices, not 8"):
        return
    fn = g.learner("shard").sharded_matmul
    mesh = Mesh(np.array(jax.devices()), ("data",))
    rng = np.random.default_rng(g.seed)
    batch = 8 * int(rng.integers(2, 9))
    x = rng.normal(size=(batch, 48)).astype(np.float32)
    w = rng.normal(size=(48, 24)).astype(np.float32)
    out = fn(x, w, mesh)
    if not g.check("returns-a-jax-array", isinstance(out, jax.Array), f"got {type(out).__name__}, not a jax.Array"):
        return
    g.check("values", np.allclose(np.asarray(out), x @ w, rtol=1e-4, atol=1e-4), "the product is wrong")
    shards = out.addressable_shards
    devices = {s.device for s in shards}
    rows = sorted((s.index[0].start or 0) for s in shards)
    g.check("split-over-8", len(shards) == 8 and len(devices) == 8
            and all(s.data.shape == (batch // 8, 24) for s in shards)
            and rows == list(range(0, batch, batch // 8)),
            f"the result is not split along the batch over 8 devices (shards: {[tuple(s.data.shape) for s in shards]})")
    g.figure("devices", len(devices))
    g.figure("rows_per_device", batch // 8)
