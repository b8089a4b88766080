"""modelzoo.common.pytorch.model_utils.weight_initializers (stand-in, Model Zoo R1.6-R1.8):
in-place initializers with the Model Zoo's names, on torch.nn.init."""
import math

import torch


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Normal(mean, std) truncated to [a, b] (absolute bounds)."""
    return torch.nn.init.trunc_normal_(tensor, mean=mean, std=std, a=a, b=b)


def variance_scaling_(tensor, scale=1.0, mode="fan_in", distribution="truncated_normal"):
    """Keras-style variance scaling: variance scale / fan, by mode, drawn from the named
    distribution."""
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    variance = scale / fan
    if distribution == "truncated_normal":
        # The standard deviation of a unit normal truncated to [-2, 2].
        std = math.sqrt(variance) / 0.87962566103423978
        return trunc_normal_(tensor, std=std, a=-2 * std, b=2 * std)
    if distribution == "normal":
        with torch.no_grad():
            return tensor.normal_(std=math.sqrt(variance))
    if distribution == "uniform":
        bound = math.sqrt(3 * variance)
        with torch.no_grad():
            return tensor.uniform_(-bound, bound)
    raise ValueError(f"invalid distribution {distribution}")


def lecun_normal_(tensor):
    return variance_scaling_(tensor, mode="fan_in", distribution="truncated_normal")


def lecun_uniform_(tensor):
    return variance_scaling_(tensor, mode="fan_in", distribution="uniform")
