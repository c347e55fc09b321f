import numpy as np


def decode_step(cache, x, layer):      # keeps the tokens, re-projects all of them every step
    cache["x"] = np.vstack([cache["x"], x]) if "x" in cache else x[None, :]
    k, v = layer.k(cache["x"]), layer.v(cache["x"])
    s = k @ layer.q(x) / np.sqrt(x.shape[0])
    p = np.exp(s - s.max())
    return (p / p.sum()) @ v
