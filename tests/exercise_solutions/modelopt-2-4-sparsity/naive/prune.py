import numpy as np


def prune_2_4(w):          # 50 % unstructured magnitude pruning: right sparsity, wrong pattern
    out = np.array(w, copy=True)
    out[np.abs(out) < np.median(np.abs(out))] = 0
    return out
