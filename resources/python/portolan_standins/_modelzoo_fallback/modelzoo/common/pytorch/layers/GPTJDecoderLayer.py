from ._impl import GPTJDecoderLayer  # noqa: F401
