"""cstorch.metrics (stand-in following cerebras.pytorch R2.1-R2.4).

A metric is a torch.nn.Module called with the model's outputs (labels=, predictions=, ...)
during evaluation; compute() gives its value. get_all_metrics / compute_all_metrics are what
Model Zoo's eval loop reads.
"""
import math

import torch

_registry = {}


class Metric(torch.nn.Module):
    def __init__(self, name=None):
        super().__init__()
        self.name = name or type(self).__name__
        _registry[self.name] = self
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0.0

    def compute(self):
        return self.total / self.count if self.count else float("nan")

    def forward(self, *args, **kwargs):
        self.update(*args, **kwargs)


class AccuracyMetric(Metric):
    def update(self, labels, predictions, weights=None, dtype=None):
        with torch.no_grad():
            hit = (labels == predictions).float()
            w = torch.ones_like(hit) if weights is None else weights.float()
            self.total += float((hit * w).sum())
            self.count += float(w.sum())


class PerplexityMetric(Metric):
    def update(self, labels, loss, weights=None, dtype=None):
        with torch.no_grad():
            w = torch.ones_like(labels, dtype=torch.float) if weights is None else \
                weights.float()
            self.total += float(loss) if loss.dim() == 0 else float((loss * w).sum())
            self.count += float(w.sum())

    def compute(self):
        return math.exp(super().compute()) if self.count else float("nan")


def get_all_metrics():
    return dict(_registry)


def compute_all_metrics():
    return {name: m.compute() for name, m in _registry.items()}
