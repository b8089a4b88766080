"""determined.errors (stand-in, Determined 0.2x)."""


class InternalException(Exception):
    pass


class InvalidExperimentException(Exception):
    pass


class InvalidConfigurationException(Exception):
    pass
