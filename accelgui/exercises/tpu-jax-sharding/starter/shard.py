"""Data parallelism with jax.sharding: the batch split over a mesh of devices, weights replicated.

The grader runs this on 8 CPU devices emulated by XLA (--xla_force_host_platform_device_count=8),
the way TPU code is developed without a TPU.
"""

import jax  # noqa: F401
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: F401


def sharded_matmul(x, w, mesh):
    """x (batch, k) @ w (k, n) computed with x split along the batch over the mesh axis "data"
    and w replicated on every device; the result stays split along the batch.

    TODO: jax.device_put(x, NamedSharding(mesh, P("data", None))), w with P() (replicated),
    then a jax.jit-compiled matmul; return the jax.Array (do not gather it to one device).
    """
    raise NotImplementedError("write sharded_matmul")
