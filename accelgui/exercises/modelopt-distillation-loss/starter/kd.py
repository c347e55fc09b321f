"""The knowledge-distillation loss of Hinton et al. (2015), in NumPy."""

import numpy as np  # noqa: F401


def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):  # noqa: N803
    """Mean over the batch of
        alpha * T**2 * KL(softmax(teacher / T) || softmax(student / T))
        + (1 - alpha) * cross_entropy(softmax(student), labels)
    for logits of shape (batch, classes) and integer labels of shape (batch,).

    TODO: use log-softmax computed stably (subtract the row maximum), so that logits of
    size 1000 give a finite loss; do not forget the T**2 factor.
    """
    raise NotImplementedError("write distillation_loss")
