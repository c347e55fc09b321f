import numpy as np


class DynamicLossScaler:          # a static scale of 1: fp16 gradients underflow, overflows applied
    def __init__(self, init_scale=2.0 ** 16, growth=2.0, backoff=0.5, growth_interval=2000):
        self.scale = 1.0

    def scale_loss(self, loss):
        return loss

    def unscale(self, grads):
        return [g.astype(np.float32) for g in grads]
