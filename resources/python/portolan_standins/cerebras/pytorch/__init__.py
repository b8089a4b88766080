"""cerebras.pytorch ("cstorch") on the CPU: a stand-in following the API of R2.1-R2.4 (the
cstorch generation of Cerebras' Model Zoo, R1.9-R2.2, and the API the R2.3+ Trainer uses).

Written for Portolan's dry run; the real package needs the Cerebras appliance. Every public
name ports use is here with the real signature, and wrong arguments fail as they would there:
backend, compile, trace, step_closure, checkpoint_closure, name_scope, save, load, use_cs,
current_backend, optim (optimizers, lr_scheduler, configure_*), amp, utils.data (DataLoader,
DataExecutor), metrics, distributed. cerebras_pytorch (the R1.9-R2.2 import name) is this same
package.
"""
__version__ = "2.1.0+portolan"

from . import amp, distributed, metrics, optim, utils  # noqa: F401
from . import experimental  # noqa: F401
from .backend import (Backend, BackendType, backend, current_backend,  # noqa: F401
                      current_backend_impl, current_torch_device, get_backend_args, use_cs)
from .core import checkpoint_closure, compile, name_scope, step_closure, trace  # noqa: F401
from .saver import full, full_like, load, ones, ones_like, save, zeros, zeros_like  # noqa
from .utils.data import DataLoader, current_executor  # noqa: F401


def from_numpy(array):
    import torch

    return torch.from_numpy(array)


def to_numpy(tensor):
    return tensor.detach().cpu().numpy()
