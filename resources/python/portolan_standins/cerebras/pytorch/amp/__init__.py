"""cstorch.amp (stand-in following cerebras.pytorch R2.1-R2.4): the half dtype, GradScaler
and optimizer_step.

The half dtype is a process setting (float16 by default; use_bfloat16 / set_half_dtype
change it); get_floating_point_dtype gives float32 unless mixed precision is on. GradScaler
scales the loss by a static factor ("dynamic" starts at init_scale and is kept: a dry run of a
few steps does not overflow); it reports the unscaled loss to the dry run first.
"""
import contextlib

import torch

import _portolan_hooks as hooks

_HALF = {"float16": torch.float16, "bfloat16": torch.bfloat16,
         "cbfloat16": torch.bfloat16}  # cbfloat16 is CSX-only; bfloat16 on the CPU
_state = {"half": torch.float16, "mixed_precision": False}


def set_half_dtype(value):
    if isinstance(value, str):
        if value not in _HALF:
            raise ValueError(f"Invalid half dtype {value!r}. Expected one of {list(_HALF)}")
        value = _HALF[value]
    if value not in (torch.float16, torch.bfloat16):
        raise ValueError(f"Half dtype must be torch.float16 or torch.bfloat16. Got: {value}")
    _state["half"] = value
    return value


def use_bfloat16(use):
    """R1.9-R2.1 spelling of set_half_dtype(torch.bfloat16)."""
    return set_half_dtype(torch.bfloat16 if use else torch.float16)


def get_half_dtype():
    return _state["half"]


def get_half_dtype_str():
    return str(_state["half"]).replace("torch.", "")


def enable_mixed_precision(enable=True):
    _state["mixed_precision"] = bool(enable)


def mixed_precision():
    return _state["mixed_precision"]


def get_floating_point_dtype():
    return _state["half"] if _state["mixed_precision"] else torch.float32


def get_floating_point_dtype_str():
    return str(get_floating_point_dtype()).replace("torch.", "")


def is_cbfloat16_tensor(tensor):
    return False


@contextlib.contextmanager
def autocast(*args, **kwargs):
    """Casts to the half dtype on the cluster; the dry run keeps float32 on the CPU."""
    yield


class GradScaler:
    def __init__(self, loss_scale=None, init_scale=None, steps_per_increase=2000,
                 min_loss_scale=None, max_loss_scale=None, overflow_tolerance=0.0,
                 max_gradient_norm=None):
        if loss_scale == "dynamic":
            self._scale = float(init_scale if init_scale is not None else 2.0 ** 15)
        elif loss_scale is None:
            self._scale = 1.0
        elif isinstance(loss_scale, (int, float)):
            self._scale = float(loss_scale)
        else:
            raise ValueError(f"loss_scale must be a number, \"dynamic\" or None. Got: "
                             f"{loss_scale!r}")
        self.dynamic = loss_scale == "dynamic"
        self.steps_per_increase = steps_per_increase
        self.max_gradient_norm = max_gradient_norm
        self._unscaled = set()

    def scale(self, loss):
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"GradScaler.scale expects the loss tensor. Got: {type(loss)}")
        if hooks.loss_reporter is not None:
            hooks.loss_reporter(loss)
        return loss * self._scale

    def unscale_(self, optimizer):
        if id(optimizer) in self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        with torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.div_(self._scale)
        self._unscaled.add(id(optimizer))

    def step(self, optimizer, *args, **kwargs):
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        if new_scale is not None:
            self._scale = float(new_scale)
        self._unscaled.clear()

    def get_scale(self):
        return self._scale

    def state_dict(self):
        return {"scale": self._scale, "dynamic": self.dynamic}

    def load_state_dict(self, state_dict):
        self._scale = float(state_dict["scale"])


def optimizer_step(loss, optimizer, grad_scaler, max_gradient_norm=None,
                   max_gradient_value=None):
    """Scaled backward, unscale, clip (norm or value, not both), step, update, zero_grad."""
    if max_gradient_norm is not None and max_gradient_value is not None:
        raise ValueError("Gradients can be clipped by norm or by value, but not both. Do not "
                         "set both max_gradient_norm and max_gradient_value.")
    grad_scaler.scale(loss).backward()
    grad_scaler.unscale_(optimizer)
    params = [p for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
    if max_gradient_norm:
        torch.nn.utils.clip_grad_norm_(params, max_gradient_norm)
    elif max_gradient_value:
        torch.nn.utils.clip_grad_value_(params, max_gradient_value)
    grad_scaler.step(optimizer)
    grad_scaler.update()
    optimizer.zero_grad()
