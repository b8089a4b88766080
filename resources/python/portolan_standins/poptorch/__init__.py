"""PopTorch stand-in for Portolan's CPU dry run, written for Portolan.

Follows the PopTorch 3.x (Poplar SDK 3.x) Python API reference: the names, signatures and
documented argument checks of Options, DataLoader, trainingModel, inferenceModel, BeginBlock,
BlockFunction, Block, poptorch.optim and the common ops. Training runs forward, backward and the
optimizer step on the CPU; pipeline annotations and options are recorded for the simulated IPU
compiler. Calls with the wrong arity or an unknown keyword raise TypeError, as PopTorch does.
"""
import torch

from . import _blocks, optim  # noqa: F401
from ._blocks import BeginBlock, Block, BlockFunction, removeBlocks  # noqa: F401
from ._dataloader import AsynchronousDataAccessor, DataLoader  # noqa: F401
from ._executor import PoplarExecutor, inferenceModel, trainingModel  # noqa: F401
from .enums import (  # noqa: F401
    AnchorMode,
    AutoStage,
    CommGroupType,
    Compiler,
    ConnectionType,
    DataLoaderMode,
    HalfFloatCastingBehavior,
    MatMulSerializationMode,
    MeanReductionStrategy,
    OutputMode,
    ReductionType,
    SyncPattern,
    VariableRetrievalMode,
)
from .options import (  # noqa: F401
    Options,
    ParallelPhasedExecution,
    Phase,
    PipelinedExecution,
    SerialPhasedExecution,
    ShardedExecution,
    Stage,
    TensorLocationSettings,
)

__version__ = "3.3.0+portolan.standin"
PORTOLAN_STANDIN = True


def ipuHardwareIsAvailable(num_ipus=1):
    return False


def ipuHardwareVersion():
    return 0


def isRunningOnIpu():
    return False


def setLogLevel(level):
    if not isinstance(level, (int, str)):
        raise ValueError("level must be a string (TRACE, DEBUG, INFO, WARN, ERR, OFF) or int")


def identity_loss(x, reduction):
    """Marks `x` as the loss. reduction: "sum", "mean" or "none"."""
    if reduction == "sum":
        return x.sum()
    if reduction == "mean":
        return x.mean()
    if reduction == "none":
        return x
    raise ValueError("reduction must be one of 'sum', 'mean' or 'none'")


def recomputationCheckpoint(*tensors):
    """Recomputation checkpoint: no effect on the values."""
    if len(tensors) == 1:
        return tensors[0]
    return tensors


def ipu_print_tensor(tensor, title="", print_gradient=True, summarise_threshold=1000,
                     edge_items=3, max_line_width=80, digits=4, float_format="auto",
                     separator=", ", open_bracket="(", close_bracket=")"):
    return tensor


def nop(tensor):
    return tensor


def set_available_memory(tensor, available_memory_proportion):
    if not 0.0 <= available_memory_proportion <= 1.0:
        raise ValueError("available_memory_proportion must be between 0 and 1")
    _blocks._portolan_available_memory(available_memory_proportion)
    return tensor


def set_overlap_for_input(input_tensors, mode):
    return input_tensors


def set_overlap_for_output(output_tensors, mode):
    return output_tensors


def serializedMatMul(lhs, rhs, mode, factor=0, keep_precision=False):
    return torch.matmul(lhs, rhs)


def dynamic_slice(tensor, dim, start, size, step):
    return tensor.narrow(dim, int(start), size)


def for_loop(count, body, inputs):
    for _ in range(count):
        inputs = body(*inputs)
        if isinstance(inputs, torch.Tensor):
            inputs = [inputs]
    return inputs


class MultiConv:
    """Groups convolutions to run in parallel; no effect on the values."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def availableMemoryProportions(self, value):
        return self

    def partialsTypes(self, value):
        return self

    def planType(self, value):
        return self


class Attribute:
    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
