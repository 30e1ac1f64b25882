"""Lion (Chen et al., 2023): the sign of an interpolated momentum."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class Lion(Optimizer):
    """Evolved sign momentum.

    ``w -= lr * sign(beta_1 m + (1 - beta_1) g)`` then ``m = beta_2 m + (1 - beta_2) g``.
    Every coordinate moves by exactly `lr`, so use a rate 3-10x smaller than AdamW's.

    Args:
        learning_rate: see `Optimizer`.
        beta_1: interpolation for the update direction, in (0, 1].
        beta_2: decay of the momentum, in [0, 1].
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.99,
        name: str | None = "lion",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = _state.check_float("Lion", "beta_1", beta_1, 0.0, 1.0, low_open=True)
        self.beta_2 = _state.check_float("Lion", "beta_2", beta_2, 0.0, 1.0)
        self._momentums: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        m = self._momentums[self._get_variable_index(variable)]
        direction = ops.sign(
            ops.add(ops.multiply(m.value, self.beta_1), ops.multiply(gradient, 1 - self.beta_1))
        )
        variable.assign(ops.subtract(variable.value, ops.multiply(learning_rate, direction)))
        m.assign(
            ops.add(ops.multiply(m.value, self.beta_2), ops.multiply(gradient, 1 - self.beta_2))
        )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}
