"""What the normalization layers share: argument checks, axis handling, masked moments.

Statistics of half-precision inputs are computed in float32 (a float16 variance of
activations loses most of its digits), then results go back to the layer's compute dtype.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from lamina import ops
from lamina.ops import dtypes

HALF_FLOATS = ("float16", "bfloat16")


def non_negative_float(layer: str, arg: str, value: Any) -> float:
    """`value` as a float >= 0, or a ValueError naming `layer` and `arg`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or float(value) < 0:
        raise ValueError(
            f"{layer}: argument `{arg}` must be a float >= 0. Received: {arg}={value!r}"
        )
    return float(value)


def unit_float(layer: str, arg: str, value: Any) -> float:
    """`value` as a float in ``[0, 1]``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0.0 <= float(value) <= 1.0
    ):
        raise ValueError(
            f"{layer}: argument `{arg}` must be a float in [0, 1]. Received: {arg}={value!r}"
        )
    return float(value)


def int_axis(layer: str, value: Any) -> int:
    """`value` as one int axis."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{layer}: argument `axis` must be an int. Received: axis={value!r}")
    return int(value)


def int_axes(layer: str, value: Any) -> int | list[int]:
    """An int axis, or a non-empty list of distinct int axes."""
    if isinstance(value, (list, tuple)):
        if not value or not all(
            isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in value
        ):
            raise TypeError(
                f"{layer}: argument `axis` must be an int or a non-empty list of ints. "
                f"Received: axis={value!r}"
            )
        return [int(a) for a in value]
    return int_axis(layer, value)


def canonical_axes(layer: str, axes: int | Sequence[int], rank: int) -> list[int]:
    """Non-negative, sorted, distinct axes valid for inputs of `rank`."""
    listed = [axes] if isinstance(axes, int) else list(axes)
    out: list[int] = []
    for axis in listed:
        if not -rank <= axis < rank:
            raise ValueError(
                f"{layer}: argument `axis` must be in [-{rank}, {rank}) for inputs of rank "
                f"{rank}. Received: axis={axes!r}"
            )
        out.append(axis % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"{layer}: argument `axis` repeats an axis. Received: axis={axes!r}")
    return sorted(out)


def known_dims(layer: str, input_shape: Any, axes: list[int]) -> list[int]:
    """The sizes of `axes`, which must be known to create the weights."""
    dims = [input_shape[a] for a in axes]
    if any(d is None for d in dims):
        raise ValueError(
            f"{layer}: the normalized axes {axes} of the inputs must have known sizes. "
            f"Received: input_shape={tuple(input_shape)}"
        )
    return [int(d) for d in dims]


def stats_dtype(x: Any) -> str:
    """The dtype statistics of `x` are computed in (float32 for half floats)."""
    kind = dtypes.dtype_of(x)
    return "float32" if kind in HALF_FLOATS else kind


def as_dtype(x: Any, dtype: str) -> Any:
    """`x` cast to `dtype`, without an op call when it already has it."""
    return x if dtypes.dtype_of(x) == dtype else ops.cast(x, dtype)


def broadcast_param(param: Any, rank: int, axes: list[int], dtype: str) -> Any:
    """A weight over `axes` reshaped so it broadcasts against inputs of `rank`."""
    value = ops.cast(param, dtype)
    if axes == list(range(rank - len(axes), rank)):  # trailing axes: already broadcasts
        return value
    sizes = list(value.shape)
    shape = [1] * rank
    for axis, size in zip(axes, sizes):
        shape[axis] = size
    return ops.reshape(value, shape)


def expand_mask(mask: Any, rank: int, dtype: str) -> Any:
    """A mask of leading dims (e.g. ``(batch, time)``) as weights broadcastable to `rank`."""
    weights = ops.cast(mask, dtype)
    for _ in range(rank - len(weights.shape)):
        weights = ops.expand_dims(weights, -1)
    return weights


def masked_moments(
    x: Any, axes: list[int], mask: Any, keepdims: bool, synchronized: bool = False
) -> tuple[Any, Any]:
    """Mean and variance of `x` over `axes`, counting only entries where `mask` is true.

    Without a mask this is `ops.nn.moments`. Fully masked groups get mean 0, variance 0.
    """
    if mask is None:
        mean, var = ops.nn.moments(x, axes=axes, keepdims=keepdims, synchronized=synchronized)
        return mean, var
    weights = ops.broadcast_to(expand_mask(mask, len(x.shape), x.dtype), ops.shape(x))
    count = ops.maximum(ops.sum(weights, axis=axes, keepdims=True), 1.0)
    mean = ops.sum(x * weights, axis=axes, keepdims=True) / count
    var = ops.sum(weights * ops.square(x - mean), axis=axes, keepdims=True) / count
    if not keepdims:
        mean = ops.squeeze(mean, axis=axes)
        var = ops.squeeze(var, axis=axes)
    return mean, var
