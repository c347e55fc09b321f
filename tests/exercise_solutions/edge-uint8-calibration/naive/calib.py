import numpy as np


def calibrate(samples):                 # the symmetric int8 recipe: zero point 0
    return float(np.abs(samples).max()) / 127, 0


def quantize(x, scale, zero_point):
    return (np.rint(np.asarray(x) / scale) + zero_point).astype(np.int64).astype(np.uint8)


def dequantize(q, scale, zero_point):
    return ((np.asarray(q, np.int32) - zero_point) * scale).astype(np.float32)
