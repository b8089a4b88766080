"""cstorch.save / cstorch.load and the tensor factories (stand-in following cerebras.pytorch
R2.1-R2.4).

The real ones write and read Cerebras' H5 checkpoint format; a dry run only needs the round
trip, so these use torch.save / torch.load with the same signatures.
"""
import torch


def save(obj, checkpoint_file, save_dtype=None):
    torch.save(obj, checkpoint_file)


def load(checkpoint_file, map_location=None, **kwargs):
    return torch.load(checkpoint_file, map_location=map_location or "cpu", **kwargs)


# Tensors the real API creates lazily on the device; plain CPU tensors here.
zeros = torch.zeros
ones = torch.ones
full = torch.full
zeros_like = torch.zeros_like
ones_like = torch.ones_like
full_like = torch.full_like
