"""cstorch.optim.lr_scheduler (stand-in following cerebras.pytorch R2.1-R2.4).

The Cerebras schedulers name their values (initial_learning_rate, end_learning_rate,
total_iters, ...) instead of torch's factors, and compute the learning rate of a step from the
step alone. Each class here keeps the real signature (param_group_tags is R2.3 on; accepted);
the value is a closed formula of the step, set on every param group.
"""
import math

import torch


class LRScheduler(torch.optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, total_iters=None, last_epoch=-1, param_group_tags=None):
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"{type(self).__name__} expects an optimizer. Got: "
                            f"{type(optimizer).__name__}")
        self.total_iters = total_iters
        self.param_group_tags = param_group_tags
        super().__init__(optimizer, last_epoch)

    def lr_at(self, step):  # the learning rate at a step, per class
        raise NotImplementedError

    def get_lr(self):
        value = float(self.lr_at(max(self.last_epoch, 0)))
        return [value for _ in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return self.get_lr()


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, learning_rate, total_iters=None, param_group_tags=None):
        self.learning_rate = learning_rate
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.learning_rate


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, end_learning_rate, total_iters,
                 power=1.0, cycle=False, param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags)

    def lr_at(self, step):
        total = max(int(self.total_iters), 1)
        if self.cycle:
            total = total * max(1, math.ceil(step / total))
        frac = min(step, total) / total
        return (self.initial_learning_rate - self.end_learning_rate) * \
            (1 - frac) ** self.power + self.end_learning_rate


class LinearLR(PolynomialLR):
    def __init__(self, optimizer, initial_learning_rate, end_learning_rate, total_iters,
                 cycle=False, param_group_tags=None):
        super().__init__(optimizer, initial_learning_rate, end_learning_rate, total_iters,
                         1.0, cycle, param_group_tags)


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, total_iters, decay_rate,
                 staircase=False, param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_rate = decay_rate
        self.staircase = staircase
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags)

    def lr_at(self, step):
        power = step / self.total_iters
        return self.initial_learning_rate * self.decay_rate ** \
            (math.floor(power) if self.staircase else power)


class InverseExponentialTimeDecayLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, step_exponent, total_iters,
                 decay_rate, staircase=False, param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.step_exponent = step_exponent
        self.decay_rate = decay_rate
        self.staircase = staircase
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags)

    def lr_at(self, step):
        t = step ** self.step_exponent / self.total_iters
        return self.initial_learning_rate / \
            (1 + self.decay_rate * (math.floor(t) if self.staircase else t))


class InverseSquareRootDecayLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate=1.0, scale=1.0, warmup_steps=1.0,
                 param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.scale = scale
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.initial_learning_rate * self.scale / \
            math.sqrt(max(step, self.warmup_steps))


class CosineDecayLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, end_learning_rate, total_iters,
                 param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.end_learning_rate = end_learning_rate
        super().__init__(optimizer, total_iters, param_group_tags=param_group_tags)

    def lr_at(self, step):
        frac = min(step, self.total_iters) / max(self.total_iters, 1)
        return self.end_learning_rate + 0.5 * (self.initial_learning_rate -
                                               self.end_learning_rate) * \
            (1 + math.cos(math.pi * frac))


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, T_max, eta_min=0.0,
                 param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.eta_min + 0.5 * (self.initial_learning_rate - self.eta_min) * \
            (1 + math.cos(math.pi * step / self.T_max))


class CosineAnnealingWarmRestarts(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, T_0, T_mult=1, eta_min=0.0,
                 param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.T_0, self.T_mult, self.eta_min = T_0, T_mult, eta_min
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        period, start = self.T_0, 0
        while step >= start + period:
            start += period
            period *= self.T_mult
        return self.eta_min + 0.5 * (self.initial_learning_rate - self.eta_min) * \
            (1 + math.cos(math.pi * (step - start) / period))


class StepLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, step_size, gamma,
                 param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.initial_learning_rate * self.gamma ** (step // self.step_size)


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, gamma, milestones,
                 param_group_tags=None):
        self.initial_learning_rate = initial_learning_rate
        self.gamma, self.milestones = gamma, sorted(milestones)
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.initial_learning_rate * \
            self.gamma ** sum(1 for m in self.milestones if step >= m)


class PiecewiseConstantLR(LRScheduler):
    def __init__(self, optimizer, learning_rates, milestones, param_group_tags=None):
        if len(learning_rates) != len(milestones) + 1:
            raise ValueError("PiecewiseConstantLR expects one more learning rate than "
                             f"milestones. Got {len(learning_rates)} and {len(milestones)}.")
        self.learning_rates, self.milestones = list(learning_rates), list(milestones)
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.learning_rates[sum(1 for m in self.milestones if step >= m)]


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, initial_learning_rate, lr_lambda, param_group_tags=None):
        self.initial_learning_rate, self.lr_lambda = initial_learning_rate, lr_lambda
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.initial_learning_rate * self.lr_lambda(step)


class MultiplicativeLR(LambdaLR):
    def lr_at(self, step):
        value = self.initial_learning_rate
        for i in range(1, step + 1):
            value *= self.lr_lambda(i)
        return value


class SequentialLR(LRScheduler):
    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1,
                 param_group_tags=None):
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to "
                             f"be one more than the number of milestone points, but got "
                             f"number of schedulers {len(schedulers)} and the number of "
                             f"milestones to be equal to {len(milestones)}")
        for s in schedulers:
            if s.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to "
                                 "the same optimizer")
        self.schedulers, self.milestones = list(schedulers), list(milestones)
        super().__init__(optimizer, None, last_epoch, param_group_tags)

    def lr_at(self, step):
        index = sum(1 for m in self.milestones if step >= m)
        start = self.milestones[index - 1] if index else 0
        return self.schedulers[index].lr_at(step - start)


class ScalePerParamLR(LRScheduler):
    """Wraps a scheduler and scales each group by its adjust_learning_rate (muP)."""

    def __init__(self, optimizer, scheduler, param_group_tags=None):
        self.scheduler = scheduler
        super().__init__(optimizer, None, param_group_tags=param_group_tags)

    def lr_at(self, step):
        return self.scheduler.lr_at(step)

    def get_lr(self):
        value = float(self.lr_at(max(self.last_epoch, 0)))
        return [value * g.get("adjust_learning_rate", 1.0) for g in self.optimizer.param_groups]


class ChainedScheduler(torch.optim.lr_scheduler.ChainedScheduler):
    """Steps several schedulers together (torch's, which takes the same argument)."""
