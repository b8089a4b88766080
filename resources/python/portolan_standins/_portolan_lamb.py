"""LAMB for the stand-ins (PopTorch's poptorch.optim.LAMB and Model Zoo's Lamb).

Layer-wise adaptive moments (You et al., 2019): an Adam update scaled per tensor by the trust
ratio ||w|| / ||update||, the weight norm optionally clipped at max_weight_norm. Not part of
any SDK; written for Portolan.
"""
import math

import torch


class Lamb(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                 bias_correction=True, max_weight_norm=None, adam=False):
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        bias_correction=bias_correction, max_weight_norm=max_weight_norm,
                        adam=adam)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                if group["bias_correction"]:
                    m_hat = m / (1 - beta1 ** state["step"])
                    v_hat = v / (1 - beta2 ** state["step"])
                else:
                    m_hat, v_hat = m, v
                update = m_hat / (v_hat.sqrt() + group["eps"])
                if group["weight_decay"]:
                    update = update + group["weight_decay"] * p
                trust = 1.0
                if not group["adam"]:
                    w_norm = p.norm()
                    if group["max_weight_norm"] is not None:
                        w_norm = w_norm.clamp(max=group["max_weight_norm"])
                    u_norm = update.norm()
                    if w_norm > 0 and u_norm > 0:
                        trust = float(w_norm / u_norm)
                    if not math.isfinite(trust):
                        trust = 1.0
                p.add_(update, alpha=-group["lr"] * trust)
        return loss
