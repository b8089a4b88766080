"""poptorch.optim stand-ins (PopTorch 3.x signatures).

Each class is the torch.optim optimizer of the same name plus PopTorch's IPU-only arguments
(loss scaling, accumulator types, velocity scaling, ...). Those are recorded in
`poptorch_settings` for the capture and have no effect on the CPU. An unknown keyword raises
TypeError, as it does in PopTorch.
"""
import torch

from _portolan_lamb import Lamb


def _torch_kwargs(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not None}


class _PopTorchOptimizer:
    """Mixin: keeps PopTorch's extra settings for the dry run's capture."""

    def _keep(self, **settings):
        self.poptorch_settings = {k: (str(v) if isinstance(v, torch.dtype) else v)
                                  for k, v in settings.items() if v is not None}


class SGD(torch.optim.SGD, _PopTorchOptimizer):
    def __init__(self, params, lr, momentum=None, dampening=None, weight_decay=None,
                 nesterov=None, maximize=None, foreach=None, differentiable=None,
                 loss_scaling=None, velocity_scaling=None, use_combined_accum=None,
                 max_grad_norm=None):
        super().__init__(params, lr=lr, **_torch_kwargs(momentum=momentum, dampening=dampening,
                                                        weight_decay=weight_decay,
                                                        nesterov=nesterov, maximize=maximize))
        self._keep(loss_scaling=loss_scaling, velocity_scaling=velocity_scaling,
                   use_combined_accum=use_combined_accum, max_grad_norm=max_grad_norm)


class Adam(torch.optim.Adam, _PopTorchOptimizer):
    def __init__(self, params, lr=None, betas=None, eps=None, weight_decay=None, amsgrad=None,
                 foreach=None, maximize=None, capturable=None, differentiable=None, fused=None,
                 loss_scaling=None, accum_type=None, first_order_momentum_accum_type=None,
                 second_order_momentum_accum_type=None, max_grad_norm=None):
        super().__init__(params, **_torch_kwargs(lr=lr, betas=betas, eps=eps,
                                                 weight_decay=weight_decay, amsgrad=amsgrad,
                                                 maximize=maximize))
        self._keep(loss_scaling=loss_scaling, accum_type=accum_type,
                   first_order_momentum_accum_type=first_order_momentum_accum_type,
                   second_order_momentum_accum_type=second_order_momentum_accum_type,
                   max_grad_norm=max_grad_norm)


class AdamW(torch.optim.AdamW, _PopTorchOptimizer):
    def __init__(self, params, lr=None, betas=None, eps=None, weight_decay=None, amsgrad=None,
                 maximize=None, foreach=None, capturable=None, differentiable=None, fused=None,
                 loss_scaling=None, bias_correction=None, accum_type=None,
                 first_order_momentum_accum_type=None, second_order_momentum_accum_type=None,
                 max_grad_norm=None):
        super().__init__(params, **_torch_kwargs(lr=lr, betas=betas, eps=eps,
                                                 weight_decay=weight_decay, amsgrad=amsgrad,
                                                 maximize=maximize))
        self._keep(loss_scaling=loss_scaling, bias_correction=bias_correction,
                   accum_type=accum_type,
                   first_order_momentum_accum_type=first_order_momentum_accum_type,
                   second_order_momentum_accum_type=second_order_momentum_accum_type,
                   max_grad_norm=max_grad_norm)


class RMSprop(torch.optim.RMSprop, _PopTorchOptimizer):
    def __init__(self, params, lr=None, alpha=None, eps=None, weight_decay=None, momentum=None,
                 centered=None, foreach=None, maximize=None, differentiable=None,
                 loss_scaling=None, accum_type=None, first_order_momentum_accum_type=None,
                 second_order_momentum_accum_type=None, use_tf_variant=None):
        super().__init__(params, **_torch_kwargs(lr=lr, alpha=alpha, eps=eps,
                                                 weight_decay=weight_decay, momentum=momentum,
                                                 centered=centered, maximize=maximize))
        self._keep(loss_scaling=loss_scaling, accum_type=accum_type,
                   first_order_momentum_accum_type=first_order_momentum_accum_type,
                   second_order_momentum_accum_type=second_order_momentum_accum_type,
                   use_tf_variant=use_tf_variant)


class LAMB(Lamb, _PopTorchOptimizer):
    def __init__(self, params, lr=None, betas=None, eps=None, weight_decay=None,
                 bias_correction=None, loss_scaling=None, max_weight_norm=None, accum_type=None,
                 first_order_momentum_accum_type=None, second_order_momentum_accum_type=None,
                 max_grad_norm=None):
        super().__init__(params, lr=1e-3 if lr is None else lr,
                         betas=(0.9, 0.999) if betas is None else betas,
                         eps=1e-8 if eps is None else eps,
                         weight_decay=1e-2 if weight_decay is None else weight_decay,
                         bias_correction=True if bias_correction is None else bias_correction,
                         max_weight_norm=max_weight_norm)
        self._keep(loss_scaling=loss_scaling, accum_type=accum_type,
                   first_order_momentum_accum_type=first_order_momentum_accum_type,
                   second_order_momentum_accum_type=second_order_momentum_accum_type,
                   max_grad_norm=max_grad_norm)


class VariableAttributes:
    """Which optimizer attributes are constant (PopTorch compiles constants in)."""

    def __init__(self, variable_attributes, allowed_attributes):
        self._variable = set(variable_attributes)
        self._allowed = set(allowed_attributes)

    def isConstant(self, attr):
        return attr not in self._variable

    def markAsConstant(self, attr):
        self._variable.discard(attr)

    def markAsVariable(self, attr):
        self._variable.add(attr)


Optimizer = torch.optim.Optimizer
