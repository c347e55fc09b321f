"""Squared Euclidean distances between two sets of points, vectorised with NumPy."""

import numpy as np  # noqa: F401


def pairwise_sq_distances(X, Y):  # noqa: N803 - the names of the maths
    """The (n, m) array of squared distances between the rows of X (n, d) and Y (m, d).

    TODO: no Python loops. Use broadcasting, or the identity
    |x - y|^2 = |x|^2 + |y|^2 - 2 x.y (one matrix product), and keep the result >= 0.
    """
    raise NotImplementedError("write pairwise_sq_distances")
