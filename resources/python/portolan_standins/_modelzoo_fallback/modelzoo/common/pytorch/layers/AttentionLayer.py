from ._impl import AttentionLayer, MultiheadAttention  # noqa: F401
