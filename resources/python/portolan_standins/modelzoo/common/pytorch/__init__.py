"""modelzoo.common.pytorch (stand-in, Model Zoo R1.6-R1.8): the CPU path of the runner."""

# Activation-precision modes of the Cerebras stack; only the name is used off the system.
AP_DISABLED = "disabled"
AP_ENABLED = "enabled"
