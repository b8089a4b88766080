"""cstorch.optim (stand-in following cerebras.pytorch R2.1-R2.4).

The Cerebras optimizers keep their own signatures (SGD's lr has no default; Adam and AdamW
default eps to 1e-6 and take correct_bias); the update is torch's, which is what the CPU needs.
Every one is a cstorch.optim.Optimizer, which is a torch.optim.Optimizer, so the dry run
counts its steps. configure_optimizer / configure_param_groups / configure_lr_scheduler read
Model Zoo's `optimizer:` params as the R2.1 run_cstorch_flow hands them over.
"""
import torch

import _portolan_hooks as hooks
from _portolan_lamb import Lamb as _Lamb

from . import lr_scheduler  # noqa: F401 - cstorch.optim.lr_scheduler
from . import scheduler  # noqa: F401
from .configure import (configure_lr_scheduler, configure_optimizer,  # noqa: F401
                        configure_param_groups)
from .lr_scheduler import (ChainedScheduler, ConstantLR, CosineAnnealingLR,  # noqa: F401
                           CosineAnnealingWarmRestarts, CosineDecayLR, ExponentialLR,
                           InverseExponentialTimeDecayLR, InverseSquareRootDecayLR, LambdaLR,
                           LinearLR, LRScheduler, MultiplicativeLR, MultiStepLR,
                           PiecewiseConstantLR, PolynomialLR, ScalePerParamLR, SequentialLR,
                           StepLR)


class Optimizer(torch.optim.Optimizer):
    """Base of the Cerebras optimizers."""

    def preinitialize(self):
        """The real one allocates the state before the first step so that it compiles."""


def _positive(name, value):
    if value < 0.0:
        raise ValueError(f"Invalid {name}: {value}")


class SGD(Optimizer, torch.optim.SGD):
    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 maximize=False):
        _positive("learning rate", lr)
        _positive("momentum value", momentum)
        _positive("weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a `momentum` and zero `dampening`. "
                             f"`momentum` was {momentum} and `dampening` was {dampening}.")
        torch.optim.SGD.__init__(self, params, lr=lr, momentum=momentum, dampening=dampening,
                                 weight_decay=weight_decay, nesterov=nesterov,
                                 maximize=maximize)


def _adam_checks(lr, betas, eps, correct_bias):
    _positive("learning rate", lr)
    _positive("epsilon value", eps)
    if not 0.0 <= betas[0] < 1.0 or not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameters: {betas} - should be in [0.0, 1.0)")
    if not correct_bias:
        hooks.notify("info", "correct_bias=False: the dry run's Adam keeps torch's bias "
                     "correction (the step runs; the values differ slightly)")


class Adam(Optimizer, torch.optim.Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                 l2_regularization_rate=0.0, correct_bias=True, amsgrad=False):
        _adam_checks(lr, betas, eps, correct_bias)
        torch.optim.Adam.__init__(self, params, lr=lr, betas=tuple(betas), eps=eps,
                                  weight_decay=weight_decay + l2_regularization_rate,
                                  amsgrad=amsgrad)


class AdamW(Optimizer, torch.optim.AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                 l2_regularization_rate=0.0, correct_bias=True, amsgrad=False):
        _adam_checks(lr, betas, eps, correct_bias)
        torch.optim.AdamW.__init__(self, params, lr=lr, betas=tuple(betas), eps=eps,
                                   weight_decay=weight_decay, amsgrad=amsgrad)


class Adamax(Optimizer, torch.optim.Adamax):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                 maximize=False):
        torch.optim.Adamax.__init__(self, params, lr=lr, betas=tuple(betas), eps=eps,
                                    weight_decay=weight_decay, maximize=maximize)


class Adadelta(Optimizer, torch.optim.Adadelta):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False):
        torch.optim.Adadelta.__init__(self, params, lr=lr, rho=rho, eps=eps,
                                      weight_decay=weight_decay, maximize=maximize)


class Adagrad(Optimizer, torch.optim.Adagrad):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-6, maximize=False):
        torch.optim.Adagrad.__init__(self, params, lr=lr, lr_decay=lr_decay,
                                     weight_decay=weight_decay,
                                     initial_accumulator_value=initial_accumulator_value,
                                     eps=eps, maximize=maximize)


class ASGD(Optimizer, torch.optim.ASGD):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 maximize=False):
        torch.optim.ASGD.__init__(self, params, lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                  weight_decay=weight_decay, maximize=maximize)


class RMSprop(Optimizer, torch.optim.RMSprop):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, maximize=False):
        torch.optim.RMSprop.__init__(self, params, lr=lr, alpha=alpha, eps=eps,
                                     weight_decay=weight_decay, momentum=momentum,
                                     centered=centered, maximize=maximize)


class Rprop(Optimizer, torch.optim.Rprop):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0),
                 maximize=False):
        torch.optim.Rprop.__init__(self, params, lr=lr, etas=tuple(etas),
                                   step_sizes=tuple(step_sizes), maximize=maximize)


class NAdam(Optimizer, torch.optim.NAdam):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3):
        torch.optim.NAdam.__init__(self, params, lr=lr, betas=tuple(betas), eps=eps,
                                   weight_decay=weight_decay, momentum_decay=momentum_decay)


class RAdam(Optimizer, torch.optim.RAdam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0):
        torch.optim.RAdam.__init__(self, params, lr=lr, betas=tuple(betas), eps=eps,
                                   weight_decay=weight_decay)


class Lamb(Optimizer, _Lamb):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                 adam=False):
        _Lamb.__init__(self, params, lr=lr, betas=tuple(betas), eps=eps,
                       weight_decay=weight_decay, adam=adam)


class Lion(Optimizer):
    """Sign of the interpolated momentum (Chen et al., 2023), decoupled weight decay."""

    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        _positive("learning rate", lr)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                m = self.state[p].setdefault("exp_avg", torch.zeros_like(p))
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(torch.sign(m * beta1 + p.grad * (1 - beta1)), alpha=-group["lr"])
                m.mul_(beta2).add_(p.grad, alpha=1 - beta2)
        return loss
