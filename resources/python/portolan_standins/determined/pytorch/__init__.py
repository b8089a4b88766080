"""determined.pytorch stand-in (Determined 0.2x PyTorchTrial API) for one CPU slot.

PyTorchTrial, PyTorchTrialContext (get_hparam reads the experiment config's hyperparameters),
wrap_model, wrap_optimizer, wrap_lr_scheduler, backward, step_optimizer, DataLoader,
LRScheduler, MetricReducer and the small helpers trials use. Portolan's dry-run driver plays
the part of `det experiment create --local --test`.
"""
import contextlib
import enum
import logging
from typing import Any, Dict, Sequence, Union

import torch

import _portolan_hooks as hooks

from .. import core, errors

TorchData = Union[Dict[str, torch.Tensor], Sequence[torch.Tensor], torch.Tensor]

logger = logging.getLogger("determined.pytorch")


def to_device(data, device, warned_types=None):
    """Moves every tensor in a nested structure to `device`."""
    if isinstance(data, torch.Tensor):
        return data.to(device)
    if isinstance(data, dict):
        return {k: to_device(v, device, warned_types) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(to_device(v, device, warned_types) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(to_device(v, device, warned_types) for v in data)
    return data


class DataLoader:
    """Records the arguments of a torch DataLoader; the harness builds the real one.

    Same signature as torch.utils.data.DataLoader (Determined 0.2x)."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        self.pin_memory = pin_memory
        self.drop_last = drop_last
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers

    def get_data_loader(self, repeat=False, skip=0, num_replicas=1, rank=0):
        kwargs = dict(collate_fn=self.collate_fn, pin_memory=self.pin_memory,
                      timeout=self.timeout, worker_init_fn=self.worker_init_fn,
                      generator=self.generator)
        workers = 0 if hooks.dry_run_batch is not None else self.num_workers
        if workers:
            kwargs.update(num_workers=workers, prefetch_factor=self.prefetch_factor,
                          persistent_workers=self.persistent_workers,
                          multiprocessing_context=self.multiprocessing_context)
        if self.batch_sampler is not None:
            return torch.utils.data.DataLoader(self.dataset, batch_sampler=self.batch_sampler,
                                               **kwargs)
        return torch.utils.data.DataLoader(self.dataset, batch_size=self.batch_size,
                                           shuffle=self.shuffle, sampler=self.sampler,
                                           drop_last=self.drop_last, **kwargs)

    def __len__(self):
        return len(self.get_data_loader())

    def __iter__(self):
        return iter(self.get_data_loader())


class LRScheduler:
    """Wraps a torch LR scheduler with the step mode the harness follows."""

    class StepMode(enum.Enum):
        STEP_EVERY_EPOCH = 1
        STEP_EVERY_BATCH = 2
        MANUAL_STEP = 3
        STEP_EVERY_OPTIMIZER_STEP = 4

    def __init__(self, scheduler, step_mode, frequency=1):
        if not isinstance(step_mode, LRScheduler.StepMode):
            raise TypeError("step_mode must be a determined.pytorch.LRScheduler.StepMode")
        self._scheduler = scheduler
        self._step_mode = step_mode
        self._frequency = frequency

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._scheduler, name)


class Reducer(enum.Enum):
    AVG = 1
    SUM = 2
    MAX = 3
    MIN = 4


class MetricReducer:
    """A custom metric: reset, update (any arguments), per_slot_reduce, cross_slot_reduce."""

    def reset(self):
        raise NotImplementedError

    def per_slot_reduce(self):
        raise NotImplementedError

    def cross_slot_reduce(self, per_slot_metrics):
        raise NotImplementedError


class PyTorchCallback:
    def on_training_start(self):
        pass

    def on_training_epoch_start(self, epoch_idx):
        pass

    def on_training_epoch_end(self, epoch_idx):
        pass

    def on_validation_start(self):
        pass

    def on_validation_end(self, metrics):
        pass

    def on_checkpoint_save_start(self, checkpoint):
        pass

    def on_checkpoint_end(self, checkpoint_dir):
        pass

    def on_checkpoint_load_start(self, checkpoint):
        pass

    def on_trial_shutdown(self):
        pass

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        pass


class _NullWriter:
    """get_tensorboard_writer(): TensorBoard is not written during a dry run."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


class _ExperimentalContext:
    def __init__(self):
        self._auto_amp = False

    def use_amp(self):
        raise errors.InvalidExperimentException(
            "Mixed precision training (AMP) is supported only on GPU slots.")

    def disable_dataset_reproducibility_checks(self):
        pass

    def disable_auto_to_device(self):
        pass


def _hparam_value(spec):
    """The value of one hyperparameter of the experiment config, for a single test trial: a
    const's value, the first categorical value, the minimum of a range."""
    if not isinstance(spec, dict) or "type" not in spec:
        if isinstance(spec, dict):
            return {k: _hparam_value(v) for k, v in spec.items()}
        return spec
    kind = spec["type"]
    if kind == "const":
        return spec["val"]
    if kind == "categorical":
        return spec["vals"][0]
    if kind in ("int", "double"):
        return spec["minval"]
    if kind == "log":
        return spec.get("base", 10.0) ** spec["minval"]
    raise errors.InvalidExperimentException(f"unknown hyperparameter type {kind!r}")


def hparams_from_config(experiment_config):
    return {k: _hparam_value(v) for k, v in (experiment_config.get("hyperparameters") or {}).items()}


class PyTorchTrialContext:
    """The context a PyTorchTrial receives (Determined 0.2x), for one CPU slot."""

    def __init__(self, experiment_config=None, hparams=None):
        self._config = dict(experiment_config or {})
        self._hparams = dict(hparams if hparams is not None else
                             hparams_from_config(self._config))
        # One process, one slot: the Core API stand-in's context serves the trial too.
        self.distributed = core.DistributedContext()
        self.experimental = _ExperimentalContext()
        self.models = []
        self.optimizers = []
        self._scaler = None
        self.lr_schedulers = []
        self._reducers = []
        self._current_batch_idx = None
        self._epoch_len = None
        self._stop_requested = False
        self.device = torch.device("cpu")
        global_batch = self._hparams.get("global_batch_size")
        self._global_batch_size = global_batch
        self._per_slot_batch_size = global_batch
        # The dry run trains on a small batch; the config's stays on record for the capture.
        self._clamped_batch = hooks.clamp_batch(global_batch, "hyperparameters.global_batch_size") \
            if isinstance(global_batch, int) else global_batch

    # Configuration and hyperparameters.
    def get_experiment_config(self) -> Dict[str, Any]:
        return self._config

    def get_data_config(self) -> Dict[str, Any]:
        return self._config.get("data", {}) or {}

    def get_hparams(self) -> Dict[str, Any]:
        return self._hparams

    def get_hparam(self, name: str) -> Any:
        if name not in self._hparams:
            raise ValueError(
                "Could not find name '{}' in experiment hyperparameters. Please check your "
                "experiment configuration 'hyperparameters' section.".format(name))
        if name == "global_batch_size":
            logger.warning("Please use `context.get_per_slot_batch_size()` and "
                           "`context.get_global_batch_size()` instead of accessing "
                           "`global_batch_size` directly.")
            # The dry run's batch, which the loaders get: a model sized from the hyperparameter
            # (a parameter of shape [batch, 1, d]) agrees with its batches, as in the real run.
            return self._clamped_batch
        return self._hparams[name]

    def get_global_batch_size(self) -> int:
        if self._global_batch_size is None:
            raise errors.InvalidExperimentException(
                "global_batch_size is a required hyperparameter for PyTorchTrial")
        return self._global_batch_size

    def get_per_slot_batch_size(self) -> int:
        if self._per_slot_batch_size is None:
            raise errors.InvalidExperimentException(
                "global_batch_size is a required hyperparameter for PyTorchTrial")
        return self._clamped_batch

    def get_trial_id(self) -> int:
        return 1

    def get_experiment_id(self) -> int:
        return 1

    def get_trial_seed(self) -> int:
        return int(self._config.get("reproducibility", {}).get("experiment_seed", 0) or 0)

    def get_tensorboard_path(self):
        return None

    def get_tensorboard_writer(self):
        return _NullWriter()

    def get_enable_tensorboard_logging(self):
        return False

    def get_stop_requested(self) -> bool:
        return self._stop_requested

    def set_stop_requested(self, stop_requested: bool) -> None:
        if not isinstance(stop_requested, bool):
            raise AssertionError("stop_requested must be a boolean")
        self._stop_requested = stop_requested

    def current_train_epoch(self) -> int:
        return 0

    def current_train_batch(self) -> int:
        return self._current_batch_idx or 0

    def is_epoch_start(self) -> bool:
        return self._current_batch_idx == 0

    def is_epoch_end(self) -> bool:
        return False

    # Models, optimizers and schedulers.
    def wrap_model(self, model: torch.nn.Module) -> torch.nn.Module:
        if not isinstance(model, torch.nn.Module):
            raise TypeError("wrap_model() expects a torch.nn.Module")
        self.models.append(model)
        return model

    def wrap_optimizer(self, optimizer: torch.optim.Optimizer, backward_passes_per_step: int = 1,
                       fp16_compression=None, average_aggregated_gradients=None):
        if backward_passes_per_step < 1:
            raise errors.InvalidExperimentException(
                "backward_passes_per_step for local gradient aggregation must be >= 1")
        self.optimizers.append(optimizer)
        return optimizer

    def wrap_lr_scheduler(self, lr_scheduler, step_mode, frequency: int = 1):
        if isinstance(lr_scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau) and \
                step_mode != LRScheduler.StepMode.MANUAL_STEP:
            raise errors.InvalidExperimentException(
                "detected that context.wrap_lr_scheduler() was called with an instance of "
                "torch.optim.lr_scheduler.ReduceLROnPlateau as the lr_scheduler. This lr "
                "scheduler class does not have the usual step() parameters, and so it can only "
                "be used with step_mode=MANUAL_STEP.")
        opt = getattr(lr_scheduler, "optimizer", None)
        if opt is not None and opt not in self.optimizers:
            raise AssertionError("Must use an optimizer that is returned by wrap_optimizer()")
        self.lr_schedulers.append(LRScheduler(lr_scheduler, step_mode, frequency))
        return lr_scheduler

    def wrap_scaler(self, scaler):
        # Determined checks the order and that it is wrapped once, not the device: a GradScaler
        # made where CUDA is absent is disabled, and a disabled scaler is accepted.
        if self._scaler is not None:
            raise errors.InvalidExperimentException("Please only call wrap_scaler or use_amp once.")
        if self.models:
            raise errors.InvalidExperimentException("Please call wrap_scaler before wrap_model.")
        self._scaler = scaler
        return scaler

    def configure_apex_amp(self, models, optimizers, enabled=True, opt_level="O1",
                           cast_model_type=None, patch_torch_functions=None,
                           keep_batchnorm_fp32=None, master_weights=None, loss_scale=None,
                           cast_model_outputs=None, num_losses=1, verbosity=1,
                           min_loss_scale=None, max_loss_scale=2.0 ** 24):
        raise errors.InvalidExperimentException(
            "Mixed precision training (AMP) is supported only on GPU slots.")

    def wrap_reducer(self, reducer, name=None, for_training=True, for_validation=True):
        if not isinstance(reducer, MetricReducer) and not callable(reducer):
            raise TypeError("wrap_reducer() expects a MetricReducer or a callable")
        self._reducers.append((reducer, name, for_training, for_validation))
        return reducer

    def to_device(self, data):
        return to_device(data, self.device)

    def autocast_forward_pass(self, to_wrap):
        return to_wrap

    def backward(self, loss: torch.Tensor, gradient=None, retain_graph: bool = False,
                 create_graph: bool = False) -> None:
        loss.backward(gradient=gradient, retain_graph=retain_graph, create_graph=create_graph)

    def step_optimizer(self, optimizer: torch.optim.Optimizer, clip_grads=None,
                       auto_zero_grads: bool = True, scaler=None) -> None:
        if optimizer not in self.optimizers:
            raise AssertionError("step_optimizer() expects an optimizer returned by "
                                 "wrap_optimizer()")
        if clip_grads is not None:
            parameters = [p for group in optimizer.param_groups for p in group["params"]]
            clip_grads(parameters)
        if scaler is not None:
            scaler.step(optimizer)
        else:
            optimizer.step()
        for scheduler in self.lr_schedulers:
            if scheduler._step_mode == LRScheduler.StepMode.STEP_EVERY_OPTIMIZER_STEP and \
                    scheduler._scheduler.optimizer is optimizer:
                scheduler._scheduler.step()
        if auto_zero_grads:
            optimizer.zero_grad()

    @contextlib.contextmanager
    def _portolan_batch(self, batch_idx):
        self._current_batch_idx = batch_idx
        yield


class PyTorchTrial:
    """Base class of a trial: __init__(context), build_training_data_loader,
    build_validation_data_loader, train_batch, evaluate_batch (or evaluate_full_dataset)."""

    trial_context_class = PyTorchTrialContext

    def __init__(self, context: PyTorchTrialContext) -> None:
        pass

    def build_training_data_loader(self) -> DataLoader:
        raise NotImplementedError("PyTorchTrial requires build_training_data_loader()")

    def build_validation_data_loader(self) -> DataLoader:
        raise NotImplementedError("PyTorchTrial requires build_validation_data_loader()")

    def train_batch(self, batch: TorchData, epoch_idx: int, batch_idx: int):
        raise NotImplementedError("PyTorchTrial requires train_batch()")

    def build_callbacks(self) -> Dict[str, PyTorchCallback]:
        return {}

    def get_batch_length(self, batch: TorchData) -> int:
        if isinstance(batch, torch.Tensor):
            return batch.shape[0]
        if isinstance(batch, dict):
            return next(iter(batch.values())).shape[0]
        return batch[0].shape[0]


@contextlib.contextmanager
def init(*, hparams=None, exp_conf=None, distributed=None, aggregation_frequency=1,
         enable_tensorboard_logging=True):
    """The Trainer API's context (Determined 0.21+), for one CPU slot. On a cluster, init()
    without arguments reads the trial's experiment config and hyperparameters: the config the
    dry run runs stands in for it (the hooks' determined_experiment)."""
    on_cluster = hooks.determined_experiment if exp_conf is None else None
    config = dict(exp_conf or on_cluster or {})
    if hparams is not None:
        config["hyperparameters"] = hparams
    yield PyTorchTrialContext(config, hparams)


class Trainer:
    """The Trainer API (Determined 0.21+): trains a PyTorchTrial in this process."""

    def __init__(self, trial, context=None):
        self._trial = trial
        self._context = context

    def fit(self, checkpoint_period=None, validation_period=None, max_length=None,
            reporting_period=None, checkpoint_policy="best", latest_checkpoint=None,
            step_zero_validation=False, test_mode=False, profiling_enabled=False):
        loader = self._trial.build_training_data_loader()
        if isinstance(loader, DataLoader):
            loader = loader.get_data_loader()
        # max_length is Batch(n) (n batches) or Epoch(n) (n passes over the loader); the dry
        # run itself stops after its few optimizer steps.
        limit = getattr(max_length, "value", max_length)
        epochs = int(limit) if isinstance(max_length, Epoch) else None
        batches = int(limit) if limit is not None and epochs is None else None
        batch_idx, epoch_idx = 0, 0
        while epochs is None or epoch_idx < epochs:
            for batch in loader:
                self._context._current_batch_idx = batch_idx
                self._trial.train_batch(batch, epoch_idx, batch_idx)
                batch_idx += 1
                if batches is not None and batch_idx >= batches:
                    return
            epoch_idx += 1


class Batch:
    def __init__(self, value):
        self.value = value


class Epoch:
    def __init__(self, value):
        self.value = value
