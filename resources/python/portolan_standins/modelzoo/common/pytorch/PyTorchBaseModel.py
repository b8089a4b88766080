"""PyTorchBaseModel (stand-in following Model Zoo R1.6-R1.8).

A subclass builds its torch.nn.Module and calls super().__init__(params=..., model=...,
device=...); the base class moves the model to the device and builds the optimizer and the
learning-rate schedule from params["optimizer"]. The subclass's __call__(data) returns the loss.
"""
import math
from abc import ABC

import torch

import _portolan_hooks as hooks
from _portolan_lamb import Lamb

from . import cb_model as cm
from . import modes

SUPPORTED_OPTIMIZERS = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "ASGD",
                        "Lamb", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD"]


def _lr_at(schedule, step):
    """Learning rate of one schedule dict at `step` (steps counted from its start)."""
    kind = str(schedule["scheduler"]).lower()

    def need(*keys):
        missing = [k for k in keys if k not in schedule]
        if missing:
            raise ValueError(f"Missing required parameters {missing} for the {kind} learning "
                             f"rate scheduler")

    if kind == "constant":
        need("learning_rate")
        return float(schedule["learning_rate"])
    decay_steps = schedule.get("decay_steps", schedule.get("steps"))
    if kind == "exponential":
        need("initial_learning_rate", "decay_rate")
        exponent = step / float(decay_steps)
        if schedule.get("staircase", False):
            exponent = math.floor(exponent)
        return float(schedule["initial_learning_rate"]) * float(schedule["decay_rate"]) ** exponent
    if kind in ("polynomial", "linear"):
        need("initial_learning_rate", "end_learning_rate")
        power = float(schedule.get("power", 1.0)) if kind == "polynomial" else 1.0
        t = min(step, float(decay_steps)) / float(decay_steps)
        start, end = float(schedule["initial_learning_rate"]), float(schedule["end_learning_rate"])
        return (start - end) * (1 - t) ** power + end
    if kind == "piecewiseconstant":
        need("values", "boundaries")
        for value, boundary in zip(schedule["values"], schedule["boundaries"]):
            if step < boundary:
                return float(value)
        return float(schedule["values"][-1])
    if kind in ("cosine", "cosinedecay"):
        need("initial_learning_rate")
        alpha = float(schedule.get("alpha", 0.0))
        end = schedule.get("end_learning_rate")
        t = min(step, float(decay_steps)) / float(decay_steps)
        start = float(schedule["initial_learning_rate"])
        low = float(end) if end is not None else alpha * start
        return low + (start - low) * 0.5 * (1 + math.cos(math.pi * t))
    if kind == "inverseexponentialtimedecay":
        need("initial_learning_rate", "decay_rate", "decay_steps")
        return float(schedule["initial_learning_rate"]) / (
            1 + float(schedule["decay_rate"]) * step / float(decay_steps))
    raise ValueError(f"Unsupported LR scheduler {schedule['scheduler']}")


def _schedule_fn(learning_rate):
    """lr(step) for a learning_rate entry: a number, a schedule dict, or a list of schedules
    (each one running for its `steps`, the last one for ever)."""
    if isinstance(learning_rate, (int, float, str)):
        value = float(learning_rate)
        return lambda step: value
    schedules = [learning_rate] if isinstance(learning_rate, dict) else list(learning_rate)

    def lr(step):
        start = 0
        for i, schedule in enumerate(schedules):
            length = schedule.get("steps", schedule.get("decay_steps"))
            if i == len(schedules) - 1 or length is None or step < start + int(length):
                return _lr_at(schedule, step - start)
            start += int(length)
        return _lr_at(schedules[-1], step - start)

    return lr


class PyTorchBaseModel(ABC):
    def __init__(self, params: dict, model: torch.nn.Module, device: torch.device):
        self.model = model
        if device:
            self.model = self.model.to(device)
        self.device = device
        self._post_device_transfer()

        self.mode = params["runconfig"]["mode"]
        self.mixed_precision = params["model"].get("mixed_precision", False)
        seed = params["runconfig"].get("seed", None)
        if seed is not None:
            torch.manual_seed(seed)

        oparams = params["optimizer"]
        learning_rate = oparams["learning_rate"]
        if not isinstance(learning_rate, (float, int, str, dict, list)):
            raise ValueError("Learning rate must be a float, a dict, or a list of dicts. Got "
                             f"{type(learning_rate)}")
        self.optimizer = None
        self.lr_scheduler = None
        if self.mode in (modes.TRAIN, modes.TRAIN_AND_EVAL):
            self.optimizer = self._configure_optimizer(oparams)
            self.lr_scheduler = self._configure_lr_scheduler(learning_rate)

    def __call__(self, data):
        raise NotImplementedError("A PyTorchBaseModel subclass must define __call__(data) "
                                  "returning the loss")

    def train(self):
        self.model.train()
        self.mode = modes.TRAIN

    def eval(self):
        self.model.eval()
        self.mode = modes.EVAL

    @property
    def supported_cs_modes(self):
        return (modes.TRAIN, modes.EVAL)

    @property
    def supported_non_cs_modes(self):
        return (modes.TRAIN, modes.EVAL, modes.TRAIN_AND_EVAL)

    def supports_mode(self, mode) -> bool:
        return mode in (self.supported_cs_modes if cm.use_cs() else self.supported_non_cs_modes)

    def _post_device_transfer(self):
        """Called after the model is on its device, before the optimizer is built."""

    def trainable_named_parameters(self):
        """(the layers left out of the weight decay, the named parameters), as Model Zoo's
        utils.trainable_named_parameters: every normalization module and every bias."""
        norms = (torch.nn.LayerNorm, torch.nn.BatchNorm1d, torch.nn.BatchNorm2d,
                 torch.nn.BatchNorm3d, torch.nn.InstanceNorm1d, torch.nn.InstanceNorm2d,
                 torch.nn.InstanceNorm3d, torch.nn.GroupNorm, torch.nn.SyncBatchNorm)
        no_decay = [n for n, m in self.model.named_modules() if isinstance(m, norms)]
        no_decay.append("bias")
        return no_decay, list(self.model.named_parameters())

    def get_optimizer(self):
        return self.optimizer

    def get_lr_scheduler(self):
        return self.lr_scheduler

    def _param_groups(self, oparams):
        """Model Zoo's group_optimizer_params: the weight decay on all but the layers left out."""
        no_decay_layers, named = self.trainable_named_parameters()
        decay = float(oparams.get("weight_decay_rate", 0.0) or 0.0)
        if not decay:
            # The same optimizer as the two groups without decay, with the parameters in the
            # model's order (the order the optimizer's state and a replay follow).
            return [{"params": [p for _, p in named], "weight_decay": 0.0}]
        left_out = [any(nd in n for nd in no_decay_layers) for n, _ in named]
        return [{"params": [p for (_, p), out in zip(named, left_out) if not out],
                 "weight_decay": decay},
                {"params": [p for (_, p), out in zip(named, left_out) if out],
                 "weight_decay": 0.0}]

    def _configure_optimizer(self, oparams):
        kind = str(oparams["optimizer_type"]).lower()
        lr = oparams["learning_rate"]
        lr = float(lr) if isinstance(lr, (float, int, str)) else 0.1
        groups = self._param_groups(oparams)
        betas = (oparams.get("beta1", 0.9), oparams.get("beta2", 0.999))
        eps = oparams.get("eps", 1e-6)
        decay = oparams.get("weight_decay_rate", 0.0)
        if kind == "sgd":
            return torch.optim.SGD(groups, lr=lr, momentum=oparams.get("momentum", 0.0),
                                   weight_decay=decay,
                                   nesterov=oparams.get("use_nesterov", False))
        if kind == "adam":
            return torch.optim.Adam(groups, lr=lr, betas=betas, eps=eps,
                                    amsgrad=oparams.get("amsgrad", False))
        if kind == "adamw":
            if not oparams.get("correct_bias", False):
                hooks.notify("info", "AdamW without correct_bias: the dry run keeps torch's "
                             "bias correction (the step runs; the values differ slightly)")
            return torch.optim.AdamW(groups, lr=lr, betas=betas, eps=eps,
                                     amsgrad=oparams.get("amsgrad", False))
        if kind == "adamax":
            return torch.optim.Adamax(groups, lr=lr, betas=betas, eps=eps, weight_decay=decay)
        if kind == "adadelta":
            return torch.optim.Adadelta(groups, lr=lr, rho=oparams.get("rho", 0.9), eps=eps,
                                        weight_decay=decay)
        if kind == "adagrad":
            return torch.optim.Adagrad(groups, lr=lr, lr_decay=oparams.get("lr_decay", 0.0),
                                       weight_decay=decay, eps=eps)
        if kind == "asgd":
            return torch.optim.ASGD(groups, lr=lr, lambd=oparams.get("lambd", 1e-4),
                                    alpha=oparams.get("alpha", 0.75),
                                    t0=oparams.get("t0", 1e6),
                                    weight_decay=oparams.get("weight_decay", 0.0))
        if kind == "lamb":
            return Lamb(groups, lr=lr, betas=betas, eps=eps, weight_decay=decay,
                        adam=oparams.get("adam", False))
        if kind == "radam":
            return torch.optim.RAdam(groups, lr=lr, betas=betas, eps=eps, weight_decay=decay)
        if kind == "nadam":
            return torch.optim.NAdam(groups, lr=lr, betas=betas, eps=eps, weight_decay=decay,
                                     momentum_decay=oparams.get("momentum_decay", 4e-3))
        if kind == "rmsprop":
            return torch.optim.RMSprop(groups, lr=lr, alpha=oparams.get("alpha", 0.99),
                                       momentum=oparams.get("momentum", 0),
                                       centered=oparams.get("centered", False), eps=eps,
                                       weight_decay=decay)
        if kind == "rprop":
            return torch.optim.Rprop(groups, lr=lr,
                                     etas=(oparams.get("eta1", 0.5), oparams.get("eta2", 1.2)),
                                     step_sizes=(oparams.get("step_size_min", 1e-6),
                                                 oparams.get("step_size_max", 50.0)))
        if kind == "adafactor":
            raise ValueError("optimizer_type Adafactor has no CPU stand-in in Portolan's dry "
                             "run; use a Model Zoo checkout (--sdk-path)")
        raise ValueError(f"Unsupported optimizer type {oparams['optimizer_type']}. Supported "
                         f"types:{SUPPORTED_OPTIMIZERS}.")

    def _configure_lr_scheduler(self, learning_rate):
        if isinstance(learning_rate, (float, int, str)):
            return None
        lr = _schedule_fn(learning_rate)
        lr(0)  # a malformed schedule fails here, before the first step
        for group in self.optimizer.param_groups:
            group["lr"] = 1.0
        return torch.optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda=lr)
