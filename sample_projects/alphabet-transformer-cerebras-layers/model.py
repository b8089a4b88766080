"""Alphabet transformer built from the Cerebras Model Zoo layers API.

All tensors are batch-first ([batch, seq_len, ...]), which is the layout the
CS compiler expects, and masks are fp16 because attention runs in fp16 there.
"""
import math

import torch
import torch.nn as nn

from modelzoo.common.pytorch.layers import (
    EmbeddingLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from modelzoo.common.pytorch.PyTorchBaseModel import PyTorchBaseModel


class PositionalEncoding(nn.Module):
    """Fixed sinusoidal position table, stored batch-first: [1, max_len, d]."""

    def __init__(self, d_model, max_len):
        super().__init__()
        positions = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        frequencies = torch.exp(torch.arange(0, d_model, 2).float()
                                * (-math.log(10000.0) / d_model))
        table = torch.zeros(1, max_len, d_model)
        table[0, :, 0::2] = torch.sin(positions * frequencies)
        table[0, :, 1::2] = torch.cos(positions * frequencies)
        self.register_buffer("pe", table)

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]


def causal_mask(size):
    """Additive fp16 mask: position i may only look at positions <= i.

    Infinite values are avoided: in fp16 they turn into NaN as soon as a
    fully masked row is normalised, while the smallest finite fp16 value
    already drives the softmax weight to zero.
    """
    upper = torch.triu(torch.ones(size, size, dtype=torch.float16),
                       diagonal=1)
    return upper * torch.finfo(torch.float16).min


class AlphabetTransformer(nn.Module):
    def __init__(self, vocab_size, embedding_size, num_heads,
                 num_hidden_layers, hidden_size, dropout, nonlinearity,
                 seq_len):
        super().__init__()
        # Token lookup only; the sinusoidal table below is the same formula
        # as in the original project, so both produce the same numbers.
        self.embedding = EmbeddingLayer(
            vocab_size=vocab_size,
            embedding_size=embedding_size,
            position_embedding_type=None,
        )
        self.position = PositionalEncoding(embedding_size, max_len=seq_len)
        self.dropout = nn.Dropout(dropout)
        layer = TransformerEncoderLayer(
            d_model=embedding_size, nhead=num_heads,
            dim_feedforward=hidden_size, dropout=dropout,
            activation=nonlinearity, batch_first=True)
        self.encoder = TransformerEncoder(layer, num_layers=num_hidden_layers)
        self.head = nn.Linear(embedding_size, vocab_size)

    def forward(self, input_ids):
        """[batch, seq_len] int64 ids -> [batch, seq_len, vocab] logits."""
        x = self.dropout(self.position(self.embedding(input_ids)))
        mask = causal_mask(input_ids.size(1)).to(input_ids.device)
        return self.head(self.encoder(x, mask=mask))


class AlphabetTransformerWrapper(PyTorchBaseModel):
    def __init__(self, params, device=None):
        self.params = params
        self.vocab_size = params["model"]["vocab_size"]
        self.model = AlphabetTransformer(
            vocab_size=params["model"]["vocab_size"],
            embedding_size=params["model"]["embedding_size"],
            num_heads=params["model"]["num_heads"],
            num_hidden_layers=params["model"]["num_hidden_layers"],
            hidden_size=params["model"]["hidden_size"],
            dropout=params["model"]["dropout"],
            nonlinearity=params["model"]["nonlinearity"],
            seq_len=params["model"]["seq_len"],
        )
        self.loss_fn = nn.CrossEntropyLoss()
        super().__init__(params=params, model=self.model, device=device)

    def __call__(self, data):
        input_ids, labels = data
        logits = self.model(input_ids)
        return self.loss_fn(logits.reshape(-1, self.vocab_size),
                            labels.reshape(-1))
