"""cstorch.optim.scheduler: the scheduler base classes the Trainer's config types name
(stand-in following cerebras.pytorch R2.3-R2.10, where the LR schedulers derive from them)."""
from .lr_scheduler import LRScheduler as Scheduler  # noqa: F401
from .lr_scheduler import SequentialLR as SequentialScheduler  # noqa: F401
from .lr_scheduler import PiecewiseConstantLR as PiecewiseConstantScheduler  # noqa: F401
from .lr_scheduler import ChainedScheduler  # noqa: F401
