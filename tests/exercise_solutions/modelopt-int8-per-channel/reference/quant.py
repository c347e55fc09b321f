import numpy as np


def quantize_per_channel(w):
    scale = np.abs(w).max(axis=1) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def dequantize(q, scale):
    return q.astype(np.float32) * scale[:, None]
