"""STREAM triad with Numba: a[i] = b[i] + s * c[i], on every core of this machine."""

import numpy as np  # noqa: F401
from numba import njit, prange  # noqa: F401


def triad(a, b, c, s):
    """Write b + s * c into ``a`` (float64 arrays of one length) and return ``a``.

    TODO: compile this function with @njit(parallel=True) and loop over the elements with
    prange, writing into ``a`` (no temporary arrays: they cost memory bandwidth).
    """
    raise NotImplementedError("write the triad kernel")
