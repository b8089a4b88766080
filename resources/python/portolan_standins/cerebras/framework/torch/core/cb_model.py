"""cbtorch.core.cb_model (`cm`, stand-in): the Cerebras device model as seen off the system.

The answers are those of a single CPU process that is not on a Cerebras system (use_cs() is
False), which is what Model Zoo R1.x's own CPU fallback answers too: one task, which is the
master, a streamer and a receiver. Step closures run at once (on the system they run when the
step's outputs reach the host), and reductions across workers reduce one value.
"""
import time

import torch

WORKER_CACHE_ROOT = ""
METRIC_NAME_PREFIX = "metrics"

_run_step = 0
_closures = []


def use_cs():
    return False


def is_appliance():
    return False


def is_wse_device():
    return False


def is_sync_mode():
    return False


def is_master_ordinal(local=False):
    return True


def is_streamer():
    return True


def is_receiver():
    return True


def get_ordinal():
    return 0


def get_streaming_rank():
    return 0


def num_tasks():
    return 1


def task_id():
    return 0


def num_streamers():
    return 1


def num_receivers():
    return 1


def device():
    return torch.device("cpu")


def step_closure(closure):
    """Decorator: on the system the closure runs when the step's tensors reach the host; on the
    CPU they are there already, so it runs when called."""
    return closure


def run_step_closures():
    while _closures:
        fn, args, kwargs = _closures.pop(0)
        fn(*args, **kwargs)


def mark_step():
    return None


def set_run_config(*args, **kwargs):
    return None


def get_run_step():
    return _run_step


def _advance_run_step():
    global _run_step
    _run_step += 1


def set_rng_state(seed):
    return None


def make_constant(tensor):
    return tensor


def to_cpu(tensor):
    if isinstance(tensor, torch.Tensor):
        return tensor.to("cpu")
    if isinstance(tensor, (list, tuple)):
        return type(tensor)(t.to("cpu") if t is not None else t for t in tensor)
    if isinstance(tensor, dict):
        return {k: t.to("cpu") if t is not None else None for k, t in tensor.items()}
    raise TypeError(f"Invalid type. Expected Tensor or list/tuple of Tensors. Got: {type(tensor)}")


def to_device(tensor, device_=None):
    return tensor.to(device_) if device_ is not None else tensor


def mesh_reduce(tag, data, reduce_fn):
    """Reduces `data` over the workers: one worker here."""
    return reduce_fn([data])


def rendezvous(tag, *args, **kwargs):
    return None


def write_to_summary(*args, **kwargs):
    return None


def set_attribute(*args, **kwargs):
    return None


def set_state_names(*args, **kwargs):
    return None


def set_metric_state_names(*args, **kwargs):
    return None


def set_target_num_replicas(*args, **kwargs):
    return None


def print_metrics_report(*args, **kwargs):
    return None


def print_update(*args, **kwargs):
    return None


def metrics_counter_value(name):
    return 0


def hit_worker_cache_limit(*args, **kwargs):
    return False


def save(obj, path, *args, **kwargs):
    return torch.save(obj, path)


class RateTracker:
    """Samples per second, as the runtime's tracker reports them."""

    def __init__(self, smooth_factor=0.4):
        self._smooth = smooth_factor
        self._start = time.time()
        self._last = self._start
        self._count = 0
        self._partial = 0
        self._rate = 0.0

    def update(self, count):
        self._count += count
        self._partial += count
        now = time.time()
        if now > self._last:
            rate = self._partial / (now - self._last)
            self._rate = rate if not self._rate else \
                self._smooth * self._rate + (1 - self._smooth) * rate
            self._partial = 0
            self._last = now

    def rate(self):
        return self._rate

    def global_rate(self):
        elapsed = time.time() - self._start
        return self._count / elapsed if elapsed > 0 else 0.0

    def elapsed_time(self):
        return time.time() - self._start
