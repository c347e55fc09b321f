"""One decoding step of causal self-attention with a key-value cache, in NumPy."""

import numpy as np  # noqa: F401


def decode_step(cache, x, layer):
    """The attention output (a vector of size d) of the new token ``x`` (size d) over every
    token so far, itself included, for one attention head of width d:
        softmax(q . K^T / sqrt(d)) V,  q = layer.q(x), K and V the keys and values of all tokens.

    ``layer.q``, ``layer.k`` and ``layer.v`` project one token (d,) or rows of tokens (n, d).
    ``cache`` is a dict you keep from one call to the next (empty before the first token).

    TODO: project only the new token with layer.k / layer.v and append the results to the
    cache (re-projecting past tokens at every step is what makes decoding quadratic); compute
    the softmax stably (subtract the maximum).
    """
    raise NotImplementedError("write decode_step")
