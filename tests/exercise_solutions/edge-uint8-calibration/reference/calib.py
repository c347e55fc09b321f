import numpy as np


def calibrate(samples):
    lo, hi = min(float(np.min(samples)), 0.0), max(float(np.max(samples)), 0.0)
    scale = (hi - lo) / 255 if hi > lo else 1.0
    return scale, int(np.clip(round(-lo / scale), 0, 255))


def quantize(x, scale, zero_point):
    return np.clip(np.rint(np.asarray(x, np.float64) / scale) + zero_point, 0, 255).astype(np.uint8)


def dequantize(q, scale, zero_point):
    return ((np.asarray(q, np.int32) - zero_point) * scale).astype(np.float32)
