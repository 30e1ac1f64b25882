"""Adafactor (Shazeer & Stern, 2018): factored second moments for sublinear memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.optimizers import _state
from lamina.optimizers.optimizer import Optimizer
from lamina.variables.variable import Variable


def _rms(x: Any) -> Any:
    return ops.sqrt(ops.mean(ops.square(x)))


class Adafactor(Optimizer):
    """Adam-like steps whose second moment is stored as row and column averages.

    For variables of rank >= 2 the second moment is the outer product of a row average
    ``R`` (over the last axis) and a column average ``C`` (over the second-to-last),
    normalized by the mean of ``R``; smaller variables keep a full average ``V``. With
    ``t`` the step: ``beta_2_t = 1 - t^beta_2_decay``, ``rho_t = min(lr, 1 / sqrt(t))``,
    ``alpha_t = max(epsilon_2, rms(w)) * rho_t``, ``u = g / sqrt(V)``,
    ``u /= max(1, rms(u) / clip_threshold)`` and ``w -= alpha_t u``.

    Keras 3.15 caps the rate at ``1 / sqrt(t)`` whatever `relative_step` says, and so
    does this class, so training moves between the two unchanged. Keras also keeps a
    full-size ``V`` for factored variables, recomputed from ``R`` and ``C`` each step
    and never read across steps; only ``R`` and ``C`` are kept here (a Keras-format
    file's full ``V`` is rebuilt from them when the file is written).

    Args:
        learning_rate: see `Optimizer`.
        beta_2_decay: the exponent of the second-moment decay schedule (< 0).
        epsilon_1: added to the squared gradient.
        epsilon_2: the floor of the variable's RMS in the step size.
        clip_threshold: the RMS above which an update is scaled down.
        relative_step: kept for Keras configs; the rate is capped either way.
        **kwargs: the common `Optimizer` arguments.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        name: str | None = "adafactor",
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay = _state.check_float("Adafactor", "beta_2_decay", beta_2_decay)
        self.epsilon_1 = _state.check_float("Adafactor", "epsilon_1", epsilon_1, 0.0)
        self.epsilon_2 = _state.check_float("Adafactor", "epsilon_2", epsilon_2, 0.0)
        self.clip_threshold = _state.check_float(
            "Adafactor", "clip_threshold", clip_threshold, 0.0, low_open=True
        )
        self.relative_step = _state.check_bool("Adafactor", "relative_step", relative_step)
        self._r: list[Variable | None] = []
        self._c: list[Variable | None] = []
        self._v: list[Variable | None] = []

    def build(self, var_list: Sequence[Variable]) -> None:
        if self.built:
            return
        super().build(var_list)
        for var in var_list:
            base = var.path.replace("/", "_")
            if len(var.shape) >= 2:
                self._r.append(self.add_variable(var.shape[:-1], dtype=var.dtype, name=f"{base}_r"))
                self._c.append(
                    self.add_variable(
                        (*var.shape[:-2], var.shape[-1]), dtype=var.dtype, name=f"{base}_c"
                    )
                )
                self._v.append(None)
            else:
                self._r.append(None)
                self._c.append(None)
                self._v.append(self.add_variable_from_reference(var, "velocity"))

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        i = self._get_variable_index(variable)
        dtype = variable.dtype
        t = self._step_count(dtype)
        rho = ops.minimum(learning_rate, ops.divide(1.0, ops.sqrt(t)))
        alpha = ops.multiply(ops.maximum(_rms(variable.value), self.epsilon_2), rho)
        sq = ops.add(ops.square(gradient), self.epsilon_1)
        beta_2_t = ops.subtract(1.0, ops.power(t, self.beta_2_decay))
        keep = ops.subtract(1.0, beta_2_t)
        r, c, v = self._r[i], self._c[i], self._v[i]
        if r is not None and c is not None:
            new_r = ops.add(
                ops.multiply(r.value, beta_2_t), ops.multiply(ops.mean(sq, axis=-1), keep)
            )
            new_c = ops.add(
                ops.multiply(c.value, beta_2_t), ops.multiply(ops.mean(sq, axis=-2), keep)
            )
            r.assign(new_r)
            c.assign(new_c)
            row = ops.divide(new_r, ops.mean(new_r, axis=-1, keepdims=True))
            second = ops.multiply(ops.expand_dims(row, -1), ops.expand_dims(new_c, -2))
        else:
            assert v is not None
            second = ops.add(ops.multiply(v.value, beta_2_t), ops.multiply(sq, keep))
            v.assign(second)
        u = ops.divide(gradient, ops.sqrt(second))
        u = ops.divide(u, ops.maximum(1.0, ops.divide(_rms(u), self.clip_threshold)))
        variable.assign(ops.subtract(variable.value, ops.multiply(alpha, u)))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_2_decay": self.beta_2_decay,
            "epsilon_1": self.epsilon_1,
            "epsilon_2": self.epsilon_2,
            "clip_threshold": self.clip_threshold,
            "relative_step": self.relative_step,
        }
