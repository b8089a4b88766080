from ._impl import EmbeddingLayer  # noqa: F401
