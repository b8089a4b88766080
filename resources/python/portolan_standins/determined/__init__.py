"""Determined stand-in for Portolan's CPU dry run, written for Portolan.

Follows the Determined 0.2x Python API (determined.pytorch.PyTorchTrial, PyTorchTrialContext
and friends, as documented for 0.21-0.26). Only what a trial needs to train on one CPU slot is
provided; a call with the wrong arity or an unknown keyword raises TypeError as the real
harness does, and unknown hyperparameters raise the harness's ValueError.
"""
from . import core, errors  # noqa: F401

__version__ = "0.26.0+portolan.standin"
PORTOLAN_STANDIN = True

# The log format the harness configures, which scripts of the Trainer and Core APIs reuse.
LOG_FORMAT = "%(levelname)s: [%(process)s] %(name)s: %(message)s"


class InvalidHP(Exception):
    """Raised by a trial to tell the searcher that a hyperparameter combination is invalid."""

    def __init__(self, explanation=""):
        super().__init__(explanation)
        self.explanation = explanation


class TrialContext:
    """The part of the trial context that does not depend on the framework."""


def get_cluster_info():
    """No cluster: a dry run is always local."""
    return None
