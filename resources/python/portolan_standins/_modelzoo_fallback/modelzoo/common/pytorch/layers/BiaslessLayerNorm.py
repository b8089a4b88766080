from ._impl import BiaslessLayerNorm  # noqa: F401
