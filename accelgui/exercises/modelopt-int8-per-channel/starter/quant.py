"""Symmetric int8 quantisation of a weight matrix, one scale per output channel (row)."""

import numpy as np  # noqa: F401


def quantize_per_channel(w):
    """(q, scale) for a float32 weight matrix ``w`` of shape (out, in): ``q`` int8 in
    [-127, 127] and ``scale`` float32 of shape (out,), with ``w ~= q * scale[:, None]``.

    TODO: one scale per row (max |w| of the row / 127; a row of zeros needs a scale too),
    q = round(w / scale) clipped to [-127, 127], as int8.
    """
    raise NotImplementedError("write quantize_per_channel")


def dequantize(q, scale):
    """The float32 matrix that (q, scale) stands for."""
    raise NotImplementedError("write dequantize")
