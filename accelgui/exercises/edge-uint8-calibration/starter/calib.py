"""Affine (asymmetric) uint8 quantisation of activations: real = (q - zero_point) * scale."""

import numpy as np  # noqa: F401


def calibrate(samples):
    """(scale, zero_point) from calibration ``samples`` (any float array).

    TODO: take the range [min, max] of the samples, widened to include 0 (zero must be exactly
    representable: padding and ReLU outputs are zeros); scale = (max - min) / 255;
    zero_point = the integer in [0, 255] that 0.0 maps to.
    """
    raise NotImplementedError("write calibrate")


def quantize(x, scale, zero_point):
    """uint8 codes of ``x``: round(x / scale) + zero_point, clipped to [0, 255]."""
    raise NotImplementedError("write quantize")


def dequantize(q, scale, zero_point):
    """float32 values of the codes ``q``."""
    raise NotImplementedError("write dequantize")
