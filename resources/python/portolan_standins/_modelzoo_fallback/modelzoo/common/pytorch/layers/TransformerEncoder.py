from ._impl import TransformerEncoder  # noqa: F401
