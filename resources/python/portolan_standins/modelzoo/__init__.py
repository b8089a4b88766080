"""Cerebras Model Zoo stand-in for Portolan's CPU dry run, written for Portolan.

Only the runner and framework API is here (modelzoo.common.pytorch: run_utils.run,
PyTorchBaseModel, cb_model with use_cs() False, cbtorch, modes), following Model Zoo releases
R1.6 to R1.8. Shared model code (modelzoo.transformers..., modelzoo.vision...) is not: a project
that imports it needs a Model Zoo checkout (portolan-cli run --sdk-path).
"""
PORTOLAN_STANDIN = True


from enum import Enum


class CSoftPackage(Enum):
    """Where the Cerebras software is (Model Zoo R1.8 checks it at import)."""

    SRC = 1
    WHEEL = 2
    NONE = 3


# No Cerebras software package: Model Zoo code takes its CPU paths, which is what a dry run
# runs (the closed framework's names come from Portolan's stand-ins).
CSOFT_PACKAGE = CSoftPackage.NONE
