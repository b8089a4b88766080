"""Pipeline annotations: BeginBlock, BlockFunction, Block (PopTorch 3.x semantics).

A block starts when its module (or function, or `with` body) starts running and lasts until
the next block starts; work before the first block runs on IPU 0. The stand-in records the IPU
of each annotated module so that the dry run's capture can report the project's own split.
"""
import functools
import weakref

import torch


class _State:
    def __init__(self):
        self.current = None  # (user_id, ipu_id) of the running block
        self.modules = weakref.WeakKeyDictionary()  # module -> (user_id, ipu_id)
        self.declared = False
        self.auto_id = 0


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
    block = (_next_user_id(user_id, ipu_id), ipu_id)
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
        block = (_next_user_id(user_id, ipu_id), ipu_id)

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
        self._block = (_next_user_id(user_id, ipu_id), ipu_id)
        _state.declared = True

    @staticmethod
    def useAutoId():
        Block._use_auto_id = True

    @staticmethod
    def start(user_id=None, ipu_id=None):
        _check_ipu(ipu_id)
        _state.declared = True
        _state.current = (_next_user_id(user_id, ipu_id), ipu_id)

    def __enter__(self):
        _state.current = self._block
        return self

    def __exit__(self, *exc):
        return False


def removeBlocks(module):
    for m in module.modules():
        _state.modules.pop(m, None)


# For Portolan's dry run (not PopTorch API).
def _portolan_reset():
    """A new forward pass starts on IPU 0, as PopTorch places work before the first block."""
    _state.current = None


def _portolan_ipu_of(module):
    """The IPU a module runs on: its own BeginBlock, else the running block, else IPU 0; None
    when the project declares no blocks at all."""
    if not _state.declared:
        return None
    own = _state.modules.get(module)
    if own is not None:
        return own[1] if own[1] is not None else 0
    if _state.current is not None:
        return _state.current[1] if _state.current[1] is not None else 0
    return 0


def _portolan_declared():
    return _state.declared
