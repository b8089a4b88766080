"""cstorch.utils.data (stand-in following cerebras.pytorch R2.1-R2.4).

DataLoader(input_fn, *args, **kwargs) keeps the function and its arguments and calls it when
first iterated, as each worker does on the cluster; input_fn must return a torch DataLoader or
an iterable of tensor structures. DataExecutor(dataloader, num_steps=...) runs the steps,
repeating the loader when it runs out, and knows the checkpoint steps.
"""
import copy
import time

import torch

_executors = []


class DataLoader:
    def __init__(self, input_fn, *args, **kwargs):
        if not callable(input_fn):
            raise TypeError("Expected a callable that constructs and returns a "
                            "`torch.utils.data.DataLoader` or an iterable that returns a "
                            "structure containing torch tensors.")
        self.input_fn = input_fn
        self.input_fn_params = copy.deepcopy((args, kwargs))
        self.batch_size = None
        self._dataloader = None

    @property
    def dataloader(self):
        if self._dataloader is None:
            args, kwargs = copy.deepcopy(self.input_fn_params)
            loader = self.input_fn(*args, **kwargs)
            try:
                iter(loader)
            except TypeError:
                raise TypeError(f"input_fn must return a torch.utils.data.DataLoader or an "
                                f"iterable. Got: {type(loader).__name__}") from None
            self._dataloader = loader
        return self._dataloader

    @property
    def is_restartable(self):
        return all(hasattr(self.dataloader, m) for m in
                   ("state_dict", "load_state_dict", "aggregate_state_dict",
                    "deaggregate_state_dict"))

    def state_dict(self):
        if not self.is_restartable:
            raise RuntimeError("DataLoader is not configured for getting state. Please "
                               "implement RestartableDataLoader interface to enable "
                               "`state_dict()` and `load_state_dict()` methods.")
        return self.dataloader.aggregate_state_dict([self.dataloader.state_dict()])

    def load_state_dict(self, state_dict, strict=True):
        if not self.is_restartable:
            raise RuntimeError("DataLoader is not configured for setting state.")
        self.dataloader.load_state_dict(self.dataloader.deaggregate_state_dict(state_dict))

    def __len__(self):
        return len(self.dataloader)

    def __iter__(self):
        for batch in self.dataloader:
            if self.batch_size is None:
                tensors = [batch] if isinstance(batch, torch.Tensor) else \
                    [t for t in (batch.values() if isinstance(batch, dict) else
                                 batch if isinstance(batch, (list, tuple)) else [])
                     if isinstance(t, torch.Tensor)]
                if tensors and tensors[0].dim() > 0:
                    self.batch_size = int(tensors[0].shape[0])
            yield batch


def compute_num_steps(dataloader, initial_step=0, num_steps=None, max_steps=None,
                      num_epochs=None, steps_per_epoch=None, grad_accum_steps=1):
    """The steps to run, from at most one of num_steps / max_steps / num_epochs."""
    if num_steps is not None:
        return int(num_steps) * grad_accum_steps
    if max_steps is not None:
        return max(int(max_steps) - int(initial_step), 0) * grad_accum_steps
    if num_epochs is not None:
        per_epoch = steps_per_epoch if steps_per_epoch is not None else len(dataloader)
        return int(num_epochs) * int(per_epoch)
    if steps_per_epoch is not None:
        return int(steps_per_epoch)
    raise ValueError("One of num_steps, max_steps or num_epochs must be provided")


class _RateTracker:
    def __init__(self):
        self.start = time.time()
        self.total_samples = 0

    total_time = property(lambda self: time.time() - self.start)
    rate = property(lambda self: self.total_samples / max(self.total_time, 1e-9))
    global_rate = rate


class _Profiler:
    def __init__(self):
        self.rate_tracker = _RateTracker()


class DataExecutor:
    def __init__(self, dataloader, num_steps=None, checkpoint_steps=None, activation_steps=None,
                 cs_config=None, writer=None, profiler_activities=None, listeners=None,
                 micro_batch_size=None):
        if not isinstance(dataloader, DataLoader):
            raise TypeError(f"DataExecutor expects a cstorch.utils.data.DataLoader. Got: "
                            f"{type(dataloader).__name__}")
        self.dataloader = dataloader
        self.num_steps = num_steps
        self.checkpoint_steps = checkpoint_steps
        self.writer = writer
        self.user_iteration = 0
        self.profiler = _Profiler()

    on_final_iteration = property(lambda self: self.num_steps is not None and
                                  self.user_iteration == self.num_steps)
    on_checkpoint_step = property(lambda self: bool(self.checkpoint_steps) and (
        self.user_iteration % int(self.checkpoint_steps) == 0) or self.on_final_iteration)

    def __len__(self):
        return self.num_steps if self.num_steps is not None else len(self.dataloader)

    def __iter__(self):
        _executors.append(self)
        try:
            while self.num_steps is None or self.user_iteration < self.num_steps:
                produced = False
                for batch in self.dataloader:
                    produced = True
                    self.user_iteration += 1
                    self.profiler.rate_tracker.total_samples += self.dataloader.batch_size or 0
                    yield batch
                    if self.num_steps is not None and self.user_iteration >= self.num_steps:
                        return
                if not produced:
                    raise RuntimeError("The dataloader produced no batch")
                if self.num_steps is None:
                    return
        finally:
            if _executors and _executors[-1] is self:
                _executors.pop()


def current_executor(raise_exception=True):
    if not _executors:
        if raise_exception:
            raise RuntimeError("No active data executor found")
        return None
    return _executors[-1]


class SyntheticDataset(torch.utils.data.Dataset):
    """Samples of the given structure of tensors (or TensorSpecs), num_samples of them."""

    def __init__(self, tensors, num_samples=None):
        self.tensors = tensors
        self.num_samples = num_samples or 1024

    def __len__(self):
        return self.num_samples

    def __getitem__(self, index):
        return self.tensors


class DistributedSampler(torch.utils.data.Sampler):
    """A single CPU worker sees every sample; yields batches of indices."""

    def __init__(self, dataset, shuffle=True, seed=None, start_index=0, shard=True,
                 batch_size=None, drop_last=True, num_samples=None, pad_last=False):
        self.dataset, self.shuffle, self.batch_size = dataset, shuffle, batch_size
        self.drop_last = drop_last

    def __iter__(self):
        order = torch.randperm(len(self.dataset)).tolist() if self.shuffle else \
            list(range(len(self.dataset)))
        if self.batch_size is None:
            yield from order
            return
        for i in range(0, len(order), self.batch_size):
            chunk = order[i:i + self.batch_size]
            if len(chunk) == self.batch_size or not self.drop_last:
                yield chunk

    def __len__(self):
        n = len(self.dataset)
        return n if self.batch_size is None else n // self.batch_size
