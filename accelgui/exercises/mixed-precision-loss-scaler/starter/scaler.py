"""Dynamic loss scaling for fp16 training, the scheme of torch.amp.GradScaler."""

import numpy as np  # noqa: F401


class DynamicLossScaler:
    """Multiply the loss by ``scale`` before the backward pass; divide the fp16 gradients by it.

    - ``unscale(grads)``: ``grads`` is a list of float16 arrays (the gradients of the scaled
      loss). When any holds inf or NaN: halve the scale (times ``backoff``), reset the count of
      good steps and return None (the step is skipped). Else return the gradients divided by
      the scale as float32, and after ``growth_interval`` good steps in a row double the scale
      (times ``growth``) and start counting again.
    """

    def __init__(self, init_scale=2.0 ** 16, growth=2.0, backoff=0.5, growth_interval=2000):
        self.scale = float(init_scale)
        # TODO: keep the other settings and a count of good steps

    def scale_loss(self, loss):
        """The loss times the current scale."""
        raise NotImplementedError("write scale_loss")

    def unscale(self, grads):
        """float32 gradients divided by the scale, or None when the step must be skipped."""
        raise NotImplementedError("write unscale")
