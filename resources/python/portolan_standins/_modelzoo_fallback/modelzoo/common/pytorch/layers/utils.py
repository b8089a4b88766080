"""modelzoo.common.pytorch.layers.utils (stand-in, Model Zoo R1.6-R1.8)."""
import copy

import torch.nn as nn

from ._impl import RelativePositionEmbeddingLayer, _activation


def _get_clones(module, N):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    return _activation(activation)


def apply_loss_reduction(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def apply_position_bias(embedding_helper, seq_length, key_length, past_kv=None):
    """The self-attention bias of a relative-position helper (T5's), else None (rotary and
    learned positions bias nothing here)."""
    if isinstance(embedding_helper, RelativePositionEmbeddingLayer):
        return embedding_helper(seq_length, key_length, past_kv=past_kv)
    return None
