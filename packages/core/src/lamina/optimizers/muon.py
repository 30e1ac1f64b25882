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

    Weights of rank 2 or 3 (flattened to ``(-1, last_dim)``) get
    ``m = momentum m + g``, ``u = g + momentum m`` (Nesterov) or ``m``, then
    ``w -= lr * scale * newton_schulz(u)``, where ``scale`` is
    ``rms_rate * sqrt(max(rows, cols))`` (or ``sqrt(max(1, rows / cols))`` when
    `rms_rate` is None). Other weights — rank 0, 1 or >= 4, embeddings when
    `exclude_embeddings`, and paths matching `exclude_layers` — get Adam with rate
    ``lr * adam_lr_ratio``. Weight decay is decoupled, as in `Optimizer`.

    Args:
        learning_rate: see `Optimizer`.
        adam_beta_1: Adam's first-moment decay.
        adam_beta_2: Adam's second-moment decay.
        epsilon: Adam's denominator constant.
        weight_decay: decoupled weight decay (default 0.1).
        exclude_layers: regular expressions of variable paths that use Adam.
        exclude_embeddings: send variables whose path contains "embedding" to Adam.
        muon_a: Newton-Schulz coefficient a.
        muon_b: Newton-Schulz coefficient b.
        muon_c: Newton-Schulz coefficient c.
        adam_lr_ratio: the Adam rate as a fraction of `learning_rate`.
        momentum: Muon's momentum, in [0, 1].
        ns_steps: Newton-Schulz iterations (>= 1).
        nesterov: use Nesterov momentum.
        rms_rate: match the update RMS to Adam's (None: shape-based scale).
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        adam_beta_1: float = 0.9,
        adam_beta_2: float = 0.999,
        epsilon: float = 1e-7,
        weight_decay: float | None = 0.1,
        exclude_layers: Sequence[str] | None = None,
        exclude_embeddings: bool = True,
        muon_a: float = 3.4445,
        muon_b: float = -4.7750,
        muon_c: float = 2.0315,
        adam_lr_ratio: float = 0.1,
        momentum: float = 0.95,
        ns_steps: int = 6,
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
        if not 1 < len(variable.shape) < 4:
            return True
        if self.exclude_embeddings and "embedding" in variable.path.lower():
            return True
        return any(re.search(p, variable.path) for p in self.exclude_layers)

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum")
        for i, var in enumerate(var_list):
            if self._uses_adam(var):
                self._velocities[i] = self.add_variable_from_reference(var, "velocity")

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
        shape = variable.shape
        matrix = ops.reshape(direction, (-1, shape[-1]))
        rows, cols = math.prod(shape[:-1]), shape[-1]
        ortho = newton_schulz(matrix, self.ns_steps, self.muon_a, self.muon_b, self.muon_c)
        if self.rms_rate is None:
            scale = math.sqrt(max(1.0, rows / cols))
        else:
            scale = self.rms_rate * math.sqrt(max(rows, cols))
        update = ops.cast(ops.reshape(ops.multiply(ortho, scale), shape), variable.dtype)
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
