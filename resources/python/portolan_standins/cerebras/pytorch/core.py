"""cstorch.compile, cstorch.trace and the closures (stand-in following cerebras.pytorch
R2.1-R2.4).

compile(model, backend=None) takes a torch.nn.Module and a backend (a str, the current
Backend, or None); anything else is a TypeError, as in the real API, so a port that hands it an
optimizer fails here as it would on the cluster. It returns a callable that runs the module's
forward and carries its public methods (train, eval, ...). On the CPU backend the real trace
decorator runs the step function every call, and step closures run at once: so here.
"""
import contextlib
import functools
import inspect

import torch

import sys

from . import backend as _unused  # noqa: F401 - makes sure the module is loaded

# The package attribute `backend` is the function; the module is reached through sys.modules.
_backend = sys.modules[__package__ + ".backend"]


def compile(model, backend=None):  # noqa: A001 - the real API's name
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"cstorch.compile expects a torch.nn.Module to compile. Got: "
                        f"{type(model).__name__}")
    current = _backend.current_backend(raise_exception=False, raise_warning=False)
    if backend is None:
        backend = current if current is not None else _backend.backend("CPU")
    elif isinstance(backend, str):
        backend = current if current is not None and \
            current.backend_type is _backend.BackendType.from_str(backend) \
            else _backend.backend(backend)
    elif isinstance(backend, _backend.Backend):
        if backend is not current:
            raise RuntimeError("Compile got a different backend than the currently "
                               "initialized backend. ")
    else:
        raise TypeError(f"Expected backend to be one of str, Backend or None. Got: "
                        f"{type(backend)}")

    @functools.wraps(model.__call__)
    def compiled_forward(*args, **kwargs):
        return model(*args, **kwargs)

    for name in dir(model):
        if name.startswith("_"):
            continue
        try:
            method = getattr(model, name)
        except AttributeError:
            continue
        if inspect.ismethod(method):
            setattr(compiled_forward, name, method)
    compiled_forward.device = backend.torch_device
    compiled_forward._portolan_module = model
    return compiled_forward


def trace(step_fn):
    """Wraps the training or evaluation step; the CPU backend runs it on every call."""
    if not callable(step_fn):
        raise TypeError(f"cstorch.trace expects the step function. Got: {type(step_fn)}")

    @functools.wraps(step_fn)
    def traced(*args, **kwargs):
        _backend.current_backend_impl()  # the real trace needs a backend as well
        return step_fn(*args, **kwargs)

    return traced


def step_closure(closure):
    """Tensors handed to a step closure are already on the CPU: it runs at once."""

    @functools.wraps(closure)
    def run(*args, **kwargs):
        return closure(*args, **kwargs)

    return run


def checkpoint_closure(closure):
    """Runs only on checkpoint steps of the current DataExecutor (always without one)."""

    @functools.wraps(closure)
    def run(*args, **kwargs):
        from .utils.data import current_executor

        executor = current_executor(raise_exception=False)
        if executor is None or executor.on_checkpoint_step:
            return closure(*args, **kwargs)
        return None

    return run


@contextlib.contextmanager
def name_scope(name):
    """Names the operations traced inside; nothing to name on the CPU."""
    yield
