import numpy as np


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):  # noqa: N803
    log_t = _log_softmax(teacher_logits / T)
    kl = (np.exp(log_t) * (log_t - _log_softmax(student_logits / T))).sum(axis=1)
    ce = -_log_softmax(student_logits)[np.arange(len(labels)), labels]
    return float(np.mean(alpha * T * T * kl + (1 - alpha) * ce))
