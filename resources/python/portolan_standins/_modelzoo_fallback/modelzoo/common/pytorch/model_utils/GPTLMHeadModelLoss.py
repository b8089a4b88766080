"""modelzoo.common.pytorch.model_utils.GPTLMHeadModelLoss (stand-in, Model Zoo R1.6-R1.8)."""
import torch
import torch.nn as nn


class GPTLMHeadModelLoss(nn.Module):
    """Next-token cross-entropy over the tokens the attention mask keeps, divided by the number
    of those tokens (`loss_scaling: num_tokens`, with loss_weight 1) or by the batch size and
    multiplied by `loss_weight` (`loss_scaling: batch_size`)."""

    def __init__(self, vocab_size, loss_scaling, loss_weight):
        super().__init__()
        if loss_scaling not in ("num_tokens", "batch_size"):
            raise ValueError(f"Loss scaling can't be set to {loss_scaling}: 'num_tokens' or "
                             "'batch_size'")
        if loss_scaling == "num_tokens" and loss_weight != 1.0:
            raise ValueError("Loss scaling with 'num_tokens' requires loss_weight == 1.0")
        self.vocab_size = vocab_size
        self.loss_scaling = loss_scaling
        self.loss_weight = loss_weight

    def forward(self, lm_logits, labels, attention_mask):
        per_token = nn.functional.cross_entropy(
            lm_logits.reshape(-1, self.vocab_size), labels.reshape(-1).long(), reduction="none")
        mask = attention_mask.reshape(-1).to(per_token.dtype)
        total = (per_token * mask).sum()
        if self.loss_scaling == "num_tokens":
            return total / torch.clamp(mask.sum(), min=1.0)
        return total / labels.shape[0] * self.loss_weight
