"""cerebras.framework.torch (`cbtorch`, stand-in): the closed runtime entry points that Model
Zoo R1.x code calls, with their CPU behaviour. The open Model Zoo code (a checkout given with
--sdk-path) runs for real on top of this; nothing here trains or changes numbers."""
import torch

from . import amp, core, utils  # noqa: F401
from .core import cb_model, modes, name_scope  # noqa: F401


class _State:
    """cbtorch.state(): the runtime's execution state; off the system nothing is compiled."""

    is_inside_execution_loop = False
    execution_strategy = None
    max_steps = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class _Env:
    weight_streaming_mode = False
    pipeline_mode = False
    appliance = False


_state = _State()
env = _env = _Env()


def state():
    return _state


def initialize(*args, **kwargs):
    """Sets up the Cerebras backend; the CPU needs none."""
    return None


def module(model, *args, **kwargs):
    """Wraps a model for the system; off it the model is used as it is."""
    return model


def dataloader(loader, *args, **kwargs):
    """Wraps a loader for the system's input workers; off it the loader is used as it is."""
    return loader


load = torch.load
save = torch.save
