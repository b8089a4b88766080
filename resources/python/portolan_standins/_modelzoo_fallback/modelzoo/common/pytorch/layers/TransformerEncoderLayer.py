from ._impl import TransformerEncoderLayer  # noqa: F401
