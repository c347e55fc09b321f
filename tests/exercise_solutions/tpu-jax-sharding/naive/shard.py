import jax.numpy as jnp


def sharded_matmul(x, w, mesh):        # right values, all on one device
    return jnp.dot(x, w)
