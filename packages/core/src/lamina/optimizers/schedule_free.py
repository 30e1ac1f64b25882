"""Schedule-Free AdamW (Defazio et al., 2024): no learning-rate schedule needed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class ScheduleFreeAdamW(Optimizer):
    """AdamW that interpolates between a fast sequence and its running average.

    The model's variables hold ``y``, an interpolation of the base sequence ``z`` (a
    slot, starting at the initial weights) and the averaged sequence ``x``. Per step,
    with ``lr_t = lr * min(1, t / warmup_steps) * sqrt(1 - beta_2^t)``, ``lr_max`` its
    running maximum, ``c = lr_max^2 / sum(lr_max^2)``, ``v = beta_2 v + (1 - beta_2) g^2``
    and ``d = g / (sqrt(v) + epsilon) + weight_decay * y``:
    ``y = (1 - c) y + c z + lr_t (beta_1 (1 - c) - 1) d`` and ``z -= lr_t d``.
    Evaluate or save the averaged weights ``x = (y - (1 - beta_1) z) / beta_1`` with
    `finalize_variable_values` (which `fit` calls at the end of training).

    Args:
        learning_rate: see `Optimizer` (a constant rate is the point of this optimizer).
        beta_1: the interpolation between ``z`` and ``x``, in (0, 1].
        beta_2: decay of the second moment, in [0, 1].
        epsilon: added to the denominator for stability.
        warmup_steps: steps of linear warmup (0: none).
        weight_decay: weight decay applied inside the step (default none).
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.0025,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-8,
        warmup_steps: int = 0,
        weight_decay: float | None = None,
        name: str | None = "schedule_free_adamw",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate=learning_rate, weight_decay=weight_decay, name=name, **kwargs
        )
        where = "ScheduleFreeAdamW"
        self.beta_1 = _state.check_float(where, "beta_1", beta_1, 0.0, 1.0, low_open=True)
        self.beta_2 = _state.check_float(where, "beta_2", beta_2, 0.0, 1.0)
        self.epsilon = _state.check_float(where, "epsilon", epsilon, 0.0)
        if isinstance(warmup_steps, bool) or not isinstance(warmup_steps, int) or warmup_steps < 0:
            raise ValueError(
                f"`{where}`: argument `warmup_steps` must be an int >= 0. "
                f"Received: warmup_steps={warmup_steps!r}"
            )
        self.warmup_steps = warmup_steps
        self._z: list[Variable] = []
        self._v: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._lr_max = self.add_variable((), dtype="float32", name="lr_max")
        self._weight_sum = self.add_variable((), dtype="float32", name="weight_sum")
        self._z = [
            self.add_variable_from_reference(v, "z", initializer=v.numpy()) for v in var_list
        ]
        self._v = self.add_optimizer_variables(var_list, "velocity")

    def _apply_weight_decay(self, variables: list[Variable], lr: Any) -> None:
        return  # weight decay is part of this optimizer's step

    def _update_all(self, grads: list[Any], variables: list[Variable], lr: Any) -> None:
        t = self._step_count("float32")
        if self.warmup_steps:
            lr = ops.multiply(lr, ops.minimum(1.0, ops.divide(t, float(self.warmup_steps))))
        lr_t = ops.multiply(lr, ops.sqrt(ops.subtract(1.0, ops.power(self.beta_2, t))))
        lr_max = ops.maximum(self._lr_max.value, lr_t)
        weight = ops.square(lr_max)
        weight_sum = ops.add(self._weight_sum.value, weight)
        ckp1 = ops.where(
            ops.greater(weight_sum, 0.0),
            ops.divide(weight, ops.where(ops.greater(weight_sum, 0.0), weight_sum, 1.0)),
            0.0,
        )
        self._lr_max.assign(lr_max)
        self._weight_sum.assign(weight_sum)
        for g, var in zip(grads, variables):
            self._step(g, var, ops.cast(lr_t, var.dtype), ops.cast(ckp1, var.dtype))

    def _step(self, gradient: Any, variable: Variable, lr_t: Any, ckp1: Any) -> None:
        i = self._get_variable_index(variable)
        z, v = self._z[i], self._v[i]
        new_v = ops.add(
            ops.multiply(v.value, self.beta_2), ops.multiply(ops.square(gradient), 1 - self.beta_2)
        )
        v.assign(new_v)
        y = variable.value
        d = ops.divide(gradient, ops.add(ops.sqrt(new_v), self.epsilon))
        if self.weight_decay:
            d = ops.add(d, ops.multiply(y, self.weight_decay))
        mixed = ops.add(ops.multiply(ops.subtract(1.0, ckp1), y), ops.multiply(ckp1, z.value))
        coef = ops.multiply(
            lr_t, ops.subtract(ops.multiply(self.beta_1, ops.subtract(1.0, ckp1)), 1.0)
        )
        variable.assign(ops.add(mixed, ops.multiply(coef, d)))
        z.assign(ops.subtract(z.value, ops.multiply(lr_t, d)))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """One variable's step with this step's coefficients (see `_update_all`)."""
        self._update_all([gradient], [variable], learning_rate)

    def finalize_variable_values(self, var_list: Sequence[Variable]) -> None:
        """Set the variables to the averaged sequence ``x`` (then the EMA, if used)."""
        if self.built:
            for var in var_list:
                i = self._index.get(id(var))
                if i is not None:
                    y, z = var.value, self._z[i].value
                    x = ops.divide(ops.subtract(y, ops.multiply(1 - self.beta_1, z)), self.beta_1)
                    var.assign(x)
        super().finalize_variable_values(var_list)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "warmup_steps": self.warmup_steps,
        }
