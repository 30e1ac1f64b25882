"""Muon (Jordan et al., 2024): orthogonalized momentum for matrix-shaped weights."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


def newton_schulz(g: Any, steps: int, a: float, b: float, c: float) -> Any:
    """An approximate orthogonalization of the matrix `g` (its ``U V^T``) by a quintic
    Newton-Schulz iteration, computed in float32."""
    x = ops.cast(g, "float32")
    tall = x.shape[0] > x.shape[1]
    if tall:
        x = ops.transpose(x)
    x = ops.divide(x, ops.add(ops.sqrt(ops.sum(ops.square(x))), 1e-7))
    for _ in range(steps):
        gram = ops.matmul(x, ops.transpose(x))
        poly = ops.add(ops.multiply(b, gram), ops.multiply(c, ops.matmul(gram, gram)))
        x = ops.add(ops.multiply(a, x), ops.matmul(poly, x))
    if tall:
        x = ops.transpose(x)
    return x


class Muon(Optimizer):
    """Momentum whose update is orthogonalized, with AdamW for the other weights.

    Matrices (rank 2) get ``m = momentum m + g``, ``u = g + momentum m`` (Nesterov) or
    ``m``, then ``w -= lr * rms_rate * sqrt(max(rows, cols)) * newton_schulz(u)`` (no
    scale when `rms_rate` is None). Every other weight — rank 0, 1 or >= 3, embeddings
    when `exclude_embeddings`, and paths matching `exclude_layers` — gets Adam with rate
    ``lr * adam_lr_ratio``. Weight decay is decoupled, ``w -= w * decay * lr`` with the
    full rate: `weight_decay` for the matrices, `adam_weight_decay` for the rest. These
    are Keras 3.15's rules and defaults, so training moves between the two unchanged.

    Args:
        learning_rate: see `Optimizer`.
        adam_beta_1: Adam's first-moment decay.
        adam_beta_2: Adam's second-moment decay.
        adam_weight_decay: decoupled weight decay of the Adam-updated weights.
        epsilon: Adam's denominator constant.
        weight_decay: decoupled weight decay of the Muon-updated matrices.
        exclude_layers: regular expressions of variable paths that use Adam.
        exclude_embeddings: send variables whose path contains "embedding" to Adam.
        muon_a: Newton-Schulz coefficient a.
        muon_b: Newton-Schulz coefficient b.
        muon_c: Newton-Schulz coefficient c.
        adam_lr_ratio: the Adam rate as a fraction of `learning_rate`.
        momentum: Muon's momentum, in [0, 1].
        ns_steps: Newton-Schulz iterations (>= 1).
        nesterov: use Nesterov momentum.
        rms_rate: match the update RMS to Adam's (None: no scale).
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        adam_beta_1: float = 0.9,
        adam_beta_2: float = 0.999,
        adam_weight_decay: float | None = 0.004,
        epsilon: float = 1e-7,
        weight_decay: float | None = 0.004,
        exclude_layers: Sequence[str] | None = None,
        exclude_embeddings: bool = True,
        muon_a: float = 3.4445,
        muon_b: float = -4.7750,
        muon_c: float = 2.0315,
        adam_lr_ratio: float = 1.0,
        momentum: float = 0.95,
        ns_steps: int = 5,
        nesterov: bool = True,
        rms_rate: float | None = 0.2,
        name: str | None = "muon",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            learning_rate=learning_rate, weight_decay=weight_decay, name=name, **kwargs
        )
        check = _state.check_float
        self.adam_beta_1 = check("Muon", "adam_beta_1", adam_beta_1, 0.0, 1.0)
        self.adam_beta_2 = check("Muon", "adam_beta_2", adam_beta_2, 0.0, 1.0)
        self.adam_weight_decay = check(
            "Muon", "adam_weight_decay", adam_weight_decay, 0.0, allow_none=True
        )
        self.epsilon = check("Muon", "epsilon", epsilon, 0.0)
        if exclude_layers is not None and (
            isinstance(exclude_layers, str) or not all(isinstance(p, str) for p in exclude_layers)
        ):
            raise ValueError(
                "`Muon`: argument `exclude_layers` must be a list of strings or None. "
                f"Received: exclude_layers={exclude_layers!r}"
            )
        self.exclude_layers = list(exclude_layers or [])
        self.exclude_embeddings = _state.check_bool(
            "Muon", "exclude_embeddings", exclude_embeddings
        )
        self.muon_a = check("Muon", "muon_a", muon_a)
        self.muon_b = check("Muon", "muon_b", muon_b)
        self.muon_c = check("Muon", "muon_c", muon_c)
        self.adam_lr_ratio = check("Muon", "adam_lr_ratio", adam_lr_ratio, 0.0)
        self.momentum = check("Muon", "momentum", momentum, 0.0, 1.0)
        if isinstance(ns_steps, bool) or not isinstance(ns_steps, int) or ns_steps < 1:
            raise ValueError(
                f"`Muon`: argument `ns_steps` must be an int >= 1. Received: ns_steps={ns_steps!r}"
            )
        self.ns_steps = ns_steps
        self.nesterov = _state.check_bool("Muon", "nesterov", nesterov)
        self.rms_rate = check("Muon", "rms_rate", rms_rate, 0.0, allow_none=True)
        self._momentums: list[Variable] = []
        self._velocities: dict[int, Variable] = {}

    def _uses_adam(self, variable: Variable) -> bool:
        """Whether `variable` is updated by the Adam branch rather than Muon's."""
        if len(variable.shape) != 2:
            return True
        if self.exclude_embeddings and "embedding" in variable.path.lower():
            return True
        return any(re.search(p, variable.path) for p in self.exclude_layers)

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        # Variable by variable, a momentum and (Adam's weights only) a velocity: the order
        # Keras 3 saves them in.
        for i, var in enumerate(var_list):
            self._momentums.append(self.add_variable_from_reference(var, "momentum"))
            if self._uses_adam(var):
                self._velocities[i] = self.add_variable_from_reference(var, "velocity")

    def _apply_weight_decay(self, variables: list[Variable], lr: Any) -> None:
        for v in variables:
            decay = self.adam_weight_decay if self._uses_adam(v) else self.weight_decay
            if decay and self._use_weight_decay(v):
                factor = ops.cast(ops.multiply(lr, decay), v.dtype)
                v.assign(ops.subtract(v.value, ops.multiply(v.value, factor)))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        if i in self._velocities:
            self._adam_step(gradient, variable, ops.multiply(learning_rate, self.adam_lr_ratio), i)
            return
        m = self._momentums[i]
        new_m = ops.add(ops.multiply(m.value, self.momentum), gradient)
        m.assign(new_m)
        direction = (
            ops.add(gradient, ops.multiply(new_m, self.momentum)) if self.nesterov else new_m
        )
        ortho = newton_schulz(direction, self.ns_steps, self.muon_a, self.muon_b, self.muon_c)
        if self.rms_rate is not None:
            ortho = ops.multiply(ortho, self.rms_rate * math.sqrt(max(variable.shape)))
        update = ops.cast(ortho, variable.dtype)
        variable.assign(ops.subtract(variable.value, ops.multiply(learning_rate, update)))

    def _adam_step(self, gradient: Any, variable: Variable, lr: Any, i: int) -> None:
        dtype = variable.dtype
        t = self._step_count(dtype)
        m, v = self._momentums[i], self._velocities[i]
        b1, b2 = self.adam_beta_1, self.adam_beta_2
        new_m = ops.add(m.value, ops.multiply(ops.subtract(gradient, m.value), 1 - b1))
        new_v = ops.add(v.value, ops.multiply(ops.subtract(ops.square(gradient), v.value), 1 - b2))
        m.assign(new_m)
        v.assign(new_v)
        alpha = ops.divide(
            ops.multiply(lr, ops.sqrt(ops.subtract(1.0, ops.power(ops.cast(b2, dtype), t)))),
            ops.subtract(1.0, ops.power(ops.cast(b1, dtype), t)),
        )
        update = ops.divide(ops.multiply(new_m, alpha), ops.add(ops.sqrt(new_v), self.epsilon))
        variable.assign(ops.subtract(variable.value, update))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "adam_beta_1": self.adam_beta_1,
            "adam_beta_2": self.adam_beta_2,
            "adam_weight_decay": self.adam_weight_decay,
            "epsilon": self.epsilon,
            "exclude_layers": self.exclude_layers,
            "exclude_embeddings": self.exclude_embeddings,
            "muon_a": self.muon_a,
            "muon_b": self.muon_b,
            "muon_c": self.muon_c,
            "adam_lr_ratio": self.adam_lr_ratio,
            "momentum": self.momentum,
            "ns_steps": self.ns_steps,
            "nesterov": self.nesterov,
            "rms_rate": self.rms_rate,
        }
