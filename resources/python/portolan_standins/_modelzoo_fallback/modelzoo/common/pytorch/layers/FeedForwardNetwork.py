from ._impl import FeedForwardNetwork  # noqa: F401
