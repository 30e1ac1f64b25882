"""FTRL-Proximal (McMahan et al.), the online learner for wide sparse models."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class Ftrl(Optimizer):
    """Follow-the-regularized-leader with L1, L2 and L2-shrinkage regularization.

    With ``p = -learning_rate_power``: ``g' = g + 2 * l2_shrinkage * w``,
    ``n' = n + g^2``, ``z += g' - (n'^p - n^p) / lr * w``,
    ``q = n'^p / lr + 2 * (l2 + beta / (2 lr))`` and
    ``w = (clip(z, -l1, l1) - z) / q``, ``n = n'``.

    Args:
        learning_rate: see `Optimizer`.
        learning_rate_power: how the rate falls with the accumulator (<= 0).
        initial_accumulator_value: the accumulators' starting value (>= 0).
        l1_regularization_strength: L1 strength (>= 0).
        l2_regularization_strength: L2 strength (>= 0).
        l2_shrinkage_regularization_strength: L2 shrinkage on the gradient (>= 0).
        beta: the FTRL beta (adds ``beta / (2 lr)`` to the L2 strength).
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        name: str | None = "ftrl",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        check = _state.check_float
        self.learning_rate_power = check("Ftrl", "learning_rate_power", learning_rate_power)
        if learning_rate_power > 0:
            raise ValueError(
                "`Ftrl`: argument `learning_rate_power` must be <= 0. "
                f"Received: learning_rate_power={learning_rate_power!r}"
            )
        self.initial_accumulator_value = check(
            "Ftrl", "initial_accumulator_value", initial_accumulator_value, 0.0
        )
        self.l1_regularization_strength = check(
            "Ftrl", "l1_regularization_strength", l1_regularization_strength, 0.0
        )
        self.l2_regularization_strength = check(
            "Ftrl", "l2_regularization_strength", l2_regularization_strength, 0.0
        )
        self.l2_shrinkage_regularization_strength = check(
            "Ftrl",
            "l2_shrinkage_regularization_strength",
            l2_shrinkage_regularization_strength,
            0.0,
        )
        self.beta = check("Ftrl", "beta", beta, 0.0)
        self._accs: list[Variable] = []
        self._linears: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._accs = self.add_optimizer_variables(
            var_list, "accumulator", initializer=self.initial_accumulator_value
        )
        self._linears = self.add_optimizer_variables(var_list, "linear")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        acc, linear = self._accs[i], self._linears[i]
        p = -self.learning_rate_power
        w = variable.value
        l2 = ops.add(
            self.l2_regularization_strength, ops.divide(self.beta, ops.multiply(2.0, learning_rate))
        )
        g_shrunk = ops.add(
            gradient, ops.multiply(2.0 * self.l2_shrinkage_regularization_strength, w)
        )
        new_acc = ops.add(acc.value, ops.square(gradient))
        sigma = ops.divide(
            ops.subtract(ops.power(new_acc, p), ops.power(acc.value, p)), learning_rate
        )
        new_linear = ops.add(linear.value, ops.subtract(g_shrunk, ops.multiply(sigma, w)))
        quadratic = ops.add(ops.divide(ops.power(new_acc, p), learning_rate), ops.multiply(2.0, l2))
        l1 = self.l1_regularization_strength
        clipped = ops.clip(new_linear, -l1, l1)
        variable.assign(ops.divide(ops.subtract(clipped, new_linear), quadratic))
        acc.assign(new_acc)
        linear.assign(new_linear)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        }
