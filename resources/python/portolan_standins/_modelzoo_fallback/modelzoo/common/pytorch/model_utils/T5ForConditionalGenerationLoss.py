"""modelzoo.common.pytorch.model_utils.T5ForConditionalGenerationLoss (stand-in, Model Zoo
R1.6-R1.8)."""
import torch.nn as nn


class T5ForConditionalGenerationLoss(nn.Module):
    """Token cross-entropy (with optional label smoothing) over the decoder positions the mask
    keeps, summed, divided by the batch size, and multiplied by a loss weight: the one given to
    forward(), else lm_loss_weight. `mlm_loss_scaling` names how the caller chose the weight."""

    def __init__(self, lm_loss_weight, mlm_loss_scaling, label_smoothing=0.0):
        super().__init__()
        self.global_loss_weight = lm_loss_weight
        self.mlm_loss_scaling = mlm_loss_scaling
        self.label_smoothing = label_smoothing

    def forward(self, lm_logits, labels, decoder_attention_mask, loss_weight=None):
        per_token = nn.functional.cross_entropy(
            lm_logits.reshape(-1, lm_logits.shape[-1]), labels.reshape(-1).long(),
            reduction="none", label_smoothing=self.label_smoothing)
        kept = per_token * decoder_attention_mask.reshape(-1).to(per_token.dtype)
        loss = kept.sum() / labels.shape[0]
        weight = loss_weight if loss_weight is not None else self.global_loss_weight
        return loss * weight if weight is not None else loss
