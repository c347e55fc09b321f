import numpy as np


def distillation_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.5):  # noqa: N803
    # softmax straight from exp (overflows for large logits) and no T**2 factor
    def softmax(z):
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)
    p_t, p_s = softmax(teacher_logits / T), softmax(student_logits / T)
    kl = (p_t * np.log(p_t / p_s)).sum(axis=1)
    ce = -np.log(softmax(student_logits)[np.arange(len(labels)), labels])
    return float(np.mean(alpha * kl + (1 - alpha) * ce))
