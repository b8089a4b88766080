"""Model Zoo metrics (stand-in, R1.6-R1.8): accumulated on the host, reported at eval."""
import math

import torch

_metrics = []


def compute_all_metrics():
    """{name: value} of every metric updated in this run."""
    return {m.name: m.compute() for m in _metrics if m.count}


class CBMetric:
    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.reset()
        _metrics.append(self)

    def reset(self):
        self.total = 0.0
        self.count = 0.0

    def compute(self):
        return self.total / self.count if self.count else 0.0

    def __call__(self, *args, **kwargs):
        return self.update(*args, **kwargs)


class AccuracyMetric(CBMetric):
    def update(self, labels, predictions, weights=None, dtype=None):
        correct = (labels == predictions).float()
        w = torch.ones_like(correct) if weights is None else weights.float()
        self.total += float((correct * w).sum())
        self.count += float(w.sum())


class PerplexityMetric(CBMetric):
    def update(self, labels, loss, weights=None, dtype=None):
        n = float(labels.numel() if weights is None else weights.float().sum())
        self.total += float(loss) * (n if loss.numel() == 1 else 1.0)
        self.count += n

    def compute(self):
        return math.exp(self.total / self.count) if self.count else 0.0
