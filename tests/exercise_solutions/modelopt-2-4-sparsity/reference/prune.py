import numpy as np


def prune_2_4(w):
    groups = np.array(w, copy=True).reshape(w.shape[0], -1, 4)
    smallest = np.argsort(np.abs(groups), axis=-1, kind="stable")[..., :2]
    np.put_along_axis(groups, smallest, 0, axis=-1)
    return groups.reshape(w.shape)
