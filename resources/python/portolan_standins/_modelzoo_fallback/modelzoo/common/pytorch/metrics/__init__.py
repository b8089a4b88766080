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


class _ConfusionMetric(CBMetric):
    """Accumulates a num_classes x num_classes confusion matrix (rows: labels) on the host."""

    def __init__(self, num_classes, name=None):
        if num_classes <= 1:
            raise ValueError(f"num_classes must be greater than 1, got {num_classes}")
        self.num_classes = num_classes
        super().__init__(name)

    def reset(self):
        super().reset()
        self.confusion = torch.zeros(self.num_classes, self.num_classes, dtype=torch.float64)

    def update(self, labels, predictions, weights=None, dtype=None):
        labels = labels.reshape(-1).long()
        predictions = predictions.reshape(-1).long()
        w = torch.ones(labels.shape, dtype=torch.float64) if weights is None else \
            weights.reshape(-1).double()
        keep = (labels >= 0) & (labels < self.num_classes)
        index = labels[keep] * self.num_classes + predictions[keep].clamp(0, self.num_classes - 1)
        self.confusion += torch.bincount(index, weights=w[keep], minlength=self.num_classes ** 2) \
            .reshape(self.num_classes, self.num_classes)
        self.count += float(w[keep].sum())

    def _per_class(self):
        c = self.confusion
        true_pos = c.diag()
        return true_pos, c.sum(0) - true_pos, c.sum(1) - true_pos  # tp, fp, fn


class MeanIOUMetric(_ConfusionMetric):
    """Intersection over union per class (tp / (tp + fp + fn)), averaged over present classes."""

    def compute(self):
        tp, fp, fn = self._per_class()
        union = tp + fp + fn
        present = union > 0
        return float((tp[present] / union[present]).mean()) if present.any() else 0.0


class DiceCoefficientMetric(_ConfusionMetric):
    """Dice per class (2 tp / (2 tp + fp + fn)), averaged over present classes."""

    def compute(self):
        tp, fp, fn = self._per_class()
        denominator = 2 * tp + fp + fn
        present = denominator > 0
        return float((2 * tp[present] / denominator[present]).mean()) if present.any() else 0.0


class FBetaScoreMetric(_ConfusionMetric):
    """F-beta over the classes not ignored: "micro" pools the counts, "macro" averages the
    per-class scores."""

    def __init__(self, num_classes, beta=1.0, average_type="micro", ignore_labels=None,
                 name=None):
        if beta <= 0:
            raise ValueError(f"beta must be positive, got {beta}")
        if average_type not in ("micro", "macro"):
            raise ValueError(f"average_type must be 'micro' or 'macro', got {average_type}")
        self.beta = beta
        self.average_type = average_type
        self.ignore_labels = list(ignore_labels or [])
        super().__init__(num_classes, name)

    def compute(self):
        tp, fp, fn = self._per_class()
        keep = [i for i in range(self.num_classes) if i not in self.ignore_labels]
        tp, fp, fn = tp[keep], fp[keep], fn[keep]
        b2 = self.beta ** 2

        def score(tp, fp, fn):
            denominator = (1 + b2) * tp + b2 * fn + fp
            return torch.where(denominator > 0, (1 + b2) * tp / denominator.clamp(min=1e-12),
                               torch.zeros_like(denominator))

        if self.average_type == "micro":
            return float(score(tp.sum(), fp.sum(), fn.sum()))
        return float(score(tp, fp, fn).mean())


class RougeScoreMetric(CBMetric):
    """ROUGE-N (n = max_n) F1 between predicted and label token ids, over the positions
    cls_weights keeps; vocab_file names the vocabulary the ids come from."""

    def __init__(self, vocab_file, max_n=1, name=None):
        self.vocab_file = vocab_file
        self.max_n = max_n
        super().__init__(name)

    def reset(self):
        super().reset()
        self.matched = self.reference = self.hypothesis = 0.0

    def _ngrams(self, ids):
        n = self.max_n
        grams = {}
        for i in range(len(ids) - n + 1):
            key = tuple(ids[i:i + n])
            grams[key] = grams.get(key, 0) + 1
        return grams

    def update(self, labels, predictions, cls_indices=None, cls_weights=None, input_ids=None):
        labels = labels.reshape(labels.shape[0], -1)
        predictions = predictions.reshape(predictions.shape[0], -1)
        for row in range(labels.shape[0]):
            keep = slice(None)
            if cls_weights is not None:
                keep = cls_weights.reshape(labels.shape[0], -1)[row] > 0
            ref = self._ngrams(labels[row][keep].tolist())
            hyp = self._ngrams(predictions[row][keep].tolist())
            self.matched += sum(min(c, hyp.get(g, 0)) for g, c in ref.items())
            self.reference += sum(ref.values())
            self.hypothesis += sum(hyp.values())
        self.count += labels.shape[0]

    def compute(self):
        if not self.reference or not self.hypothesis:
            return 0.0
        recall = self.matched / self.reference
        precision = self.matched / self.hypothesis
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
