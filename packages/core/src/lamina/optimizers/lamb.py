"""LAMB (You et al., 2019): Adam steps rescaled per layer by a trust ratio."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class Lamb(Optimizer):
    """Layer-wise adaptive moments, for large-batch training.

    The bias-corrected Adam direction ``r = m_hat / (sqrt(v_hat) + epsilon)`` is scaled
    by the trust ratio ``||w|| / ||r||`` (1 when either norm is zero):
    ``w -= lr * ratio * r``.

    Args:
        learning_rate: see `Optimizer`.
        beta_1: decay of the first moment, in [0, 1].
        beta_2: decay of the second moment, in [0, 1].
        epsilon: added to the denominator for stability.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        name: str | None = "lamb",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = _state.check_float("Lamb", "beta_1", beta_1, 0.0, 1.0)
        self.beta_2 = _state.check_float("Lamb", "beta_2", beta_2, 0.0, 1.0)
        self.epsilon = _state.check_float("Lamb", "epsilon", epsilon, 0.0)
        self._m: list[Variable] = []
        self._v: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._m = self.add_optimizer_variables(var_list, "momentum")
        self._v = self.add_optimizer_variables(var_list, "velocity")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        dtype = variable.dtype
        t = self._step_count(dtype)
        m, v = self._m[i], self._v[i]
        new_m = ops.add(ops.multiply(m.value, self.beta_1), ops.multiply(gradient, 1 - self.beta_1))
        new_v = ops.add(
            ops.multiply(v.value, self.beta_2), ops.multiply(ops.square(gradient), 1 - self.beta_2)
        )
        m.assign(new_m)
        v.assign(new_v)
        m_hat = ops.divide(new_m, ops.subtract(1.0, ops.power(ops.cast(self.beta_1, dtype), t)))
        v_hat = ops.divide(new_v, ops.subtract(1.0, ops.power(ops.cast(self.beta_2, dtype), t)))
        direction = ops.divide(m_hat, ops.add(ops.sqrt(v_hat), self.epsilon))
        w_norm = ops.sqrt(ops.sum(ops.square(variable.value)))
        r_norm = ops.sqrt(ops.sum(ops.square(direction)))
        usable = ops.logical_and(ops.greater(w_norm, 0.0), ops.greater(r_norm, 0.0))
        ratio = ops.where(usable, ops.divide(w_norm, ops.where(usable, r_norm, 1.0)), 1.0)
        step = ops.multiply(ops.multiply(learning_rate, ops.cast(ratio, dtype)), direction)
        variable.assign(ops.subtract(variable.value, step))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }
