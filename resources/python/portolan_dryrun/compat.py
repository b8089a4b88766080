"""Newer library semantics on Debian 12's NumPy 1.24 and torch 1.13, in a dry run.

Projects are written against the NumPy and PyTorch of their day. Some calls that newer releases
accept are errors on Debian 12's, although what they mean is plain and the older release can do
it another way. The dry run checks that the training loop runs, so it gives such a call its
newer meaning instead of ending on a version error:

- NumPy 2's `copy=None` ("copy only if needed") for `np.array`, and `np.asarray(..., copy=)`:
  NumPy 1.24 raises "NoneType copy mode not allowed" (and has no `copy` for `asarray`); the
  meaning is that of `copy=False` on 1.24 (`np.asarray`).
- torch 2's sparse products with a sparse right operand (`dense @ sparse`, `torch.mm`,
  `torch.matmul`, `Tensor.mm`/`matmul`): torch 1.13's CPU kernels have no `aten::sparse_dim` for
  a strided left operand. The product is computed as `(sparse.t() @ dense.t()).t()`, which 1.13
  has, gradient included. `to_sparse()` of a tensor that is already sparse returns it, as torch
  2 does, where 1.13 raises.

Each meaning given is said once, in a `warning` event of kind `compat` naming the call, the
library version and what it does there; nothing is made up, so the run's figures are the ones
the newer release would give.
"""
import functools

import numpy as np
import torch


def _numpy_major():
    try:
        return int(np.__version__.split(".")[0])
    except ValueError:
        return 2


def _quiet(key, call, how):
    pass


# Module-level, so that a project's pickled reference to np.array (a transform handed to
# DataLoader workers started by spawn) names a function the worker can import.
_ORIGINAL_ARRAY = np.array
_ORIGINAL_ASARRAY = np.asarray
_said = _quiet


def install(session):
    global _said

    def said(key, call, how):
        session.warn_once(
            f"compat:{key}", f"{call} is newer API than this Python has; the dry run gives it "
            f"its newer meaning: {how}", kind="compat", call=call)

    _said = said
    if _numpy_major() < 2:
        np.array = array
        np.asarray = asarray
    _install_sparse(said)
    _install_autocast(said)


# --------------------------------------------------------------------------------- NumPy 2
@functools.wraps(_ORIGINAL_ARRAY)
def array(obj, *args, **kwargs):
    if "copy" in kwargs and kwargs["copy"] is None:
        _said("numpy-copy-none", "numpy.array(copy=None)",
              f"copy only if needed, as copy=False does on NumPy {np.__version__}")
        kwargs["copy"] = False
    return _ORIGINAL_ARRAY(obj, *args, **kwargs)


@functools.wraps(_ORIGINAL_ASARRAY)
def asarray(a, *args, **kwargs):
    if "copy" in kwargs:
        copy = kwargs.pop("copy")
        _said("numpy-asarray-copy", "numpy.asarray(copy=...)",
              f"numpy.array with that copy mode on NumPy {np.__version__}")
        return array(a, *args, copy=copy, **kwargs)
    return _ORIGINAL_ASARRAY(a, *args, **kwargs)


# --------------------------------------------------------------------------------- sparse
def _sparse(t):
    return isinstance(t, torch.Tensor) and t.layout != torch.strided


def _dense_sparse(a, b):
    """a @ b with a strided 2-D `a` and a sparse 2-D `b`, through sparse @ dense."""
    return torch.sparse.mm(b.t(), a.t()).t()


def _install_sparse(said):
    version = torch.__version__

    def wrap_product(original, name):
        @functools.wraps(original)
        def product(a, b, *args, **kwargs):
            if not args and not kwargs and isinstance(a, torch.Tensor) and not _sparse(a) and \
                    _sparse(b) and a.dim() == 2 and b.dim() == 2:
                said("dense-sparse", f"{name} of a dense and a sparse tensor",
                     f"computed as (sparse.t() @ dense.t()).t() on torch {version}")
                return _dense_sparse(a, b)
            return original(a, b, *args, **kwargs)

        return product

    # Probe once: a torch that has the product needs nothing.
    probe = torch.eye(2)
    try:
        torch.mm(probe, probe.to_sparse())
        has_product = True
    except (NotImplementedError, RuntimeError):
        has_product = False
    if not has_product:
        torch.mm = wrap_product(torch.mm, "torch.mm")
        torch.matmul = wrap_product(torch.matmul, "torch.matmul")
        torch.Tensor.mm = wrap_product(torch.Tensor.mm, "Tensor.mm")
        torch.Tensor.matmul = wrap_product(torch.Tensor.matmul, "Tensor.matmul")
        torch.Tensor.__matmul__ = wrap_product(torch.Tensor.__matmul__, "@")

    try:
        probe.to_sparse().to_sparse()
        return
    except (NotImplementedError, RuntimeError):
        pass
    original_to_sparse = torch.Tensor.to_sparse

    @functools.wraps(original_to_sparse)
    def to_sparse(self, *args, **kwargs):
        if self.layout == torch.sparse_coo and not args and not kwargs:
            said("to-sparse", "Tensor.to_sparse() of a sparse tensor",
                 f"the tensor itself on torch {version}")
            return self
        return original_to_sparse(self, *args, **kwargs)

    torch.Tensor.to_sparse = to_sparse


# --------------------------------------------------------------------------------- autocast
def _install_autocast(said):
    """torch 1.13 disables a CUDA autocast on a machine without CUDA (with its own warning), then
    still asks the CUDA device whether it supports bfloat16, which raises "Torch not compiled
    with CUDA enabled"; torch 2 asks only when the autocast is enabled. The question is answered
    "yes" for that one check, so the disabled autocast is what the project gets."""
    if torch.cuda.is_available():
        return
    autocast = torch.amp.autocast_mode.autocast
    original_init = autocast.__init__
    version = torch.__version__

    @functools.wraps(original_init)
    def __init__(self, device_type, *args, **kwargs):
        dtype = kwargs.get("dtype", args[0] if args else None)
        if device_type != "cuda" or dtype != torch.bfloat16:
            return original_init(self, device_type, *args, **kwargs)
        said("autocast-bf16", "a bfloat16 CUDA autocast without CUDA",
             f"disabled without asking the missing CUDA device (torch {version} asks it)")
        asked = torch.cuda.is_bf16_supported
        torch.cuda.is_bf16_supported = lambda: True
        try:
            return original_init(self, device_type, *args, **kwargs)
        finally:
            torch.cuda.is_bf16_supported = asked

    autocast.__init__ = __init__
