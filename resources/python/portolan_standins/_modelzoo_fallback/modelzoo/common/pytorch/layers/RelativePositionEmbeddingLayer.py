from ._impl import RelativePositionEmbeddingLayer  # noqa: F401
