"""modelzoo.common.pytorch.model_utils.BertPretrainModelLoss (stand-in, Model Zoo R1.6-R1.8)."""
import torch
import torch.nn as nn


class BertPretrainModelLoss(nn.Module):
    """Masked-LM cross-entropy weighted per position by `mlm_weights` (and scaled by
    `mlm_loss_scale` when given, else by mlm_loss_weight over the batch), plus the
    next-sentence-prediction cross-entropy unless disabled."""

    def __init__(self, disable_nsp=False, mlm_loss_weight=1.0, label_smoothing=0.0):
        super().__init__()
        self.disable_nsp = disable_nsp
        self.mlm_loss_weight = mlm_loss_weight
        self.label_smoothing = label_smoothing

    def forward(self, mlm_logits, vocab_size, mlm_labels, nsp_logits, nsp_labels, mlm_weights,
                mlm_loss_scale=None):
        per_position = nn.functional.cross_entropy(
            mlm_logits.reshape(-1, vocab_size), mlm_labels.reshape(-1).long(), reduction="none",
            label_smoothing=self.label_smoothing)
        weighted = per_position * mlm_weights.reshape(-1).to(per_position.dtype)
        if mlm_loss_scale is not None:
            mlm_loss = (weighted * mlm_loss_scale.to(weighted.dtype)).sum()
        else:
            mlm_loss = weighted.sum() * self.mlm_loss_weight / mlm_labels.shape[0]
        if self.disable_nsp or nsp_logits is None:
            return mlm_loss
        nsp_loss = nn.functional.cross_entropy(nsp_logits.reshape(-1, 2),
                                               nsp_labels.reshape(-1).long())
        return mlm_loss + nsp_loss
