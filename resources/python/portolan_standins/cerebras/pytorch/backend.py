"""cstorch backends (stand-in following cerebras.pytorch R2.1-R2.4) on the CPU.

As in the real API: `backend(type, **kwargs)` makes the one backend of the process (a second
one is refused), `backend()` returns it, and each backend type takes its own keyword arguments
(an unknown one is a TypeError, as the real implementation's __init__ raises). Every type
runs on the CPU here; asking for CSX or GPU is accepted and said once.
"""
import enum
import warnings

import torch

import _portolan_hooks as hooks


class BackendType(enum.Enum):
    CPU = 1
    GPU = 2
    CSX = 3
    WSE = 4  # deprecated synonym of CSX

    @property
    def is_cpu(self):
        return self is BackendType.CPU

    @property
    def is_gpu(self):
        return self is BackendType.GPU

    @property
    def is_csx(self):
        return self in (BackendType.CSX, BackendType.WSE)

    @staticmethod
    def from_str(backend_type):
        if not isinstance(backend_type, str):
            raise TypeError(f"Expected a str backend type. Got: {type(backend_type)}")
        name = backend_type.upper()
        if name not in BackendType.__members__:
            raise ValueError(f"Invalid Cerebras PyTorch backend type specified. Expected one "
                             f"of {list(BackendType.__members__)}. Got {name}. ")
        return BackendType[name]


class DeviceConfig:
    """backend.device.config: flags the CSX backend reads; kept, not used on the CPU."""

    def __init__(self):
        self.lazy_initialization = True
        self.drop_data = False


class Device:
    """The backend's device; `with backend.device:` builds the model on it (the CPU here)."""

    def __init__(self, name):
        self.name = name
        self.torch_device = torch.device("cpu")
        self.config = DeviceConfig()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __str__(self):
        return self.name


# The keyword arguments of each backend type's implementation (R2.1 run_cstorch_flow passes
# these; later releases add cluster_config to CSX).
class _CpuImpl:
    def __init__(self, artifact_dir=None, max_checkpoints=None, mixed_precision=False):
        self.artifact_dir = artifact_dir
        self.max_checkpoints = max_checkpoints
        self.mixed_precision = mixed_precision


class _GpuImpl:
    def __init__(self, artifact_dir=None, enable_distributed=False, main_process_id=0,
                 dist_backend="nccl", init_method="env://", sync_batchnorm=False):
        self.artifact_dir = artifact_dir


class _CsxImpl:
    def __init__(self, artifact_dir=None, compile_dir=None, compile_only=False,
                 validate_only=False, max_checkpoints=None, use_cs_grad_accum=True,
                 micro_batch_size="auto", retrace_every_iteration=False, cluster_config=None,
                 log_initialization=True):
        self.artifact_dir = artifact_dir
        self.compile_only = compile_only
        self.validate_only = validate_only
        self.cluster_config = cluster_config


_IMPLS = {BackendType.CPU: _CpuImpl, BackendType.GPU: _GpuImpl, BackendType.CSX: _CsxImpl,
          BackendType.WSE: _CsxImpl}

_current = None


class Backend:
    def __init__(self, backend_type, *args, **kwargs):
        if not isinstance(backend_type, BackendType):
            raise TypeError(f"Expected a BackendType. Got: {type(backend_type)}")
        self.backend_type = backend_type
        self._impl = _IMPLS[backend_type](*args, **kwargs)
        self._impl.device = Device(backend_type.name)
        if not backend_type.is_cpu:
            hooks.notify("info", f"cstorch.backend(\"{backend_type.name}\"): the dry run runs "
                         "the model on the CPU")

    artifact_dir = property(lambda self: self._impl.artifact_dir)
    device = property(lambda self: self._impl.device)
    torch_device = property(lambda self: self._impl.device.torch_device)
    is_cpu = property(lambda self: self.backend_type.is_cpu)
    is_gpu = property(lambda self: self.backend_type.is_gpu)
    is_csx = property(lambda self: self.backend_type.is_csx)
    is_tracing = property(lambda self: False)
    cluster_config = property(lambda self: getattr(self._impl, "cluster_config", None))


def backend(backend_type=None, *args, **kwargs):
    """backend() returns the current backend; backend("CPU"|"CSX"|"GPU", ...) makes it."""
    global _current
    if backend_type is None:
        if args or kwargs:
            raise TypeError("Expected backend_type when constructing a backend. Either provide "
                            "one of \"CSX\", \"CPU\", \"GPU\" to create a new backend, or call "
                            "with no arguments to get the instance of the current backend, if "
                            "it exists.")
        return current_backend(raise_warning=False)
    if isinstance(backend_type, str):
        backend_type = BackendType.from_str(backend_type)
    elif not isinstance(backend_type, BackendType):
        raise TypeError("Expected backend_type to be of type BackendType, or a string "
                        f"representing the backend type. Got: {type(backend_type)}")
    if _current is not None:
        raise RuntimeError(f"Cannot instantiate multiple backends. A backend with type "
                           f"{_current.backend_type.name} has already been instantiated.\n"
                           "Use cstorch.backend() to access the existing backend.")
    _current = Backend(backend_type, *args, **kwargs)
    return _current


def current_backend(raise_exception=True, raise_warning=True):
    if raise_warning:
        warnings.warn("cstorch.current_backend() is deprecated; use cstorch.backend()",
                      DeprecationWarning, stacklevel=2)
    if _current is None and raise_exception:
        raise RuntimeError("No active Cerebras backend found. Please make sure that your model "
                           "has been prepared for compilation.\nYou can do this using a call "
                           "to:\n\n\tcompiled_model = cstorch.compile(model, backend=...)\n\n"
                           "Or by explicitly instantiating a backend, e.g.\n\n"
                           "\tbackend = cstorch.backend(...)")
    return _current


def current_backend_impl(raise_exception=True):
    b = current_backend(raise_exception=raise_exception, raise_warning=False)
    return None if b is None else b._impl


def current_torch_device():
    return torch.device("cpu")


def use_cs():
    """True if the current backend is a CSX backend."""
    return _current is not None and _current.is_csx


def get_backend_args(backend_type):
    import inspect

    if isinstance(backend_type, str):
        backend_type = BackendType.from_str(backend_type)
    return inspect.signature(_IMPLS[backend_type].__init__).parameters
