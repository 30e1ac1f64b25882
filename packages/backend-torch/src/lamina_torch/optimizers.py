"""Optimizer rules torch runs for all variables at once (`Backend.optimizer_rules`).

Adam applied variable by variable through `lamina.ops` dispatches a dozen ops per
variable, and each allocates its result; on a small model that costs as much as the
forward and backward passes. Here the same rule runs as torch's own kernels, in place: the
fused Adam kernel on the CPU (one pass, no temporaries, as ``torch.optim.Adam(fused=True)``)
and multi-tensor ops elsewhere. AdamW shares Adam's rule; its decoupled weight decay is
applied before the rule, by the optimizer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch

from lamina.backend.kit import OptimizerRule
from lamina.optimizers import Adam

_INFINITE_STEP = torch.tensor(float("inf"))


@dataclasses.dataclass
class _AdamTensors:
    """The tensors one Adam update reads and writes, a list each, in variable order."""

    params: list[torch.Tensor]
    grads: list[torch.Tensor]
    ms: list[torch.Tensor]
    vs: list[torch.Tensor]
    v_hats: list[torch.Tensor]  # empty without amsgrad


def adam(optimizer: Any, grads: list[Any], variables: list[Any], lr: Any) -> bool:
    """`Adam.update_step` for every variable; False unless all are float32 on one device.

    ``m += (g - m)(1 - beta_1)``, ``v = beta_2 v + (1 - beta_2) g^2`` (with its running
    maximum under amsgrad) and ``w -= m / ((sqrt(v) + epsilon) / alpha)`` with
    ``alpha = lr sqrt(1 - beta_2^t) / (1 - beta_1^t)``.
    """
    params = [v.value for v in variables]
    if not params:
        return False
    device = params[0].device
    if any(p.dtype != torch.float32 or p.device != device for p in params):
        return False
    indices = [optimizer.variable_index(v) for v in variables]

    def slots(kind: str) -> list[torch.Tensor]:
        every = optimizer.slots(kind)
        return [every[i].value for i in indices]

    tensors = _AdamTensors(
        params,
        grads,
        slots("momentum"),
        slots("velocity"),
        slots("velocity_hat") if optimizer.amsgrad else [],
    )
    t = optimizer.iterations.value + 1
    with torch.no_grad():  # in place on the parameters, as `Variable.assign` is
        if device.type == "cpu" and t.device.type == "cpu":
            _fused_cpu(optimizer, tensors, t, float(lr))
        else:
            _multi_tensor(optimizer, tensors, t, lr)
    return True


def _fused_cpu(optimizer: Any, tensors: _AdamTensors, t: Any, lr: float) -> None:
    # The kernel's own bias corrections use the step count; given an infinite step they
    # are exactly 1, and Adam's corrections, computed here in float32 as `update_step`
    # does, go into the rate. The update is then ``alpha * m / (sqrt(v) + epsilon)``.
    f32 = np.float32
    step = f32(float(t))  # reading the CPU step costs no device sync
    alpha = (
        f32(lr)
        * np.sqrt(f32(1.0) - f32(optimizer.beta_2) ** step)
        / (f32(1.0) - f32(optimizer.beta_1) ** step)
    )
    torch._fused_adam_(
        tensors.params,
        tensors.grads,
        tensors.ms,
        tensors.vs,
        tensors.v_hats,
        [_INFINITE_STEP] * len(tensors.params),
        lr=float(alpha),
        beta1=optimizer.beta_1,
        beta2=optimizer.beta_2,
        weight_decay=0.0,
        eps=optimizer.epsilon,
        amsgrad=optimizer.amsgrad,
        maximize=False,
    )


def _multi_tensor(optimizer: Any, tensors: _AdamTensors, t: Any, lr: Any) -> None:
    # The step and the rate stay tensors on the device, so nothing waits for it.
    beta_1, beta_2 = optimizer.beta_1, optimizer.beta_2
    grads, vs = tensors.grads, tensors.vs
    torch._foreach_lerp_(tensors.ms, grads, 1.0 - beta_1)
    torch._foreach_mul_(vs, beta_2)
    torch._foreach_addcmul_(vs, grads, grads, 1.0 - beta_2)
    if tensors.v_hats:
        torch._foreach_maximum_(tensors.v_hats, vs)
        vs = tensors.v_hats
    step = t.to(torch.float32)
    rate = torch.as_tensor(lr, dtype=torch.float32, device=step.device)
    alpha = rate * torch.sqrt(1.0 - torch.pow(beta_2, step)) / (1.0 - torch.pow(beta_1, step))
    denominators = torch._foreach_sqrt(vs)
    torch._foreach_add_(denominators, optimizer.epsilon)
    torch._foreach_div_(denominators, alpha.to(tensors.params[0].device))
    torch._foreach_addcdiv_(tensors.params, tensors.ms, denominators, value=-1.0)


RULES: dict[type, OptimizerRule] = {Adam: adam}
"""The rules this backend registers, by the class whose `update_step` they reproduce."""
