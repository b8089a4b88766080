"""The Model Zoo layers API (R1.6-R1.8), mapped to torch.nn (see _impl.py)."""
from ._impl import (  # noqa: F401
    AttentionLayer,
    BiaslessLayerNorm,
    EmbeddingLayer,
    FeedForwardNetwork,
    GPTJDecoderLayer,
    MultiheadAttention,
    RelativePositionEmbeddingLayer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
