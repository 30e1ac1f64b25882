"""Adam and its relatives: AdamW (decoupled decay), Adamax (infinity norm), Nadam."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


def _check_betas(where: str, beta_1: float, beta_2: float, epsilon: float) -> None:
    _state.check_float(where, "beta_1", beta_1, 0.0, 1.0)
    _state.check_float(where, "beta_2", beta_2, 0.0, 1.0)
    _state.check_float(where, "epsilon", epsilon, 0.0)


class Adam(Optimizer):
    """Adaptive moment estimation.

    ``m += (g - m)(1 - beta_1)``, ``v += (g^2 - v)(1 - beta_2)`` and
    ``w -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)``, with
    ``v`` replaced by its running maximum under `amsgrad`.

    Args:
        learning_rate: see `Optimizer`.
        beta_1: decay of the first-moment average, in [0, 1].
        beta_2: decay of the second-moment average, in [0, 1].
        epsilon: added to the denominator for stability.
        amsgrad: use the AMSGrad variant.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str | None = "adam",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        _check_betas(type(self).__name__, beta_1, beta_2, epsilon)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = _state.check_bool(type(self).__name__, "amsgrad", amsgrad)
        self._momentums: list[Variable] = []
        self._velocities: list[Variable] = []
        self._velocity_hats: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")
        self._velocities = self.add_optimizer_variables(var_list, "velocity")
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        i = self._get_variable_index(variable)
        t = self._step_count(dtype)
        m, v = self._momentums[i], self._velocities[i]
        new_m = ops.add(m.value, ops.multiply(ops.subtract(gradient, m.value), 1 - self.beta_1))
        new_v = ops.add(
            v.value, ops.multiply(ops.subtract(ops.square(gradient), v.value), 1 - self.beta_2)
        )
        m.assign(new_m)
        v.assign(new_v)
        if self.amsgrad:
            v_hat = self._velocity_hats[i]
            new_v = ops.maximum(v_hat.value, new_v)
            v_hat.assign(new_v)
        b1 = ops.cast(self.beta_1, dtype)
        b2 = ops.cast(self.beta_2, dtype)
        alpha = ops.divide(
            ops.multiply(learning_rate, ops.sqrt(ops.subtract(1.0, ops.power(b2, t)))),
            ops.subtract(1.0, ops.power(b1, t)),
        )
        update = ops.divide(ops.multiply(new_m, alpha), ops.add(ops.sqrt(new_v), self.epsilon))
        variable.assign(ops.subtract(variable.value, update))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter).

    Each step first shrinks the variables: ``w -= w * weight_decay * lr``, then applies
    the Adam update.

    Args:
        learning_rate: see `Optimizer`.
        weight_decay: the decay rate (a float >= 0; required).
        beta_1: see `Adam`.
        beta_2: see `Adam`.
        epsilon: see `Adam`.
        amsgrad: see `Adam`.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str | None = "adamw",
        **kwargs: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError(
                "`AdamW`: argument `weight_decay` must be a float >= 0. Received: weight_decay=None"
            )
        super().__init__(
            learning_rate=learning_rate,
            beta_1=beta_1,
            beta_2=beta_2,
            epsilon=epsilon,
            amsgrad=amsgrad,
            name=name,
            weight_decay=weight_decay,
            **kwargs,
        )


class Adamax(Optimizer):
    """Adam with the infinity norm in place of the second moment.

    ``m += (g - m)(1 - beta_1)``, ``u = max(beta_2 * u, |g|)`` and
    ``w -= lr * m / ((1 - beta_1^t) * (u + epsilon))``.

    Args:
        learning_rate: see `Optimizer`.
        beta_1: decay of the first moment, in [0, 1].
        beta_2: decay of the weighted infinity norm, in [0, 1].
        epsilon: added to the denominator for stability.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        name: str | None = "adamax",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        _check_betas("Adamax", beta_1, beta_2, epsilon)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self._m: list[Variable] = []
        self._u: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._m = self.add_optimizer_variables(var_list, "momentum")
        self._u = self.add_optimizer_variables(var_list, "norm")

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        t = self._step_count(variable.dtype)
        m, u = self._m[i], self._u[i]
        new_m = ops.add(m.value, ops.multiply(ops.subtract(gradient, m.value), 1 - self.beta_1))
        new_u = ops.maximum(ops.multiply(u.value, self.beta_2), ops.abs(gradient))
        m.assign(new_m)
        u.assign(new_u)
        correction = ops.subtract(1.0, ops.power(ops.cast(self.beta_1, variable.dtype), t))
        denom = ops.multiply(correction, ops.add(new_u, self.epsilon))
        variable.assign(
            ops.subtract(variable.value, ops.divide(ops.multiply(learning_rate, new_m), denom))
        )

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }


class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat), with the momentum-decay schedule.

    With ``mu_t = beta_1 * (1 - 0.5 * 0.96^t)`` (Keras 3's schedule, so that training moves
    between the two with the same updates) and ``P_t`` the product of
    ``mu_1..mu_t`` (kept in a variable): ``m_hat = mu_{t+1} m / (1 - P_{t+1}) +
    (1 - mu_t) g / (1 - P_t)``, ``v_hat = v / (1 - beta_2^t)`` and
    ``w -= lr * m_hat / (sqrt(v_hat) + epsilon)``.

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
        name: str | None = "nadam",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        _check_betas("Nadam", beta_1, beta_2, epsilon)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self._m: list[Variable] = []
        self._v: list[Variable] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._u_product = self.add_variable(
            (), initializer="ones", dtype="float32", name="u_product"
        )
        self._m = self.add_optimizer_variables(var_list, "momentum")
        self._v = self.add_optimizer_variables(var_list, "velocity")

    def _mu(self, step: Any) -> Any:
        return ops.multiply(
            self.beta_1,
            ops.subtract(1.0, ops.multiply(0.5, ops.power(0.96, step))),
        )

    def _update_all(self, grads: list[Any], variables: list[Variable], lr: Any) -> None:
        # The momentum product advances once per step, before any variable uses it.
        t = self._step_count("float32")
        self._u_product.assign(ops.multiply(self._u_product.value, self._mu(t)))
        super()._update_all(grads, variables, lr)

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        dtype = variable.dtype
        i = self._get_variable_index(variable)
        t = self._step_count("float32")
        mu_t = ops.cast(self._mu(t), dtype)
        mu_next = ops.cast(self._mu(ops.add(t, 1.0)), dtype)
        prod_t = ops.cast(self._u_product.value, dtype)
        prod_next = ops.multiply(prod_t, mu_next)
        b2_power = ops.cast(ops.power(self.beta_2, t), dtype)
        m, v = self._m[i], self._v[i]
        new_m = ops.add(m.value, ops.multiply(ops.subtract(gradient, m.value), 1 - self.beta_1))
        new_v = ops.add(
            v.value, ops.multiply(ops.subtract(ops.square(gradient), v.value), 1 - self.beta_2)
        )
        m.assign(new_m)
        v.assign(new_v)
        m_hat = ops.add(
            ops.divide(ops.multiply(mu_next, new_m), ops.subtract(1.0, prod_next)),
            ops.divide(ops.multiply(ops.subtract(1.0, mu_t), gradient), ops.subtract(1.0, prod_t)),
        )
        v_hat = ops.divide(new_v, ops.subtract(1.0, b2_power))
        update = ops.divide(
            ops.multiply(m_hat, learning_rate), ops.add(ops.sqrt(v_hat), self.epsilon)
        )
        variable.assign(ops.subtract(variable.value, update))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
        }
