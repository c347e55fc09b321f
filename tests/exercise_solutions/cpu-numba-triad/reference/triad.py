from numba import njit, prange


@njit(parallel=True, cache=False)
def triad(a, b, c, s):
    for i in prange(a.size):
        a[i] = b[i] + s * c[i]
    return a
