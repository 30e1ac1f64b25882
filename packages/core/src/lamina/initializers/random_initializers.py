"""Random initializers: normal/uniform draws, variance scaling (Glorot, He, LeCun), orthogonal.

A seeded initializer (an int seed) returns the same values on every call, so rebuilding a
model from its config reproduces its weights; an unseeded one draws a fresh seed per call;
a `SeedGenerator` seed advances on each call.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from lamina import ops, random
from lamina.initializers.initializer import (
    Initializer,
    check_float_dtype,
    check_number,
    check_shape,
    compute_fans,
)
from lamina.random.seed_generator import SeedGenerator

# Standard deviation of a standard normal truncated to [-2, 2]; dividing by it keeps the
# variance of truncated draws equal to the target.
_TRUNCATED_STDDEV = 0.87962566103423978


def _check_seed(where: str, seed: Any) -> Any:
    if isinstance(seed, dict):
        from lamina.saving.serialization import deserialize_lamina_object

        seed = deserialize_lamina_object(seed, module_objects={"SeedGenerator": SeedGenerator})
    if seed is None or isinstance(seed, SeedGenerator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ValueError(
            f"`{where}`: argument `seed` must be None, a non-negative int or a SeedGenerator. "
            f"Received: seed={seed!r}"
        )
    return int(seed)


class RandomInitializer(Initializer):
    """Base of initializers that draw random values; holds and serializes the seed.

    Args:
        seed: None (fresh values per call), an int (the same values per call) or a
            `lamina.random.SeedGenerator` (advances per call).
    """

    def __init__(self, seed: Any = None) -> None:
        self.seed = _check_seed(type(self).__name__, seed)

    def get_config(self) -> dict[str, Any]:
        seed = self.seed
        if isinstance(seed, SeedGenerator):
            from lamina.saving.serialization import serialize_lamina_object

            seed = serialize_lamina_object(seed)
        return {"seed": seed}


class RandomNormal(RandomInitializer):
    """Draw from a normal distribution.

    Args:
        mean: the mean.
        stddev: the standard deviation (>= 0).
        seed: see `RandomInitializer`.

    Example:
        >>> lamina.initializers.RandomNormal(stddev=0.02, seed=1)((3, 4))
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Any = None) -> None:
        self.mean = check_number("RandomNormal", "mean", mean)
        self.stddev = check_number("RandomNormal", "stddev", stddev, minimum=0.0)
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """Normal draws of `shape` and float `dtype`."""
        shape = check_shape("RandomNormal", shape)
        dtype = check_float_dtype("RandomNormal", dtype)
        return random.normal(shape, self.mean, self.stddev, dtype=dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class TruncatedNormal(RandomInitializer):
    """Draw from a normal distribution, redrawing values beyond two stddevs of the mean.

    Args:
        mean: the mean.
        stddev: the standard deviation before truncation (>= 0).
        seed: see `RandomInitializer`.

    Example:
        >>> lamina.initializers.TruncatedNormal(stddev=0.02, seed=1)((3, 4))
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Any = None) -> None:
        self.mean = check_number("TruncatedNormal", "mean", mean)
        self.stddev = check_number("TruncatedNormal", "stddev", stddev, minimum=0.0)
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """Truncated normal draws of `shape` and float `dtype`."""
        shape = check_shape("TruncatedNormal", shape)
        dtype = check_float_dtype("TruncatedNormal", dtype)
        return random.truncated_normal(
            shape, self.mean, self.stddev, dtype=dtype, seed=self.seed
        )

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, **super().get_config()}


class RandomUniform(RandomInitializer):
    """Draw from a uniform distribution on ``[minval, maxval)``.

    Args:
        minval: the lower bound.
        maxval: the upper bound (greater than `minval`).
        seed: see `RandomInitializer`.

    Example:
        >>> lamina.initializers.RandomUniform(-1.0, 1.0, seed=0)((2, 2))
    """

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: Any = None) -> None:
        self.minval = check_number("RandomUniform", "minval", minval)
        self.maxval = check_number("RandomUniform", "maxval", maxval)
        if not self.minval < self.maxval:
            raise ValueError(
                "`RandomUniform`: argument `minval` must be less than `maxval`. "
                f"Received: minval={minval!r}, maxval={maxval!r}"
            )
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """Uniform draws of `shape` and float `dtype`."""
        shape = check_shape("RandomUniform", shape)
        dtype = check_float_dtype("RandomUniform", dtype)
        return random.uniform(shape, self.minval, self.maxval, dtype=dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, **super().get_config()}


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("normal", "truncated_normal", "untruncated_normal", "uniform")


class VarianceScaling(RandomInitializer):
    """Draws whose variance is ``scale / n``, n a fan of the weight's shape.

    With a normal distribution the draws have stddev ``sqrt(scale / n)`` (truncated at two
    stddevs for ``"truncated_normal"``/``"normal"``, not for ``"untruncated_normal"``); with
    ``"uniform"`` they lie in ``[-limit, limit]``, ``limit = sqrt(3 * scale / n)``.

    Args:
        scale: the variance multiplier (> 0).
        mode: ``"fan_in"``, ``"fan_out"`` or ``"fan_avg"``, which n to use.
        distribution: ``"truncated_normal"``, ``"normal"`` (same), ``"untruncated_normal"``
            or ``"uniform"``.
        seed: see `RandomInitializer`.

    Example:
        >>> init = lamina.initializers.VarianceScaling(2.0, "fan_in", "uniform", seed=0)
        >>> kernel = init((64, 32))
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: Any = None,
    ) -> None:
        where = type(self).__name__
        self.scale = check_number(where, "scale", scale, minimum=0.0, strict=True)
        mode_name = mode.lower() if isinstance(mode, str) else mode
        if mode_name not in _MODES:
            raise ValueError(
                f"`{where}`: argument `mode` must be one of {_MODES}. Received: mode={mode!r}"
            )
        dist_name = distribution.lower() if isinstance(distribution, str) else distribution
        if dist_name not in _DISTRIBUTIONS:
            raise ValueError(
                f"`{where}`: argument `distribution` must be one of {_DISTRIBUTIONS}. "
                f"Received: distribution={distribution!r}"
            )
        self.mode: str = mode_name
        self.distribution: str = dist_name
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """Scaled random draws of `shape` and float `dtype`."""
        where = type(self).__name__
        shape = check_shape(where, shape)
        dtype = check_float_dtype(where, dtype)
        fan_in, fan_out = compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        variance = self.scale / max(1.0, fan[self.mode])
        if self.distribution in ("truncated_normal", "normal"):
            stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
            return random.truncated_normal(shape, 0.0, stddev, dtype=dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random.normal(shape, 0.0, math.sqrt(variance), dtype=dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random.uniform(shape, -limit, limit, dtype=dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            **super().get_config(),
        }


class _FixedVarianceScaling(VarianceScaling):
    """A variance scaling preset: only the seed is an argument (and the config)."""

    _preset: tuple[float, str, str] = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed: Any = None) -> None:
        scale, mode, distribution = self._preset
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": super().get_config()["seed"]}


class GlorotUniform(_FixedVarianceScaling):
    """Glorot (Xavier) uniform: limit ``sqrt(6 / (fan_in + fan_out))``.

    Example:
        >>> lamina.initializers.GlorotUniform(seed=0)((64, 32))
    """

    _preset = (1.0, "fan_avg", "uniform")


class GlorotNormal(_FixedVarianceScaling):
    """Glorot (Xavier) normal: truncated, stddev ``sqrt(2 / (fan_in + fan_out))``.

    Example:
        >>> lamina.initializers.GlorotNormal(seed=0)((64, 32))
    """

    _preset = (1.0, "fan_avg", "truncated_normal")


class HeUniform(_FixedVarianceScaling):
    """He uniform (for ReLU nets): limit ``sqrt(6 / fan_in)``.

    Example:
        >>> lamina.initializers.HeUniform(seed=0)((3, 3, 16, 32))
    """

    _preset = (2.0, "fan_in", "uniform")


class HeNormal(_FixedVarianceScaling):
    """He normal (for ReLU nets): truncated, stddev ``sqrt(2 / fan_in)``.

    Example:
        >>> lamina.initializers.HeNormal(seed=0)((3, 3, 16, 32))
    """

    _preset = (2.0, "fan_in", "truncated_normal")


class LecunUniform(_FixedVarianceScaling):
    """LeCun uniform (for SELU nets): limit ``sqrt(3 / fan_in)``.

    Example:
        >>> lamina.initializers.LecunUniform(seed=0)((64, 32))
    """

    _preset = (1.0, "fan_in", "uniform")


class LecunNormal(_FixedVarianceScaling):
    """LeCun normal (for SELU nets): truncated, stddev ``sqrt(1 / fan_in)``.

    Example:
        >>> lamina.initializers.LecunNormal(seed=0)((64, 32))
    """

    _preset = (1.0, "fan_in", "truncated_normal")


class Orthogonal(RandomInitializer):
    """A random orthogonal matrix (rows or columns orthonormal) times `gain`.

    The weight is viewed as a matrix ``(prod(shape[:-1]), shape[-1])``; the Q factor of a
    normal matrix, with signs fixed by R's diagonal so it is uniformly distributed, fills it.

    Args:
        gain: the multiplier of the orthogonal matrix.
        seed: see `RandomInitializer`.

    Example:
        >>> q = lamina.initializers.Orthogonal(seed=0)((4, 4))  # q.T @ q == I
    """

    def __init__(self, gain: float = 1.0, seed: Any = None) -> None:
        self.gain = check_number("Orthogonal", "gain", gain)
        super().__init__(seed)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """An orthogonal tensor of `shape` (at least 2D) and float `dtype`.

        Raises:
            ValueError: `shape` has fewer than 2 dimensions.
        """
        shape = check_shape("Orthogonal", shape)
        dtype = check_float_dtype("Orthogonal", dtype)
        if len(shape) < 2:
            raise ValueError(
                "`Orthogonal`: argument `shape` must have at least 2 dimensions. "
                f"Received: shape={shape}"
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        # QR is unavailable or imprecise in half precision: decompose in float32 (or 64).
        work = "float64" if dtype == "float64" else "float32"
        flat = (max(rows, cols), min(rows, cols))
        a = random.normal(flat, 0.0, 1.0, dtype=work, seed=self.seed)
        q, r = ops.qr(a, mode="reduced")
        signs = ops.sign(ops.diagonal(r))
        # A zero on R's diagonal (probability 0) must not zero a column.
        signs = ops.where(ops.equal(signs, 0), ops.ones_like(signs), signs)
        q = ops.multiply(q, ops.expand_dims(signs, 0))
        if rows < cols:
            q = ops.transpose(q)
        q = ops.multiply(ops.reshape(q, shape), ops.convert_to_tensor(self.gain, dtype=work))
        return ops.cast(q, dtype)

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain, **super().get_config()}


OrthogonalInitializer = Orthogonal
