from ._impl import TransformerDecoder  # noqa: F401
