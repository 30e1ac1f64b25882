"""Learning-rate schedules: the learning rate as a function of the optimizer's step.

A schedule is called with the step (a Python int or an integer tensor, the optimizer's
`iterations`) and returns a float32 scalar tensor. Everything is written with `lamina.ops`,
so a schedule traces inside a jitted step on every backend.
"""

from __future__ import annotations

import math
from typing import Any

from lamina import ops


def _check_number(where: str, arg: str, value: Any, positive: bool = False) -> Any:
    """`value` itself if it is a real number (a tensor becomes a float), else a ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(ops.convert_to_numpy(value))
        except Exception as exc:
            raise ValueError(
                f"`{where}`: argument `{arg}` must be a number. Received: {arg}={value!r}"
            ) from exc
    if positive and not value > 0:
        raise ValueError(
            f"`{where}`: argument `{arg}` must be a positive number. Received: {arg}={value!r}"
        )
    if value != value:  # NaN
        raise ValueError(f"`{where}`: argument `{arg}` must not be NaN. Received: {arg}={value}")
    return value


def _step(step: Any) -> Any:
    """The step as a float32 tensor."""
    return ops.cast(ops.convert_to_tensor(step), "float32")


class LearningRateSchedule:
    """The base of every schedule: a serializable function of the step.

    Subclasses implement `__call__(step)` and `get_config()`.

    Example:
        >>> class Halving(LearningRateSchedule):
        ...     def __call__(self, step):
        ...         return 0.1 * ops.power(0.5, ops.cast(step, "float32"))
        ...     def get_config(self):
        ...         return {}
    """

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement `__call__(step)`.")

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this schedule."""
        raise NotImplementedError(f"{type(self).__name__} must implement `get_config()`.")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LearningRateSchedule:
        """Rebuild a schedule from `get_config()`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: steps over which the rate is multiplied by `decay_rate` once (> 0).
        decay_rate: the multiplier per `decay_steps`.
        staircase: floor ``step / decay_steps`` so the rate drops in discrete jumps.
        name: a label kept in the config.

    Example:
        >>> ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)(10)  # 0.05
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        where = type(self).__name__
        self.initial_learning_rate = _check_number(
            where, "initial_learning_rate", initial_learning_rate
        )
        self.decay_steps = _check_number(where, "decay_steps", decay_steps, positive=True)
        self.decay_rate = _check_number(where, "decay_rate", decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step: Any) -> Any:
        p = ops.divide(_step(step), self.decay_steps)
        if self.staircase:
            p = ops.floor(p)
        return ops.multiply(self.initial_learning_rate, ops.power(self.decay_rate, p))

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """Constant rates between step boundaries.

    ``values[0]`` for ``step <= boundaries[0]``, ``values[i]`` for
    ``boundaries[i-1] < step <= boundaries[i]`` and ``values[-1]`` after the last boundary.

    Args:
        boundaries: increasing step numbers.
        values: one more rate than there are boundaries.
        name: a label kept in the config.

    Example:
        >>> PiecewiseConstantDecay([100], [1.0, 0.5])(101)  # 0.5
    """

    def __init__(
        self, boundaries: list[Any], values: list[Any], name: str = "PiecewiseConstant"
    ) -> None:
        where = type(self).__name__
        if not isinstance(boundaries, (list, tuple)) or not isinstance(values, (list, tuple)):
            raise ValueError(
                f"`{where}`: arguments `boundaries` and `values` must be lists. "
                f"Received: boundaries={boundaries!r}, values={values!r}"
            )
        if len(values) != len(boundaries) + 1:
            raise ValueError(
                f"`{where}`: `values` must hold one more element than `boundaries`. "
                f"Received: len(boundaries)={len(boundaries)}, len(values)={len(values)}"
            )
        self.boundaries = [_check_number(where, "boundaries", b) for b in boundaries]
        if any(b1 >= b2 for b1, b2 in zip(self.boundaries, self.boundaries[1:])):
            raise ValueError(
                f"`{where}`: argument `boundaries` must be strictly increasing. "
                f"Received: boundaries={list(boundaries)!r}"
            )
        self.values = [_check_number(where, "values", v) for v in values]
        self.name = name

    def __call__(self, step: Any) -> Any:
        s = _step(step)
        out = ops.convert_to_tensor(self.values[-1], "float32")
        # Walk from the last interval back so the first matching one wins.
        for boundary, value in zip(reversed(self.boundaries), reversed(self.values[:-1])):
            out = ops.where(ops.less_equal(s, boundary), value, out)
        return ops.cast(out, "float32")

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": list(self.boundaries), "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """Polynomial decay from `initial_learning_rate` to `end_learning_rate`.

    ``(initial - end) * (1 - step / decay_steps) ** power + end``, with step held at
    `decay_steps` afterwards, or with `cycle=True` the horizon stretched to the next
    multiple of `decay_steps`.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: steps to reach `end_learning_rate` (> 0).
        end_learning_rate: the final rate.
        power: the polynomial's power (1.0 is linear).
        cycle: restart the decay after `decay_steps` with a longer horizon.
        name: a label kept in the config.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        where = type(self).__name__
        self.initial_learning_rate = _check_number(
            where, "initial_learning_rate", initial_learning_rate
        )
        self.decay_steps = _check_number(where, "decay_steps", decay_steps, positive=True)
        self.end_learning_rate = _check_number(where, "end_learning_rate", end_learning_rate)
        self.power = _check_number(where, "power", power)
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step: Any) -> Any:
        s = _step(step)
        if self.cycle:
            # Step 0 keeps the first horizon; later steps use the next multiple.
            mult = ops.maximum(ops.ceil(ops.divide(s, self.decay_steps)), 1.0)
            horizon = ops.multiply(self.decay_steps, mult)
        else:
            horizon = ops.convert_to_tensor(self.decay_steps, "float32")
            s = ops.minimum(s, self.decay_steps)
        frac = ops.subtract(1.0, ops.divide(s, horizon))
        span = self.initial_learning_rate - self.end_learning_rate
        return ops.add(ops.multiply(span, ops.power(frac, self.power)), self.end_learning_rate)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the step unit of `decay_rate` (> 0).
        decay_rate: how fast the rate falls.
        staircase: floor ``step / decay_steps``.
        name: a label kept in the config.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        where = type(self).__name__
        self.initial_learning_rate = _check_number(
            where, "initial_learning_rate", initial_learning_rate
        )
        self.decay_steps = _check_number(where, "decay_steps", decay_steps, positive=True)
        self.decay_rate = _check_number(where, "decay_rate", decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step: Any) -> Any:
        p = ops.divide(_step(step), self.decay_steps)
        if self.staircase:
            p = ops.floor(p)
        return ops.divide(
            self.initial_learning_rate, ops.add(1.0, ops.multiply(self.decay_rate, p))
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


def _cosine(fraction: Any, alpha: float) -> Any:
    """``(1 - alpha) * 0.5 * (1 + cos(pi * fraction)) + alpha``."""
    cos = ops.multiply(0.5, ops.add(1.0, ops.cos(ops.multiply(math.pi, fraction))))
    return ops.add(ops.multiply(1.0 - alpha, cos), alpha)


class CosineDecay(LearningRateSchedule):
    """Cosine decay to ``alpha * rate``, after an optional linear warmup.

    Without `warmup_target` the rate decays from `initial_learning_rate` over
    `decay_steps`. With it, the rate rises linearly from `initial_learning_rate` to
    `warmup_target` over `warmup_steps`, then decays from `warmup_target`.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the length of the cosine decay (> 0).
        alpha: the final rate as a fraction of the decayed-from rate.
        name: a label kept in the config.
        warmup_target: the rate reached at the end of warmup (None: no warmup).
        warmup_steps: the length of the warmup.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: int = 0,
    ) -> None:
        where = type(self).__name__
        self.initial_learning_rate = _check_number(
            where, "initial_learning_rate", initial_learning_rate
        )
        self.decay_steps = _check_number(where, "decay_steps", decay_steps, positive=True)
        self.alpha = _check_number(where, "alpha", alpha)
        self.warmup_target = (
            None if warmup_target is None else _check_number(where, "warmup_target", warmup_target)
        )
        self.warmup_steps = _check_number(where, "warmup_steps", warmup_steps)
        if self.warmup_steps < 0:
            raise ValueError(
                f"`{where}`: argument `warmup_steps` must be >= 0. "
                f"Received: warmup_steps={warmup_steps!r}"
            )
        self.name = name

    def _decay(self, step: Any, rate: float) -> Any:
        fraction = ops.divide(ops.minimum(step, self.decay_steps), self.decay_steps)
        return ops.multiply(rate, _cosine(fraction, self.alpha))

    def __call__(self, step: Any) -> Any:
        s = _step(step)
        if self.warmup_target is None:
            return self._decay(s, self.initial_learning_rate)
        target = self.warmup_target
        warm_steps = max(float(self.warmup_steps), 1.0)
        rise = ops.multiply(target - self.initial_learning_rate, ops.divide(s, warm_steps))
        warm = ops.add(self.initial_learning_rate, rise)
        decayed = self._decay(ops.maximum(ops.subtract(s, self.warmup_steps), 0.0), target)
        return ops.where(ops.less(s, self.warmup_steps), warm, decayed)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR).

    The first period lasts `first_decay_steps`; each later one is `t_mul` times longer
    and starts from `m_mul` times the previous peak.

    Args:
        initial_learning_rate: the rate at step 0.
        first_decay_steps: the length of the first period (> 0).
        t_mul: the factor between period lengths.
        m_mul: the factor between period peaks.
        alpha: the minimum rate as a fraction of `initial_learning_rate`.
        name: a label kept in the config.
    """

    def __init__(
        self,
        initial_learning_rate: float,
        first_decay_steps: int,
        t_mul: float = 2.0,
        m_mul: float = 1.0,
        alpha: float = 0.0,
        name: str = "SGDRDecay",
    ) -> None:
        where = type(self).__name__
        self.initial_learning_rate = _check_number(
            where, "initial_learning_rate", initial_learning_rate
        )
        self.first_decay_steps = _check_number(
            where, "first_decay_steps", first_decay_steps, positive=True
        )
        self.t_mul = _check_number(where, "t_mul", t_mul, positive=True)
        self.m_mul = _check_number(where, "m_mul", m_mul)
        self.alpha = _check_number(where, "alpha", alpha)
        self.name = name

    def __call__(self, step: Any) -> Any:
        fraction = ops.divide(_step(step), self.first_decay_steps)
        if self.t_mul == 1.0:
            restarts = ops.floor(fraction)
            fraction = ops.subtract(fraction, restarts)
        else:
            # Periods grow geometrically: find the period index from the geometric sum.
            log_t = math.log(self.t_mul)
            restarts = ops.floor(
                ops.divide(
                    ops.log(ops.subtract(1.0, ops.multiply(fraction, 1.0 - self.t_mul))), log_t
                )
            )
            t_pow = ops.power(self.t_mul, restarts)
            done = ops.divide(ops.subtract(1.0, t_pow), 1.0 - self.t_mul)
            fraction = ops.divide(ops.subtract(fraction, done), t_pow)
        peak = ops.power(self.m_mul, restarts)
        cos = ops.multiply(0.5, ops.add(1.0, ops.cos(ops.multiply(math.pi, fraction))))
        decayed = ops.add(ops.multiply(1.0 - self.alpha, ops.multiply(peak, cos)), self.alpha)
        return ops.multiply(self.initial_learning_rate, decayed)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self.t_mul,
            "m_mul": self.m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }
