"""Pipeline annotations: BeginBlock, BlockFunction, Block (PopTorch 3.x semantics).

A block starts when its module (or function, or `with` body) starts running and lasts until
the next block starts; work before the first block runs on IPU 0. The stand-in records the block
(user id, ipu_id, the API that declared it) each module runs in, and places it on an IPU the way
PopTorch's stage managers do, through the execution strategy of the model that runs
(options.py): the IPU of the Stage that names the block, else the block's own ipu_id, else its
stage id (AutoStage.SameAsIpu: the ipu_id; AutoStage.AutoIncrement: a new stage per new block).
The dry run's capture reports the project's own split from these records.
"""
import functools
import weakref

import torch


class _State:
    def __init__(self):
        self.current = None  # (user_id, ipu_id, kind) of the running block
        self.modules = weakref.WeakKeyDictionary()  # module -> (user_id, ipu_id, kind)
        self.declared = False
        self.auto_id = 0
        self.strategy = None  # the execution strategy of the model running (its Options)
        self.available_memory = {}  # (user_id, ipu, proportion) -> calls of set_available_memory


_state = _State()


def _next_user_id(user_id, ipu_id):
    if user_id is not None:
        return str(user_id)
    _state.auto_id += 1
    return str(ipu_id) if ipu_id is not None else str(_state.auto_id - 1)


def _check_ipu(ipu_id):
    if ipu_id is not None and (not isinstance(ipu_id, int) or isinstance(ipu_id, bool)
                               or ipu_id < 0):
        raise ValueError(f"ipu_id must be a non-negative integer, not {ipu_id!r}")


def BeginBlock(layer_to_call, user_id=None, ipu_id=None):
    """Starts a new block (pipeline stage) at `layer_to_call`; returns the module."""
    if not isinstance(layer_to_call, torch.nn.Module):
        raise ValueError("module is not an instance of torch.nn.Module")
    _check_ipu(ipu_id)
    block = (_next_user_id(user_id, ipu_id), ipu_id, "poptorch.BeginBlock")
    _state.modules[layer_to_call] = block
    _state.declared = True

    def enter_block(module, args):
        _state.current = _state.modules.get(module, block)

    if not getattr(layer_to_call, "_portolan_begin_block", False):
        layer_to_call.register_forward_pre_hook(enter_block)
        layer_to_call._portolan_begin_block = True
    return layer_to_call


def BlockFunction(user_id=None, ipu_id=None):
    """Decorator: everything the function does runs in a new block."""
    _check_ipu(ipu_id)
    _state.declared = True

    def decorator(fn):
        block = (_next_user_id(user_id, ipu_id), ipu_id, "poptorch.BlockFunction")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            _state.current = block
            return fn(*args, **kwargs)

        return wrapper

    return decorator


class Block:
    """Context manager: the modules called inside run in a new block."""

    _use_auto_id = False

    def __init__(self, user_id=None, ipu_id=None):
        _check_ipu(ipu_id)
        self._block = (_next_user_id(user_id, ipu_id), ipu_id, "poptorch.Block")
        _state.declared = True

    @staticmethod
    def useAutoId():
        Block._use_auto_id = True

    @staticmethod
    def start(user_id=None, ipu_id=None):
        _check_ipu(ipu_id)
        _state.declared = True
        _state.current = (_next_user_id(user_id, ipu_id), ipu_id, "poptorch.Block")

    def __enter__(self):
        _state.current = self._block
        return self

    def __exit__(self, *exc):
        return False


def removeBlocks(module):
    for m in module.modules():
        _state.modules.pop(m, None)


# For Portolan's dry run (not PopTorch API).
def _portolan_reset(strategy=None):
    """A new forward pass starts on IPU 0, as PopTorch places work before the first block;
    `strategy` is the execution strategy of the model about to run (None outside one)."""
    _state.current = None
    _state.strategy = strategy


def _place(block):
    """(stage, phase, ipu) of a block under the running strategy; ipu None where PopTorch would
    stop (a block no Stage names, AutoStage.SameAsIpu without an ipu_id)."""
    user_id, ipu_id = block[0], block[1]
    if _state.strategy is None or not hasattr(_state.strategy, "_portolan_place"):
        return None, None, ipu_id if ipu_id is not None else 0
    return _state.strategy._portolan_place(user_id, ipu_id)


def _portolan_block_of(module):
    """The block a module runs in: its own BeginBlock, else the running block; None before the
    first block or when the project declares none."""
    if not _state.declared:
        return None
    own = _state.modules.get(module)
    return own if own is not None else _state.current


def _portolan_ipu_of(module):
    """The IPU a module runs on: its block's place under the running strategy, else IPU 0 (work
    before the first block); None when the project declares no blocks at all, or when PopTorch
    could not place its block."""
    if not _state.declared:
        return None
    block = _portolan_block_of(module)
    if block is None:
        return 0
    return _place(block)[2]


def _portolan_stage_of(block):
    """(stage, phase) of a block under the running strategy (None when not known)."""
    stage, phase, _ = _place(block)
    return stage, phase


def _portolan_available_memory(proportion):
    """Records a set_available_memory call in the running block (the first forward's calls
    are what the capture reports)."""
    block = _state.current
    ipu = 0 if block is None else _place(block)[2]
    key = (block[0] if block is not None else None, ipu, float(proportion))
    _state.available_memory[key] = _state.available_memory.get(key, 0) + 1


def _portolan_available_memory_calls():
    return [{"block": b, "ipu": ipu, "proportion": p}
            for (b, ipu, p) in _state.available_memory]


def _portolan_declared():
    return _state.declared
