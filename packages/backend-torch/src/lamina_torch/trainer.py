"""The training step on torch: eager autograd, `torch.compile` when `jit_compile=True`.

Eager steps pay for every op they dispatch, and the optimizer rule is most of them: Adam
applied variable by variable through `lamina.ops` costs about as much as the forward and
backward passes of a small model. For Adam and AdamW the step runs the same rule as
multi-tensor in-place torch ops (what `torch.optim.Adam` does), leaving everything around
the rule (clipping, weight decay, constraints, the counter, EMA) to the optimizer. The
loss tracker is updated in place too.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from lamina.metrics.reduction import Mean
from lamina.optimizers.adam import Adam
from lamina.optimizers.optimizer import Optimizer
from lamina.trainers.trainer import batch_size_of


class TorchTrainer:
    """Overrides `train_step` (autograd) and compiles steps with torch.compile on request."""

    def train_step(self, data: Any) -> dict[str, Any]:
        """One batch: forward, loss, backward, optimizer update, metrics."""
        from lamina.trainers.data_adapters import unpack_x_y_sample_weight

        model: Any = self
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = model(x, training=True)
        loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        _track_loss(model._loss_tracker, loss, batch_size_of(x))
        trainable = model.trainable_weights
        if trainable:
            for variable in trainable:
                variable.value.grad = None
            model.optimizer.scale_loss(loss).backward()
            grads = [variable.value.grad for variable in trainable]
            with torch.no_grad():
                _apply_gradients(model.optimizer, grads, trainable)
        return model.compute_metrics(x, y, y_pred, sample_weight)

    def make_train_function(self, force: bool = False) -> Any:
        model: Any = self
        if model.train_function is not None and not force:
            return model.train_function
        step = model.train_step
        if model.jit_compile and not model.run_eagerly:
            step = torch.compile(step)

        def run(batches: list[Any]) -> dict[str, Any]:
            logs: dict[str, Any] = {}
            for batch in batches:
                logs = step(batch)
            return logs

        object.__setattr__(model, "train_function", run)
        return run

    def test_step(self, data: Any) -> Any:
        with torch.no_grad():
            return super().test_step(data)  # type: ignore[misc]

    def predict_step(self, data: Any) -> Any:
        with torch.no_grad():
            return super().predict_step(data)  # type: ignore[misc]


def _track_loss(tracker: Any, loss: Any, batch_size: int) -> None:
    """``tracker.update_state(loss, sample_weight=batch_size)`` for the scalar loss.

    For the `Mean` that `compile` creates this is two in-place adds (``total += loss *
    batch_size``, ``count += batch_size``) instead of a dozen dispatched ops.
    """
    if type(tracker) is not Mean or getattr(loss, "ndim", None) != 0:
        tracker.update_state(loss, sample_weight=batch_size)
        return
    with torch.no_grad():
        total = tracker.total.value
        total.add_(loss.detach().to(total.dtype) * batch_size)
        tracker.count.value.add_(batch_size)


def _uses_plain_adam_rule(optimizer: Any) -> bool:
    """Adam or AdamW whose per-variable rule, rule loop and `apply` are the library's own."""
    cls = type(optimizer)
    return (
        isinstance(optimizer, Adam)
        and cls.update_step is Adam.update_step
        and cls._update_all is Optimizer._update_all
        and cls.apply is Optimizer.apply
    )


def _apply_gradients(optimizer: Any, grads: list[Any], variables: list[Any]) -> None:
    """`optimizer.apply(grads, variables)`, with Adam's rule as multi-tensor ops.

    Autograd's gradients already are tensors of their variables' dtypes, so when every
    variable has one, the checks and conversions of `apply` are skipped.
    """
    if not _uses_plain_adam_rule(optimizer):
        optimizer.apply(grads, variables)
        return
    optimizer.__dict__["_update_all"] = lambda g, v, lr: _adam_update_all(optimizer, g, v, lr)
    try:
        direct = optimizer.built and all(
            g is not None and g.dtype == v.value.dtype for g, v in zip(grads, variables)
        )
        if direct:
            optimizer._apply_processed(grads, variables)
        else:
            optimizer.apply(grads, variables)
    finally:
        optimizer.__dict__.pop("_update_all", None)


def _adam_update_all(optimizer: Any, grads: list[Any], variables: list[Any], lr: Any) -> None:
    """`Adam.update_step` for every variable at once, in place on the stored tensors.

    ``m += (g - m)(1 - beta_1)``, ``v = beta_2 v + (1 - beta_2) g^2`` (with its running
    maximum under amsgrad) and ``w -= m / ((sqrt(v) + epsilon) / alpha)`` with
    ``alpha = lr sqrt(1 - beta_2^t) / (1 - beta_1^t)``. Variables that are not float32 go
    through the optimizer's own loop.
    """
    fused = [i for i, v in enumerate(variables) if v.dtype == "float32"]
    if len(fused) != len(variables):
        kept = set(fused)
        rest = [i for i in range(len(variables)) if i not in kept]
        Optimizer._update_all(
            optimizer, [grads[i] for i in rest], [variables[i] for i in rest], lr
        )
        if not fused:
            return
        grads = [grads[i] for i in fused]
        variables = [variables[i] for i in fused]
    indices = [optimizer._get_variable_index(v) for v in variables]
    params = [v.value for v in variables]
    ms = [optimizer._momentums[i].value for i in indices]
    vs = [optimizer._velocities[i].value for i in indices]
    beta_1, beta_2 = optimizer.beta_1, optimizer.beta_2
    torch._foreach_lerp_(ms, grads, 1.0 - beta_1)
    torch._foreach_mul_(vs, beta_2)
    torch._foreach_addcmul_(vs, grads, grads, 1.0 - beta_2)
    if optimizer.amsgrad:
        v_hats = [optimizer._velocity_hats[i].value for i in indices]
        torch._foreach_maximum_(v_hats, vs)
        vs = v_hats
    t = optimizer.iterations.value + 1
    alpha: Any
    if t.device.type == "cpu":  # plain floats: reading a CPU scalar costs no device sync
        step, rate = float(t), float(lr)
        alpha = rate * math.sqrt(1.0 - beta_2**step) / (1.0 - beta_1**step)
    else:
        t = t.to(torch.float32)
        rate = torch.as_tensor(lr, dtype=torch.float32, device=t.device)
        alpha = rate * torch.sqrt(1.0 - torch.pow(beta_2, t)) / (1.0 - torch.pow(beta_1, t))
    denominators = torch._foreach_sqrt(vs)
    torch._foreach_add_(denominators, optimizer.epsilon)
    torch._foreach_div_(denominators, alpha)
    torch._foreach_addcdiv_(params, ms, denominators, value=-1.0)
