import numpy as np


def pairwise_sq_distances(X, Y):  # noqa: N803
    sq = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * (X @ Y.T)
    return np.maximum(sq, 0.0)
