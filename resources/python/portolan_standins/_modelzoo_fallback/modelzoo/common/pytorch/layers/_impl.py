"""The Model Zoo layers API (R1.6-R1.8 signatures) mapped to torch.nn equivalents.

Used only when neither the project nor a Model Zoo checkout (--sdk-path) provides the layers.
Tensors are batch-first by default, as in the layers API. Cerebras-specific arguments
(initializers, attention kernel choices, bias switches) are accepted; the ones torch.nn has no
equivalent for are kept in `cerebras_options` and do not change the computation, so parameter
counts can differ slightly from the real layers (for example when projection biases are off).
"""
import math

import torch
import torch.nn as nn

_ACTIVATIONS = {"relu": nn.functional.relu, "gelu": nn.functional.gelu,
                "gelu_new": lambda x: nn.functional.gelu(x, approximate="tanh"),
                "tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": nn.functional.silu,
                "swish": nn.functional.silu, "linear": lambda x: x}


def _activation(activation):
    if callable(activation):
        return activation
    try:
        return _ACTIVATIONS[str(activation).lower()]
    except KeyError:
        raise ValueError(f"Unknown activation {activation!r}") from None


def _additive_mask(mask, dtype):
    """Cerebras layers take additive float masks of any precision (fp16 ones included)."""
    if mask is not None and mask.is_floating_point() and mask.dtype != dtype:
        return mask.to(dtype)
    return mask


class EmbeddingLayer(nn.Module):
    """Token embeddings plus optional learned or fixed position and segment embeddings."""

    def __init__(self, vocab_size, embedding_size, pad_token_id=None,
                 positional_embedding_size=None, segment_embedding_size=None,
                 embeddings_initializer="uniform", max_position_embeddings=None,
                 position_embedding_type="learned", min_timescale=1.0, max_timescale=1.0e4,
                 position_embeddings_initializer="uniform", num_segments=None,
                 segment_embeddings_initializer="uniform", device=None):
        super().__init__()
        self.position_embedding_type = position_embedding_type
        self.word_embeddings = nn.Embedding(vocab_size, embedding_size,
                                            padding_idx=pad_token_id, device=device)
        pos_size = positional_embedding_size or embedding_size
        self.position_embeddings = None
        if position_embedding_type is not None:
            if max_position_embeddings is None:
                raise ValueError("max_position_embeddings should be specified.")
            if position_embedding_type == "learned":
                self.position_embeddings = nn.Embedding(max_position_embeddings, pos_size,
                                                        device=device)
            elif position_embedding_type == "fixed":
                self.position_embeddings = nn.Parameter(
                    self._sinusoids(max_position_embeddings, pos_size, min_timescale,
                                    max_timescale), requires_grad=False)
            elif position_embedding_type not in ("relative", "rotary"):
                raise ValueError(f"Unknown position embedding type: {position_embedding_type}")
        self.segment_embeddings = None
        if num_segments:
            self.segment_embeddings = nn.Embedding(num_segments,
                                                   segment_embedding_size or embedding_size,
                                                   device=device)

    @staticmethod
    def _sinusoids(length, size, min_timescale, max_timescale):
        half = size // 2
        step = math.log(float(max_timescale) / float(min_timescale)) / max(half - 1, 1)
        inv = min_timescale * torch.exp(torch.arange(half, dtype=torch.float32) * -step)
        angles = torch.arange(length, dtype=torch.float32)[:, None] * inv[None, :]
        table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
        return nn.functional.pad(table, (0, size % 2))

    def get_input_embeddings(self):
        return self.word_embeddings

    def set_input_embeddings(self, new_embeddings):
        self.word_embeddings = new_embeddings

    def forward(self, input_ids, segment_ids=None, past_length=0):
        x = self.word_embeddings(input_ids)
        if self.position_embeddings is not None:
            length = input_ids.shape[-1]
            if self.position_embedding_type == "learned":
                positions = torch.arange(past_length, past_length + length,
                                         device=input_ids.device)
                x = x + self.position_embeddings(positions).to(x.dtype)
            else:
                x = x + self.position_embeddings[past_length:past_length + length].to(x.dtype)
        if segment_ids is not None and self.segment_embeddings is not None:
            x = x + self.segment_embeddings(segment_ids.int())
        return x


class FeedForwardNetwork(nn.Module):
    """Dense layers with activations: input_unit -> layers_units[0] -> ... ."""

    def __init__(self, input_unit, layers_units, layers_activation=None,
                 layers_dropout_rates=None, use_bias=False, kernel_initializer="xavier_uniform",
                 bias_initializer="zeros", output_layer_initializer=None, device=None):
        super().__init__()
        n = len(layers_units)
        activations = list(layers_activation or [None] * n)
        dropouts = list(layers_dropout_rates or [None] * n)
        if len(activations) != n or len(dropouts) != n:
            raise ValueError("layers_activation and layers_dropout_rates need one entry per "
                             "layer in layers_units")
        layers = []
        width = input_unit
        for units, activation, dropout in zip(layers_units, activations, dropouts):
            layers.append(nn.Linear(width, units, bias=use_bias, device=device))
            if activation is not None:
                layers.append(_Activation(activation))
            if dropout:
                layers.append(nn.Dropout(dropout))
            width = units
        self.ffn = nn.Sequential(*layers)

    def forward(self, inputs):
        return self.ffn(inputs)


class _Activation(nn.Module):
    def __init__(self, activation):
        super().__init__()
        self.fn = _activation(activation)

    def forward(self, x):
        return self.fn(x)


class MultiheadAttention(nn.MultiheadAttention):
    """torch.nn.MultiheadAttention, batch-first, taking Cerebras's extra arguments."""

    def __init__(self, embed_dim, num_heads, inner_dim=None, dropout=0.0, batch_first=True,
                 add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None,
                 use_projection_bias=None, use_ffn_bias=False, attention_initializer="xavier_uniform",
                 output_layer_initializer=None, attention_type="scaled_dot_product",
                 softmax_dtype_fp32=True, device=None):
        bias = True if use_projection_bias is None else bool(use_projection_bias)
        super().__init__(embed_dim, num_heads, dropout=dropout, bias=bias,
                         add_bias_kv=add_bias_kv, add_zero_attn=add_zero_attn, kdim=kdim,
                         vdim=vdim, batch_first=batch_first, device=device)
        self.cerebras_options = dict(inner_dim=inner_dim, attention_type=attention_type,
                                     use_ffn_bias=use_ffn_bias)

    def forward(self, q, k=None, v=None, attn_mask=None, key_padding_mask=None,
                need_weights=False, average_attn_weights=True, **kwargs):
        k = q if k is None else k
        v = k if v is None else v
        out, _ = super().forward(q, k, v, attn_mask=_additive_mask(attn_mask, q.dtype),
                                 key_padding_mask=_additive_mask(key_padding_mask, q.dtype),
                                 need_weights=need_weights)
        return out


AttentionLayer = MultiheadAttention


class TransformerEncoderLayer(nn.TransformerEncoderLayer):
    """torch.nn.TransformerEncoderLayer (batch-first by default) with the layers API's
    arguments."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="gelu",
                 layer_norm_eps=1e-5, batch_first=True, norm_first=False, device=None,
                 attention_dropout_rate=None, attention_type="scaled_dot_product",
                 attention_softmax_fp32=True, use_projection_bias_in_attention=True,
                 use_ffn_bias_in_attention=True, use_ffn_bias=True,
                 attention_initializer="xavier_uniform", ffn_initializer="xavier_uniform",
                 ffn_output_initializer=None, **cerebras_options):
        super().__init__(d_model, nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                         activation=_activation(activation), layer_norm_eps=layer_norm_eps,
                         batch_first=batch_first, norm_first=norm_first, device=device)
        self.cerebras_options = dict(cerebras_options, attention_type=attention_type,
                                     use_ffn_bias=use_ffn_bias)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, **kwargs):
        return super().forward(src, src_mask=_additive_mask(src_mask, src.dtype),
                               src_key_padding_mask=_additive_mask(src_key_padding_mask,
                                                                   src.dtype))


class TransformerEncoder(nn.TransformerEncoder):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=False):
        super().__init__(encoder_layer, num_layers, norm=norm, enable_nested_tensor=False)

    def forward(self, src, mask=None, src_key_padding_mask=None, **kwargs):
        return super().forward(src, mask=_additive_mask(mask, src.dtype),
                               src_key_padding_mask=_additive_mask(src_key_padding_mask,
                                                                   src.dtype))


class TransformerDecoderLayer(nn.TransformerDecoderLayer):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="gelu",
                 layer_norm_eps=1e-5, batch_first=True, norm_first=False, device=None,
                 add_cross_attention=True, attention_dropout_rate=None,
                 attention_type="scaled_dot_product", attention_softmax_fp32=True,
                 use_projection_bias_in_attention=True, use_ffn_bias_in_attention=True,
                 use_ffn_bias=True, attention_initializer="xavier_uniform",
                 ffn_initializer="xavier_uniform", ffn_output_initializer=None,
                 **cerebras_options):
        super().__init__(d_model, nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                         activation=_activation(activation), layer_norm_eps=layer_norm_eps,
                         batch_first=batch_first, norm_first=norm_first, device=device)
        self.add_cross_attention = add_cross_attention
        if not add_cross_attention:
            del self.multihead_attn
            del self.norm2
            del self.dropout2
        self.cerebras_options = dict(cerebras_options, attention_type=attention_type)

    def forward(self, tgt, memory=None, tgt_mask=None, memory_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, **kwargs):
        tgt_mask = _additive_mask(tgt_mask, tgt.dtype)
        tgt_key_padding_mask = _additive_mask(tgt_key_padding_mask, tgt.dtype)
        if self.add_cross_attention:
            return super().forward(tgt, memory, tgt_mask=tgt_mask,
                                   memory_mask=_additive_mask(memory_mask, tgt.dtype),
                                   tgt_key_padding_mask=tgt_key_padding_mask,
                                   memory_key_padding_mask=memory_key_padding_mask)
        # Decoder-only (GPT-style): self-attention and feed-forward.
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x


class TransformerDecoder(nn.Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = nn.ModuleList([_clone(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory=None, tgt_mask=None, memory_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, **kwargs):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask)
        return self.norm(x) if self.norm is not None else x


def _clone(module):
    import copy

    return copy.deepcopy(module)


class BiaslessLayerNorm(nn.Module):
    """Layer normalisation with a learned scale and no bias."""

    def __init__(self, hidden_size, eps=1e-6, device=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        return nn.functional.layer_norm(hidden_states, self.weight.shape, self.weight, None,
                                        self.variance_epsilon)


class RelativePositionEmbeddingLayer(nn.Module):
    """T5's relative position bias: one learned scalar per head and distance bucket. Distances
    below half the buckets have a bucket each; longer ones share log-spaced buckets up to
    max_relative_positions; bidirectional attention splits the buckets by direction."""

    def __init__(self, num_heads, relative_attention_bias=None,
                 num_relative_attention_buckets=32, max_relative_positions=128,
                 bidirectional_relative_attention=False, allow_negative_buckets=False,
                 relative_attn_bias_initializer="xavier_uniform"):
        super().__init__()
        self.num_heads = num_heads
        self.num_buckets = num_relative_attention_buckets
        self.max_distance = max_relative_positions
        self.bidirectional = bidirectional_relative_attention
        self.allow_negative_buckets = allow_negative_buckets
        self.relative_attention_bias = relative_attention_bias if relative_attention_bias \
            is not None else nn.Embedding(num_relative_attention_buckets, num_heads)
        if relative_attention_bias is None:
            nn.init.xavier_uniform_(self.relative_attention_bias.weight)

    def _bucket(self, relative):
        buckets = self.num_buckets
        out = torch.zeros_like(relative)
        if self.bidirectional:
            buckets //= 2
            out = out + (relative > 0).long() * buckets
            distance = relative.abs()
        else:
            distance = (-relative).clamp(min=0)
        exact = buckets // 2
        small = distance < exact
        far = exact + (torch.log(distance.float().clamp(min=1) / exact) /
                       math.log(self.max_distance / exact) * (buckets - exact)).long()
        far = far.clamp(max=buckets - 1)
        return out + torch.where(small, distance, far)

    def forward(self, seq_length, key_length, past_kv=None):
        """[num_heads, seq_length, key_length] additive attention bias."""
        device = self.relative_attention_bias.weight.device
        offset = past_kv[0].shape[-2] if past_kv is not None else 0
        query = torch.arange(offset, offset + seq_length, device=device)[:, None]
        key = torch.arange(key_length, device=device)[None, :]
        values = self.relative_attention_bias(self._bucket(key - query))
        return values.permute(2, 0, 1)


class GPTJDecoderLayer(nn.Module):
    """GPT-J's decoder block: attention and feed-forward in parallel off the layer-normed input
    (one shared norm, or one each with use_untied_layer_norm), rotary position embeddings on
    queries and keys, and their sum added to the input."""

    def __init__(self, d_model, nhead, use_untied_layer_norm=False, dim_feedforward=2048,
                 dropout=0.0, activation="gelu", layer_norm_eps=1e-5,
                 use_projection_bias_in_attention=False, use_ffn_bias_in_attention=True,
                 use_ffn_bias=True, attention_dropout_rate=None, device=None,
                 **cerebras_options):
        super().__init__()
        if d_model % nhead:
            raise ValueError(f"d_model {d_model} is not divisible by nhead {nhead}")
        self.nhead = nhead
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps, device=device)
        self.norm3 = nn.LayerNorm(d_model, eps=layer_norm_eps, device=device) \
            if use_untied_layer_norm else None
        bias = bool(use_projection_bias_in_attention)
        self.q_proj = nn.Linear(d_model, d_model, bias=bias, device=device)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias, device=device)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias, device=device)
        self.out_proj = nn.Linear(d_model, d_model, bias=bool(use_ffn_bias_in_attention),
                                  device=device)
        self.linear1 = nn.Linear(d_model, dim_feedforward, bias=use_ffn_bias, device=device)
        self.linear2 = nn.Linear(dim_feedforward, d_model, bias=use_ffn_bias, device=device)
        self.activation = _activation(activation)
        self.dropout = nn.Dropout(dropout)
        self.attention_dropout = nn.Dropout(dropout if attention_dropout_rate is None
                                            else attention_dropout_rate)
        self.cerebras_options = cerebras_options

    def _attention(self, x, mask, helper, position_bias):
        b, s, d = x.shape
        heads = lambda t: t.view(b, s, self.nhead, d // self.nhead)  # noqa: E731
        q, k, v = heads(self.q_proj(x)), heads(self.k_proj(x)), heads(self.v_proj(x))
        if helper is not None:
            q, k = helper.rotate_tensor(q, s), helper.rotate_tensor(k, s)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        logits = q @ k.transpose(-1, -2) / math.sqrt(d // self.nhead)
        if position_bias is not None:
            logits = logits + position_bias.to(logits.dtype).unsqueeze(0)
        if mask is not None:
            mask = _additive_mask(mask, logits.dtype)
            logits = logits.masked_fill(mask, float("-inf")) if mask.dtype == torch.bool \
                else logits + mask
        weights = self.attention_dropout(torch.softmax(logits.float(), -1).to(q.dtype))
        out = (weights @ v).transpose(1, 2).reshape(b, s, d)
        return self.out_proj(out)

    def forward(self, tgt, memory=None, tgt_mask=None, memory_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None,
                rotary_position_embedding_helper=None, past_kv=None, cache_present_kv=False,
                self_attn_position_bias=None, cross_attn_position_bias=None):
        normed = self.norm1(tgt)
        attended = self._attention(normed, tgt_mask, rotary_position_embedding_helper,
                                   self_attn_position_bias)
        ff_in = self.norm3(tgt) if self.norm3 is not None else normed
        fed = self.linear2(self.dropout(self.activation(self.linear1(ff_in))))
        return tgt + self.dropout(attended) + self.dropout(fed)
