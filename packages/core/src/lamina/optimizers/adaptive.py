"""Per-coordinate adaptive rates from squared-gradient averages: RMSprop, Adagrad, Adadelta."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


class RMSprop(Optimizer):
    """Divide the gradient by a running RMS of recent gradients.

    ``v = rho v + (1 - rho) g^2``; with `centered`, ``a = rho a + (1 - rho) g`` and the
    denominator is ``sqrt(v - a^2 + epsilon)``, else ``sqrt(v + epsilon)``. The step
    ``lr * g / denominator`` is applied directly or through momentum
    (``m = momentum m + step``, ``w -= m``).

    Args:
        learning_rate: see `Optimizer`.
        rho: the discount of the squared-gradient average, in [0, 1].
        momentum: momentum in [0, 1] (0 disables it).
        epsilon: added inside the square root for stability.
        centered: normalize by the gradient's estimated variance instead of its second moment.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        name: str | None = "rmsprop",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho = _state.check_float("RMSprop", "rho", rho, 0.0, 1.0)
        self.momentum = _state.check_float("RMSprop", "momentum", momentum, 0.0, 1.0)
        self.epsilon = _state.check_float("RMSprop", "epsilon", epsilon, 0.0)
        self.centered = _state.check_bool("RMSprop", "centered", centered)
        self._velocities: list[Variable] = []
        self._momentums: list[Variable] = []
        self._average_gradients: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        if self.momentum > 0:
            self._momentums = self.add_optimizer_variables(var_list, "momentum")
        if self.centered:
            self._average_gradients = self.add_optimizer_variables(var_list, "average_gradient")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        rho = self.rho
        v = self._velocities[i]
        new_v = ops.add(ops.multiply(v.value, rho), ops.multiply(ops.square(gradient), 1 - rho))
        v.assign(new_v)
        denom = new_v
        if self.centered:
            a = self._average_gradients[i]
            new_a = ops.add(ops.multiply(a.value, rho), ops.multiply(gradient, 1 - rho))
            a.assign(new_a)
            denom = ops.subtract(new_v, ops.square(new_a))
        step = ops.divide(
            ops.multiply(learning_rate, gradient), ops.sqrt(ops.add(denom, self.epsilon))
        )
        if self.momentum > 0:
            m = self._momentums[i]
            new_m = ops.add(ops.multiply(m.value, self.momentum), step)
            m.assign(new_m)
            step = new_m
        variable.assign(ops.subtract(variable.value, step))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


class Adagrad(Optimizer):
    """Rates scaled by the inverse root of all past squared gradients.

    ``acc += g^2`` and ``w -= lr * g / sqrt(acc + epsilon)``.

    Args:
        learning_rate: see `Optimizer`.
        initial_accumulator_value: the accumulators' starting value (>= 0).
        epsilon: added inside the square root for stability.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        name: str | None = "adagrad",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = _state.check_float(
            "Adagrad", "initial_accumulator_value", initial_accumulator_value, 0.0
        )
        self.epsilon = _state.check_float("Adagrad", "epsilon", epsilon, 0.0)
        self._accumulators_sq: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._accumulators_sq = self.add_optimizer_variables(
            var_list, "accumulator", initializer=self.initial_accumulator_value
        )

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        acc = self._accumulators_sq[self._get_variable_index(variable)]
        new_acc = ops.add(acc.value, ops.square(gradient))
        acc.assign(new_acc)
        step = ops.divide(
            ops.multiply(learning_rate, gradient), ops.sqrt(ops.add(new_acc, self.epsilon))
        )
        variable.assign(ops.subtract(variable.value, step))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }


class Adadelta(Optimizer):
    """Adagrad's rate decay replaced by running averages of gradients and of updates.

    ``G = rho G + (1 - rho) g^2``, ``d = -g * sqrt(D + eps) / sqrt(G + eps)``,
    ``D = rho D + (1 - rho) d^2`` and ``w += lr * d``.

    Args:
        learning_rate: see `Optimizer` (1.0 gives the original algorithm).
        rho: the decay of both averages, in [0, 1].
        epsilon: added inside the square roots for stability.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.95,
        epsilon: float = 1e-7,
        name: str | None = "adadelta",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho = _state.check_float("Adadelta", "rho", rho, 0.0, 1.0)
        self.epsilon = _state.check_float("Adadelta", "epsilon", epsilon, 0.0)
        self._grad_avgs: list[Variable] = []
        self._delta_avgs: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._grad_avgs = self.add_optimizer_variables(var_list, "accumulated_grad")
        self._delta_avgs = self.add_optimizer_variables(var_list, "accumulated_delta_var")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        rho, eps = self.rho, self.epsilon
        g_avg, d_avg = self._grad_avgs[i], self._delta_avgs[i]
        new_g = ops.add(ops.multiply(g_avg.value, rho), ops.multiply(ops.square(gradient), 1 - rho))
        g_avg.assign(new_g)
        delta = ops.negative(
            ops.divide(
                ops.multiply(gradient, ops.sqrt(ops.add(d_avg.value, eps))),
                ops.sqrt(ops.add(new_g, eps)),
            )
        )
        d_avg.assign(
            ops.add(ops.multiply(d_avg.value, rho), ops.multiply(ops.square(delta), 1 - rho))
        )
        variable.assign(ops.add(variable.value, ops.multiply(learning_rate, delta)))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}
