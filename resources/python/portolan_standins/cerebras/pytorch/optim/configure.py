"""cstorch.optim.configure_* (stand-in following cerebras_pytorch R2.1-R2.2, where the R2.1
Model Zoo's run_cstorch_flow builds the optimizer and schedule from params["optimizer"]).

configure_optimizer(optimizer_type, params, **kwargs) picks the cstorch optimizer by name
(any case), renames Model Zoo's keys (learning_rate -> lr, beta1/beta2 -> betas,
weight_decay_rate -> weight_decay), drops the keys other parts of the run read (loss scaling,
clipping) and warns about the rest, as the real one does. configure_lr_scheduler reads
`learning_rate` when it is a schedule (a dict, or a list of dicts run one after the other).
"""
import inspect
import warnings

import torch

# Keys of params["optimizer"] that are not the optimizer's (the grad scaler, clipping, ...).
NOT_OPTIMIZER = {"optimizer_type", "loss_scaling_factor", "initial_loss_scale",
                 "steps_per_increase", "min_loss_scale", "max_loss_scale", "max_gradient_norm",
                 "max_gradient_value", "grad_accum_steps", "log_summaries",
                 "adjust_learning_rate", "learning_rate", "overflow_tolerance"}
RENAMES = {"weight_decay_rate": "weight_decay", "epsilon": "eps"}


def _optimizer_class(optimizer_type):
    from . import Optimizer
    from .. import optim

    if not isinstance(optimizer_type, str):
        raise TypeError(f"optimizer_type must be a str. Got: {type(optimizer_type)}")
    for name in dir(optim):
        cls = getattr(optim, name)
        if isinstance(cls, type) and issubclass(cls, Optimizer) and cls is not Optimizer and \
                name.lower() == optimizer_type.lower():
            return cls
    names = sorted(n for n in dir(optim) if isinstance(getattr(optim, n), type) and
                   issubclass(getattr(optim, n), Optimizer) and n != "Optimizer")
    raise ValueError(f"Invalid optimizer type {optimizer_type!r}. Expected one of: "
                     f"{', '.join(names)}")


def configure_param_groups(model, optimizer_params):
    """The parameter groups: weights with weight decay, and (when asked) biases and norms
    without it."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"configure_param_groups expects the model. Got: {type(model)}")
    params = [p for p in model.parameters() if p.requires_grad]
    if optimizer_params.get("exclude_bias_and_norm_from_weight_decay"):
        decay, no_decay = [], []
        for name, p in model.named_parameters():
            if p.requires_grad:
                (no_decay if p.dim() < 2 or "norm" in name.lower() else decay).append(p)
        return [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}]
    return [{"params": params}]


def configure_optimizer(optimizer_type, params, **kwargs):
    cls = _optimizer_class(optimizer_type)
    accepted = inspect.signature(cls.__init__).parameters
    args, unused = {}, []
    lr = kwargs.get("learning_rate", kwargs.get("lr"))
    if isinstance(lr, (int, float)):
        args["lr"] = float(lr)
    elif lr is not None:
        # A schedule: its first value is set by configure_lr_scheduler.
        args["lr"] = 0.1
    if "beta1" in kwargs or "beta2" in kwargs:
        args["betas"] = (kwargs.get("beta1", 0.9), kwargs.get("beta2", 0.999))
    for key, value in kwargs.items():
        if key in ("lr", "beta1", "beta2") or key in NOT_OPTIMIZER:
            continue
        name = RENAMES.get(key, key)
        if name in accepted and name not in ("self", "params"):
            args[name] = value
        elif key == "exclude_bias_and_norm_from_weight_decay":
            continue
        else:
            unused.append(key)
    if unused:
        warnings.warn(f"{cls.__name__} got {len(unused)} unexpected and unused parameters: "
                      f"{sorted(unused)}.")
    return cls(params, **args)


SCHEDULER_NAMES = {"constant": "ConstantLR", "linear": "LinearLR",
                   "polynomial": "PolynomialLR", "exponential": "ExponentialLR",
                   "inverseexponentialtimedecay": "InverseExponentialTimeDecayLR",
                   "inversesquarerootdecay": "InverseSquareRootDecayLR",
                   "cosinedecay": "CosineDecayLR", "cosineannealing": "CosineAnnealingLR",
                   "cosineannealingwarmrestarts": "CosineAnnealingWarmRestarts",
                   "step": "StepLR", "multistep": "MultiStepLR",
                   "piecewiseconstant": "PiecewiseConstantLR"}


def _one_scheduler(optimizer, spec):
    from . import lr_scheduler

    spec = dict(spec)
    name = str(spec.pop("scheduler", "")).replace("_", "").replace("LR", "").lower()
    if name not in SCHEDULER_NAMES:
        raise ValueError(f"Unsupported LR scheduler {spec.get('scheduler')!r}; expected one of "
                         f"{sorted(SCHEDULER_NAMES)}")
    cls = getattr(lr_scheduler, SCHEDULER_NAMES[name])
    for old, new in (("steps", "total_iters"), ("decay_steps", "total_iters"),
                     ("learning_rate", "initial_learning_rate"), ("t_max", "T_max")):
        if old in spec and new not in spec and \
                new in inspect.signature(cls.__init__).parameters:
            spec[new] = spec.pop(old)
    if cls.__name__ == "ConstantLR" and "initial_learning_rate" in spec:
        spec["learning_rate"] = spec.pop("initial_learning_rate")
    spec.pop("main_scheduler", None)
    return cls(optimizer, **spec)


def configure_lr_scheduler(optimizer, learning_rate, adjust_learning_rate=None):
    """None for a constant learning rate; else the scheduler the `learning_rate` dict or
    list describes (a list runs its schedulers one after the other)."""
    from . import lr_scheduler

    if learning_rate is None or isinstance(learning_rate, (int, float)):
        return None
    if isinstance(learning_rate, dict):
        specs = [learning_rate]
    elif isinstance(learning_rate, (list, tuple)):
        specs = list(learning_rate)
    else:
        raise TypeError(f"learning_rate must be a number, a dict or a list. Got: "
                        f"{type(learning_rate)}")
    schedulers = [_one_scheduler(optimizer, s) for s in specs]
    if len(schedulers) == 1:
        scheduler = schedulers[0]
    else:
        milestones, total = [], 0
        for s in schedulers[:-1]:
            total += int(s.total_iters or 0)
            milestones.append(total)
        scheduler = lr_scheduler.SequentialLR(optimizer, schedulers, milestones)
    if adjust_learning_rate:
        scheduler = lr_scheduler.ScalePerParamLR(optimizer, scheduler)
    return scheduler
