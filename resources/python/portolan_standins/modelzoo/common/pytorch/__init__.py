"""modelzoo.common.pytorch (stand-in, Model Zoo R1.6-R1.8): the CPU path of the runner.

Like the real package, it re-exports the closed framework's names (cbtorch, amp, cb_model,
modes, name_scope), here from the stand-in of cerebras.framework.torch.
"""
from cerebras.framework.torch import amp  # noqa: F401
from cerebras.framework.torch.core import name_scope  # noqa: F401

# Activation-precision modes of the Cerebras stack; only the name is used off the system.
AP_DISABLED = "disabled"
AP_ENABLED = "enabled"
