"""A tiny causal transformer that predicts the next letter of the alphabet.

Tensors are sequence-first ([seq_len, batch, ...]), the torch.nn default.
"""
import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    """Fixed sinusoidal position table, stored as [max_len, 1, d_model]."""

    def __init__(self, d_model, max_len):
        super().__init__()
        positions = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        # Wavelengths grow geometrically from 2*pi to 10000*2*pi.
        frequencies = torch.exp(torch.arange(0, d_model, 2).float()
                                * (-math.log(10000.0) / d_model))
        table = torch.zeros(max_len, 1, d_model)
        table[:, 0, 0::2] = torch.sin(positions * frequencies)
        table[:, 0, 1::2] = torch.cos(positions * frequencies)
        self.register_buffer("pe", table)

    def forward(self, x):
        return x + self.pe[:x.size(0)]


def causal_mask(size):
    """Additive attention mask: position i may only look at positions <= i."""
    mask = torch.triu(torch.ones(size, size), diagonal=1)
    return mask.masked_fill(mask == 1, float("-inf"))


class AlphabetTransformer(nn.Module):
    def __init__(self, vocab_size, embedding_size, num_heads,
                 num_hidden_layers, hidden_size, dropout, nonlinearity,
                 seq_len):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_size)
        self.position = PositionalEncoding(embedding_size, max_len=seq_len)
        self.dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(
            d_model=embedding_size, nhead=num_heads,
            dim_feedforward=hidden_size, dropout=dropout,
            activation=nonlinearity)
        self.encoder = nn.TransformerEncoder(layer,
                                             num_layers=num_hidden_layers)
        self.head = nn.Linear(embedding_size, vocab_size)

    def forward(self, tokens):
        """tokens: [seq_len, batch] int64 -> logits [seq_len, batch, vocab]."""
        x = self.dropout(self.position(self.embedding(tokens)))
        mask = causal_mask(tokens.size(0)).to(tokens.device)
        return self.head(self.encoder(x, mask=mask))
