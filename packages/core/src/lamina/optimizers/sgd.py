"""Stochastic gradient descent, with optional (Nesterov) momentum."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class SGD(Optimizer):
    """Gradient descent with momentum.

    Without momentum: ``w -= lr * g``. With momentum: ``m = momentum * m - lr * g`` then
    ``w += m``, or with Nesterov ``w += momentum * m - lr * g``.

    Args:
        learning_rate: see `Optimizer`.
        momentum: a float in [0, 1] that accelerates descent along consistent directions.
        nesterov: use Nesterov momentum.
        **kwargs: the common `Optimizer` arguments (clipnorm, weight_decay, use_ema...).

    Example:
        >>> opt = lamina.optimizers.SGD(learning_rate=0.1, momentum=0.9)
        >>> variable = lamina.Variable(np.ones(2, "float32"))
        >>> opt.apply([np.ones(2, "float32")], [variable])  # variable becomes [0.9, 0.9]
    """

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        name: str | None = "SGD",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.momentum = _state.check_float("SGD", "momentum", momentum, 0.0, 1.0)
        self.nesterov = _state.check_bool("SGD", "nesterov", nesterov)
        self._momentums: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        if self.momentum != 0:
            self._momentums = self.add_optimizer_variables(var_list, "momentum")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        step = ops.multiply(gradient, learning_rate)
        if self.momentum == 0:
            variable.assign(ops.subtract(variable.value, step))
            return
        m = self._momentums[self._get_variable_index(variable)]
        new_m = ops.subtract(ops.multiply(m.value, self.momentum), step)
        m.assign(new_m)
        if self.nesterov:
            variable.assign(
                ops.add(variable.value, ops.subtract(ops.multiply(new_m, self.momentum), step))
            )
        else:
            variable.assign(ops.add(variable.value, new_m))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}
