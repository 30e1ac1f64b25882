"""Random sampling functions of `lamina.random`, with Keras 3's signatures.

Each function validates its arguments here, draws a concrete seed from `seed` (None, an int
or a `SeedGenerator`) and hands both to the backend, which samples as a pure function of
the seed. Functions taking a tensor (`dropout`, `shuffle`, `categorical`) are ops, so on a
symbolic input they return a `SymbolicTensor`.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any

from lamina.backend.config import SETTINGS
from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.dispatch import backend, float_dtype_of, to_tensor
from lamina.ops.shapes import (
    canonical_axis,
    known_dims,
    require_known,
    shape_arg,
    static_shape,
)
from lamina.ops.symbolic import SymbolicTensor
from lamina.random.seed_generator import SeedGenerator, _check_seed, draw_seed, is_seed_tensor

__all__ = [
    "beta",
    "binomial",
    "categorical",
    "dropout",
    "gamma",
    "normal",
    "randint",
    "shuffle",
    "truncated_normal",
    "uniform",
]


# --- argument checks shared by every function ----------------------------------------------
def _check_seed_arg(where: str, seed: Any) -> None:
    if seed is None or isinstance(seed, SeedGenerator) or is_seed_tensor(seed):
        return
    _check_seed(where, seed)


def _shape(where: str, shape: Any) -> tuple[Any, ...]:
    """`shape` as non-negative int dims; scalar integer tensors where sizes are traced."""
    try:
        return require_known(where, shape_arg(where, shape))
    except (TypeError, ValueError):
        raise ValueError(
            f"`{where}`: argument `shape` must be a tuple of non-negative ints (or scalar "
            f"integer tensors, such as `ops.shape(x)[0]`). Received: shape={shape!r}"
        ) from None


def _dtype(where: str, dtype: Any, kinds: tuple[str, ...], default: str, what: str) -> str:
    name = default if dtype is None else dtypes.standardize_dtype(dtype)
    if name not in kinds:
        raise TypeError(f"`{where}`: argument `dtype` must be {what}. Received: dtype={dtype!r}")
    return name


def _float_dtype(where: str, dtype: Any) -> str:
    return _dtype(where, dtype, dtypes.FLOATS, SETTINGS.floatx, "a float dtype")


def _scalar(where: str, arg: str, value: Any, dtype: str) -> Any:
    """A Python number as a float (or int), anything else as a tensor of `dtype`."""
    if isinstance(value, bool):
        raise TypeError(f"`{where}`: argument `{arg}` must be a number. Received: {arg}={value!r}")
    if isinstance(value, numbers.Integral):
        return operator.index(value) if dtype in dtypes.INTS else float(operator.index(value))
    if isinstance(value, numbers.Real):
        return float(value)
    return to_tensor(value, dtype)


def _positive(where: str, arg: str, value: Any, allow_zero: bool = False) -> None:
    if isinstance(value, float) and not (value > 0 or (allow_zero and value == 0)):
        bound = "non-negative" if allow_zero else "positive"
        raise ValueError(f"`{where}`: argument `{arg}` must be {bound}. Received: {arg}={value!r}")


# --- sampling from a shape -------------------------------------------------------------------
def normal(
    shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    """Draw samples from a normal (Gaussian) distribution.

    Example:
        >>> x = lamina.random.normal((2, 3), stddev=0.1, seed=1)
    """
    shape = _shape("normal", shape)
    dtype = _float_dtype("normal", dtype)
    _check_seed_arg("normal", seed)
    mean = _scalar("normal", "mean", mean, dtype)
    stddev = _scalar("normal", "stddev", stddev, dtype)
    _positive("normal", "stddev", stddev, allow_zero=True)
    return backend().random.normal(shape, mean, stddev, dtype, draw_seed("normal", seed))


def uniform(
    shape: Any, minval: Any = 0.0, maxval: Any = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    """Draw samples from a uniform distribution on ``[minval, maxval)``.

    Raises:
        ValueError: `minval` is not below `maxval`.

    Example:
        >>> x = lamina.random.uniform((4,), minval=-1.0, maxval=1.0, seed=0)
    """
    shape = _shape("uniform", shape)
    dtype = _float_dtype("uniform", dtype)
    _check_seed_arg("uniform", seed)
    minval = _scalar("uniform", "minval", minval, dtype)
    maxval = _scalar("uniform", "maxval", maxval, dtype)
    if isinstance(minval, float) and isinstance(maxval, float) and not minval < maxval:
        raise ValueError(
            f"`uniform`: argument `minval` must be less than `maxval`. "
            f"Received: minval={minval}, maxval={maxval}"
        )
    return backend().random.uniform(shape, minval, maxval, dtype, draw_seed("uniform", seed))


def truncated_normal(
    shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = None, seed: Any = None
) -> Any:
    """Draw normal samples, redrawing those more than two stddevs from the mean.

    Example:
        >>> x = lamina.random.truncated_normal((3, 3), seed=0)
    """
    shape = _shape("truncated_normal", shape)
    dtype = _float_dtype("truncated_normal", dtype)
    _check_seed_arg("truncated_normal", seed)
    mean = _scalar("truncated_normal", "mean", mean, dtype)
    stddev = _scalar("truncated_normal", "stddev", stddev, dtype)
    _positive("truncated_normal", "stddev", stddev, allow_zero=True)
    seed_tensor = draw_seed("truncated_normal", seed)
    return backend().random.truncated_normal(shape, mean, stddev, dtype, seed_tensor)


def randint(shape: Any, minval: int, maxval: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """Draw uniform integers in ``[minval, maxval)``.

    Raises:
        ValueError: the bounds are not ints or `minval` is not below `maxval`.

    Example:
        >>> x = lamina.random.randint((5,), 0, 10, seed=0)
    """
    shape = _shape("randint", shape)
    dtype = _dtype("randint", dtype, dtypes.INTS, "int32", "an integer dtype")
    _check_seed_arg("randint", seed)
    for arg, value in (("minval", minval), ("maxval", maxval)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(
                f"`randint`: argument `{arg}` must be an int. Received: {arg}={value!r}"
            )
    if not minval < maxval:
        raise ValueError(
            f"`randint`: argument `minval` must be less than `maxval`. "
            f"Received: minval={minval}, maxval={maxval}"
        )
    seed_tensor = draw_seed("randint", seed)
    return backend().random.randint(shape, int(minval), int(maxval), dtype, seed_tensor)


def gamma(shape: Any, alpha: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Draw samples from a gamma distribution of concentration `alpha` (scale 1).

    Example:
        >>> x = lamina.random.gamma((100,), alpha=2.0, seed=0)
    """
    shape = _shape("gamma", shape)
    dtype = _float_dtype("gamma", dtype)
    _check_seed_arg("gamma", seed)
    alpha = _scalar("gamma", "alpha", alpha, dtype)
    _positive("gamma", "alpha", alpha)
    return backend().random.gamma(shape, alpha, dtype, draw_seed("gamma", seed))


def beta(shape: Any, alpha: Any, beta: Any, dtype: Any = None, seed: Any = None) -> Any:
    """Draw samples from a beta distribution.

    Example:
        >>> x = lamina.random.beta((100,), alpha=2.0, beta=3.0, seed=0)
    """
    shape = _shape("beta", shape)
    dtype = _float_dtype("beta", dtype)
    _check_seed_arg("beta", seed)
    alpha = _scalar("beta", "alpha", alpha, dtype)
    beta_ = _scalar("beta", "beta", beta, dtype)
    _positive("beta", "alpha", alpha)
    _positive("beta", "beta", beta_)
    return backend().random.beta(shape, alpha, beta_, dtype, draw_seed("beta", seed))


def binomial(
    shape: Any, counts: Any, probabilities: Any, dtype: Any = None, seed: Any = None
) -> Any:
    """Draw the number of successes in `counts` trials of success probability `probabilities`.

    Example:
        >>> x = lamina.random.binomial((10,), counts=5, probabilities=0.5, seed=0)
    """
    shape = _shape("binomial", shape)
    dtype = _dtype("binomial", dtype, dtypes.FLOATS + dtypes.INTS, SETTINGS.floatx, "numeric")
    _check_seed_arg("binomial", seed)
    counts = _scalar("binomial", "counts", counts, "float32")
    probabilities = _scalar("binomial", "probabilities", probabilities, "float32")
    _positive("binomial", "counts", counts, allow_zero=True)
    if isinstance(probabilities, float) and not 0.0 <= probabilities <= 1.0:
        raise ValueError(
            "`binomial`: argument `probabilities` must be in [0, 1]. "
            f"Received: probabilities={probabilities!r}"
        )
    seed_tensor = draw_seed("binomial", seed)
    return backend().random.binomial(shape, counts, probabilities, dtype, seed_tensor)


# --- ops on tensors (symbolic-aware) --------------------------------------------------------
def _noise_shape(where: str, noise_shape: Any, shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """`noise_shape` with None dims taken from `shape`, checked to broadcast to it.

    `shape` holds ints, None (unknown) or, while a backend traces with unknown sizes, scalar
    tensors; so may `noise_shape`. Only dims known on both sides are compared.
    """
    if noise_shape is None:
        return shape
    if not isinstance(noise_shape, (tuple, list)) or len(noise_shape) != len(shape):
        raise ValueError(
            f"`{where}`: argument `noise_shape` must be a tuple of the inputs' rank "
            f"{len(shape)}. Received: noise_shape={noise_shape!r}"
        )
    try:
        dims = shape_arg(where, noise_shape, "noise_shape")
    except (TypeError, ValueError):
        dims = None
    if dims is None or any(
        isinstance(d, int) and isinstance(s, int) and d not in (1, s)
        for d, s in zip(dims, shape, strict=True)
    ):
        raise ValueError(
            f"`{where}`: argument `noise_shape` must broadcast to the inputs' shape "
            f"{known_dims(shape)}. Received: noise_shape={noise_shape!r}"
        )
    return tuple(s if d is None else d for d, s in zip(dims, shape, strict=True))


class Dropout(Op):
    """Zero entries at random and rescale the rest."""

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: Any = None, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
            raise ValueError(
                f"`dropout`: argument `rate` must be in [0, 1). Received: rate={rate!r}"
            )
        _check_seed_arg("dropout", seed)
        self.rate: float = float(rate)
        self.noise_shape: Any = noise_shape
        self.seed: Any = seed

    def compute_output_spec(self, inputs: Any) -> SymbolicTensor:
        shape = static_shape(inputs)
        _noise_shape("dropout", self.noise_shape, shape)
        return SymbolicTensor(shape, float_dtype_of(inputs))

    def call(self, inputs: Any) -> Any:
        x = to_tensor(inputs, float_dtype_of(inputs))
        # The dynamic shape: where sizes are traced (tf.function), unknown dims are tensors.
        shape = tuple(backend().core.shape(x))
        noise = require_known("dropout", _noise_shape("dropout", self.noise_shape, shape))
        seed = draw_seed("dropout", self.seed)
        return backend().random.dropout(x, self.rate, noise, seed)


def dropout(inputs: Any, rate: float, noise_shape: Any = None, seed: Any = None) -> Any:
    """Zero each entry with probability `rate`, scaling the others by ``1 / (1 - rate)``.

    Args:
        inputs: the tensor (ints are cast to floatx).
        rate: the probability of dropping an entry, in ``[0, 1)``.
        noise_shape: the shape of the keep mask, broadcast to the inputs (None dims: the
            inputs' dims), e.g. ``(batch, 1, features)`` to drop whole timesteps' features.
        seed: None, an int or a `SeedGenerator`.

    Example:
        >>> x = np.ones((2, 4), "float32")
        >>> y = lamina.random.dropout(x, 0.5, seed=0)  # entries 0.0 or 2.0
    """
    return Dropout(rate, noise_shape=noise_shape, seed=seed)(inputs)


class Shuffle(Op):
    """Permute the slices along an axis at random."""

    def __init__(self, axis: int = 0, seed: Any = None, name: str | None = None) -> None:
        super().__init__(name=name)
        _check_seed_arg("shuffle", seed)
        self.axis: int = axis
        self.seed: Any = seed

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        shape = static_shape(x)
        canonical_axis("shuffle", self.axis, len(shape))
        return SymbolicTensor(shape, dtypes.dtype_of(x))

    def call(self, x: Any) -> Any:
        x = to_tensor(x)
        axis = canonical_axis("shuffle", self.axis, len(static_shape(x)))
        return backend().random.shuffle(x, axis, draw_seed("shuffle", self.seed))


def shuffle(x: Any, axis: int = 0, seed: Any = None) -> Any:
    """Shuffle `x` along `axis`.

    Example:
        >>> y = lamina.random.shuffle(lamina.ops.arange(10), seed=0)
    """
    return Shuffle(axis=axis, seed=seed)(x)


class Categorical(Op):
    """Draw class indices from unnormalized log-probabilities."""

    def __init__(
        self, num_samples: int, dtype: Any = "int32", seed: Any = None, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        if (
            isinstance(num_samples, bool)
            or not isinstance(num_samples, numbers.Integral)
            or num_samples < 0
        ):
            raise ValueError(
                "`categorical`: argument `num_samples` must be a non-negative int. "
                f"Received: num_samples={num_samples!r}"
            )
        self.num_samples: int = operator.index(num_samples)
        self.dtype: str = _dtype("categorical", dtype, dtypes.INTS, "int32", "an integer dtype")
        _check_seed_arg("categorical", seed)
        self.seed: Any = seed

    def _check(self, logits: Any) -> tuple[int | None, ...]:
        shape = static_shape(logits)
        if len(shape) != 2:
            raise ValueError(
                "`categorical`: argument `logits` must be 2-D (batch, classes). "
                f"Received: logits.shape={shape}"
            )
        return shape

    def compute_output_spec(self, logits: Any) -> SymbolicTensor:
        shape = self._check(logits)
        return SymbolicTensor((shape[0], self.num_samples), self.dtype)

    def call(self, logits: Any) -> Any:
        x = to_tensor(logits, float_dtype_of(logits))
        self._check(x)
        seed = draw_seed("categorical", self.seed)
        return backend().random.categorical(x, self.num_samples, self.dtype, seed)


def categorical(logits: Any, num_samples: int, dtype: Any = "int32", seed: Any = None) -> Any:
    """Draw `num_samples` class indices per row of `logits` (batch, classes).

    Returns:
        Integers of shape (batch, num_samples).

    Example:
        >>> idx = lamina.random.categorical([[0.0, 1.0, 2.0]], 5, seed=0)
    """
    return Categorical(num_samples, dtype=dtype, seed=seed)(logits)
