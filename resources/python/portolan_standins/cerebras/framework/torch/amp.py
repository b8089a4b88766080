"""cbtorch.amp (stand-in): mixed-precision settings of the Cerebras stack; none on the CPU."""


def get_init_params():
    return {}


def use_bfloat16(use=True):
    return None


def set_half_dtype(dtype):
    return None
