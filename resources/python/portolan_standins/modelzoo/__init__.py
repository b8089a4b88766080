"""Cerebras Model Zoo stand-in for Portolan's CPU dry run, written for Portolan.

Only the runner and framework API is here (modelzoo.common.pytorch: run_utils.run,
PyTorchBaseModel, cb_model with use_cs() False, cbtorch, modes), following Model Zoo releases
R1.6 to R1.8. Shared model code (modelzoo.transformers..., modelzoo.vision...) is not: a project
that imports it needs a Model Zoo checkout (portolan-cli run --sdk-path).
"""
PORTOLAN_STANDIN = True
