"""modelzoo.common.pytorch.model_utils.activations (stand-in, Model Zoo R1.6-R1.8)."""
import math

import torch
import torch.nn.functional as F


def gelu_new(x):
    """The tanh approximation of GELU (GPT-2's)."""
    return F.gelu(x, approximate="tanh")


def gelu_fast(x):
    return 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x)))


def quick_gelu(x):
    return x * torch.sigmoid(1.702 * x)


def linear_act(x):
    return x


def mish(x):
    return x * torch.tanh(F.softplus(x))


ACT2FN = {
    "relu": F.relu, "relu6": F.relu6, "leaky_relu": F.leaky_relu, "gelu": F.gelu,
    "gelu_new": gelu_new, "gelu_fast": gelu_fast, "quick_gelu": quick_gelu,
    "gelu_python": lambda x: x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0))),
    "silu": F.silu, "swish": F.silu, "mish": mish, "tanh": torch.tanh,
    "sigmoid": torch.sigmoid, "linear": linear_act, "elu": F.elu, "selu": F.selu,
    "softplus": F.softplus,
}


def get_activation(activation_string):
    """The activation function of that name (case-insensitive); a callable is returned as it
    is."""
    if callable(activation_string):
        return activation_string
    name = str(activation_string).lower()
    if name not in ACT2FN:
        raise KeyError(f"function {activation_string} not found in ACT2FN mapping "
                       f"{sorted(ACT2FN)}")
    return ACT2FN[name]
