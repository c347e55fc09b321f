import numpy as np


def decode_step(cache, x, layer):
    k, v = layer.k(x), layer.v(x)
    cache["k"] = np.vstack([cache["k"], k]) if "k" in cache else k[None, :]
    cache["v"] = np.vstack([cache["v"], v]) if "v" in cache else v[None, :]
    s = cache["k"] @ layer.q(x) / np.sqrt(x.shape[0])
    p = np.exp(s - s.max())
    return (p / p.sum()) @ cache["v"]
