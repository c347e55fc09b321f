import numpy as np


def quantize_per_channel(w):        # one scale for the whole tensor, repeated per row
    s = max(float(np.abs(w).max()) / 127.0, 1e-12)
    q = np.clip(np.rint(w / s), -127, 127).astype(np.int8)
    return q, np.full(w.shape[0], s, np.float32)


def dequantize(q, scale):
    return q.astype(np.float32) * scale[:, None]
