import numpy as np


class DynamicLossScaler:
    def __init__(self, init_scale=2.0 ** 16, growth=2.0, backoff=0.5, growth_interval=2000):
        self.scale = float(init_scale)
        self.growth, self.backoff, self.interval = growth, backoff, growth_interval
        self.good = 0

    def scale_loss(self, loss):
        return loss * self.scale

    def unscale(self, grads):
        if not all(np.isfinite(g).all() for g in grads):
            self.scale *= self.backoff
            self.good = 0
            return None
        out = [g.astype(np.float32) / np.float32(self.scale) for g in grads]
        self.good += 1
        if self.good == self.interval:
            self.scale *= self.growth
            self.good = 0
        return out
