from ._impl import TransformerDecoderLayer  # noqa: F401
