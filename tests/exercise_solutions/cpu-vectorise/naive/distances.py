import numpy as np


def pairwise_sq_distances(X, Y):  # noqa: N803
    out = np.empty((len(X), len(Y)))
    for i in range(len(X)):
        for j in range(len(Y)):
            out[i, j] = ((X[i] - Y[j]) ** 2).sum()
    return out
