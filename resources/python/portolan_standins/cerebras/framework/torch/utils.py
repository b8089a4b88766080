"""cbtorch.utils (stand-in)."""
import torch


def extract_loss(model_outputs):
    """The loss among a model's outputs: the tensor itself, or the first scalar tensor of a
    tuple/list/dict (as the runtime finds it on the system)."""
    if isinstance(model_outputs, torch.Tensor):
        return model_outputs
    values = model_outputs.values() if isinstance(model_outputs, dict) else model_outputs
    for value in values:
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            return value
    raise TypeError(f"cannot find the loss in the model's outputs ({type(model_outputs)})")
