"""Statistics and normalization: moments, batch/layer/RMS normalization, normalize.

Half-precision inputs are normalized in float32 and cast back, as Keras does: float16's
range is too small for sums of squares.
"""

from __future__ import annotations

import operator
from typing import Any

from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.dispatch import backend, native, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.nn.activations._common import (
    HALF_FLOATS,
    epsilon_or_default,
    float_dtype,
    number,
    ranked,
)
from lamina.ops.shapes import Shape, canonical_axes, canonical_axis, reduced_shape, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = [
    "batch_normalization",
    "layer_normalization",
    "moments",
    "normalize",
    "rms_normalization",
]


def _compute_dtype(dtype: str) -> str:
    return "float32" if dtype in HALF_FLOATS else dtype


def _cast_back(x: Any, dtype: str) -> Any:
    return backend().core.cast(x, dtype) if dtype in HALF_FLOATS else x


def _all_axes(op: str, axis: Any, ndim: int) -> tuple[int, ...]:
    axes = canonical_axes(op, axis, ndim)
    return tuple(range(ndim)) if axes is None else axes


class Moments(Op):
    def __init__(
        self,
        axes: Any,
        keepdims: bool = False,
        synchronized: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.axes = axes
        self.keepdims = bool(keepdims)
        # One process holds the whole batch, so `synchronized` changes nothing here.
        self.synchronized = bool(synchronized)

    def compute_output_spec(self, x: Any) -> tuple[SymbolicTensor, SymbolicTensor]:
        shape = static_shape(x)
        axes = canonical_axes(self.op_name, self.axes, len(shape))
        out = reduced_shape(shape, axes, self.keepdims)
        dtype = float_dtype(self.op_name, x)
        return SymbolicTensor(out, dtype), SymbolicTensor(out, dtype)

    def call(self, x: Any) -> tuple[Any, Any]:
        axes, dtype, ready = memo(self, (x,), lambda: self._checked(x))
        compute = _compute_dtype(dtype)
        mean, variance = composite("nn", "moments")(
            x if ready else to_tensor(x, compute), axes, self.keepdims
        )
        return _cast_back(mean, dtype), _cast_back(variance, dtype)

    def _checked(self, x: Any) -> tuple[tuple[int, ...] | None, str, bool]:
        """The axes, the output dtype, and whether `x` already is a tensor of the dtype the
        statistics are computed in."""
        axes = canonical_axes(self.op_name, self.axes, len(static_shape(x)))
        dtype = float_dtype(self.op_name, x)
        return axes, dtype, native(_compute_dtype(dtype), x)


def moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> Any:
    """Mean and variance of `x` over `axes`.

    Args:
        x: input tensor.
        axes: an int or a sequence of ints (None: all axes).
        keepdims: whether to keep the reduced axes with size 1.
        synchronized: sync statistics across devices (one process here, so no effect).

    Returns:
        A tuple ``(mean, variance)``.

    Example:
        >>> mean, var = lamina.ops.moments(np.array([1.0, 3.0]), axes=0)  # 2.0, 1.0
    """
    return Moments(axes, keepdims, synchronized)(x)


class BatchNormalization(Op):
    def __init__(self, axis: int, epsilon: float = 1e-3, name: str | None = None) -> None:
        super().__init__(name=name)
        self.axis = axis
        self.epsilon = number(self.op_name, "epsilon", epsilon, 0.0)

    def check(self, x: Any, params: dict[str, Any]) -> tuple[str, tuple[int, ...]]:
        shape = ranked(self.op_name, x)
        axis = canonical_axis(self.op_name, self.axis, len(shape))
        for arg, p in params.items():
            p_shape = static_shape(p)
            size = p_shape[0] if len(p_shape) == 1 else 1
            if len(p_shape) > 1 or (
                len(p_shape) == 1 and None not in (size, shape[axis]) and size != shape[axis]
            ):
                raise ValueError(
                    f"`{self.op_name}`: argument `{arg}` must be a vector of length "
                    f"x.shape[axis]={shape[axis]}. Received: {arg}.shape={p_shape}"
                )
        dtype = float_dtype(self.op_name, x, *params.values())
        return dtype, tuple(-1 if i == axis else 1 for i in range(len(shape)))

    def compute_output_spec(
        self, x: Any, mean: Any, variance: Any, offset: Any = None, scale: Any = None
    ) -> SymbolicTensor:
        params = {"mean": mean, "variance": variance, "offset": offset, "scale": scale}
        dtype, _ = self.check(x, {k: v for k, v in params.items() if v is not None})
        return SymbolicTensor(static_shape(x), dtype)

    def call(self, x: Any, mean: Any, variance: Any, offset: Any = None, scale: Any = None) -> Any:
        inputs = (x, mean, variance, offset, scale)
        dtype, param_shape, ready = memo(self, inputs, lambda: self._checked(*inputs))
        if not ready:
            x, mean, variance, offset, scale = (
                None if v is None else to_tensor(v, dtype) for v in inputs
            )
        return composite("nn", "batch_normalization")(
            x, mean, variance, offset, scale, param_shape, self.epsilon
        )

    def _checked(self, x: Any, *params: Any) -> tuple[str, tuple[int, ...], bool]:
        """`check`'s dtype and parameter shape, and whether every input already is a
        tensor of that dtype."""
        names = ("mean", "variance", "offset", "scale")
        given = {k: v for k, v in zip(names, params) if v is not None}
        dtype, param_shape = self.check(x, given)
        return dtype, param_shape, native(dtype, x, *given.values())


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    axis: int,
    offset: Any = None,
    scale: Any = None,
    epsilon: float = 1e-3,
) -> Any:
    """Normalize `x` with given statistics: ``(x - mean) / sqrt(variance + epsilon)``.

    Args:
        x: input tensor.
        mean: vector of means, of length ``x.shape[axis]``.
        variance: vector of variances, of the same length.
        axis: the feature axis the vectors run along.
        offset: optional vector added after normalizing.
        scale: optional vector multiplied after normalizing.
        epsilon: small float added to the variance.

    Example:
        >>> lamina.ops.batch_normalization(np.ones((2, 3)), np.ones(3), np.ones(3), axis=-1)
    """
    return BatchNormalization(axis, epsilon)(x, mean, variance, offset, scale)


def _param_shape(op: str, shape: Shape, axes: tuple[int, ...], params: dict[str, Any]) -> Any:
    """The shape the `params` (spanning `axes` of `x`) are reshaped to for broadcasting."""
    dims: list[int | None] = [shape[a] for a in axes]
    for arg, p in params.items():
        p_shape = static_shape(p)
        if len(p_shape) == len(shape) and len(shape) != len(axes):
            p_shape = (
                tuple(p_shape[a] for a in axes)
                if all(p_shape[i] == 1 for i in range(len(shape)) if i not in axes)
                else (-2,)
            )
        ok = len(p_shape) == len(axes) and all(
            d is None or e is None or d == e for d, e in zip(p_shape, dims)
        )
        if not ok:
            expected = tuple(dims)
            raise ValueError(
                f"`{op}`: argument `{arg}` must have the shape of `x` along `axis`, "
                f"{expected}. Received: {arg}.shape={static_shape(p)}"
            )
        dims = [e if e is not None else d for d, e in zip(p_shape, dims)]
    known = {a: d for a, d in zip(axes, dims)}
    return tuple(
        (-1 if known[i] is None else known[i]) if i in known else 1 for i in range(len(shape))
    )


class LayerNormalization(Op):
    def __init__(
        self,
        axis: Any = -1,
        epsilon: Any = None,
        rms_scaling: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.axis = axis
        self.epsilon = epsilon_or_default(self.op_name, epsilon)
        self.rms_scaling = bool(rms_scaling)

    def check(self, x: Any, params: dict[str, Any]) -> tuple[str, tuple[int, ...], Any]:
        shape = ranked(self.op_name, x)
        axes = _all_axes(self.op_name, self.axis, len(shape))
        given = {k: v for k, v in params.items() if v is not None}
        param_shape = _param_shape(self.op_name, shape, axes, given)
        return float_dtype(self.op_name, x, *given.values()), axes, param_shape

    def compute_output_spec(self, x: Any, gamma: Any = None, beta: Any = None) -> SymbolicTensor:
        dtype, _, _ = self.check(x, {"gamma": gamma, "beta": beta})
        return SymbolicTensor(static_shape(x), dtype)

    def _checked(self, x: Any, gamma: Any, beta: Any) -> tuple[str, tuple[int, ...], Any, bool]:
        """`check`'s results, and whether every input already is a tensor of the dtype the
        normalization is computed in."""
        dtype, axes, param_shape = self.check(x, {"gamma": gamma, "beta": beta})
        given = [p for p in (x, gamma, beta) if p is not None]
        return dtype, axes, param_shape, native(_compute_dtype(dtype), *given)

    def call(self, x: Any, gamma: Any = None, beta: Any = None) -> Any:
        dtype, axes, param_shape, ready = memo(
            self, (x, gamma, beta), lambda: self._checked(x, gamma, beta)
        )
        compute = _compute_dtype(dtype)
        g, b = gamma, beta
        if not ready:
            g, b = (None if p is None else to_tensor(p, compute) for p in (gamma, beta))
            x = to_tensor(x, compute)
        if self.rms_scaling:
            out = composite("nn", "rms_normalization")(x, g, axes, param_shape, self.epsilon)
        else:
            out = composite("nn", "layer_normalization")(x, g, b, axes, param_shape, self.epsilon)
        return _cast_back(out, dtype)


def layer_normalization(
    x: Any,
    gamma: Any = None,
    beta: Any = None,
    axis: Any = -1,
    epsilon: Any = None,
    **kwargs: Any,
) -> Any:
    """Layer normalization: normalize `x` over `axis` to zero mean and unit variance.

    Args:
        x: input tensor.
        gamma: optional scale, of `x`'s shape along `axis`.
        beta: optional offset, of the same shape.
        axis: an int or a sequence of ints to normalize over.
        epsilon: small float added to the variance (default `lamina.config.epsilon()`).
        **kwargs: `rms_scaling` (deprecated): use RMS normalization with `gamma` instead.

    Example:
        >>> lamina.ops.layer_normalization(np.array([[1.0, 3.0]]))  # [[-1., 1.]]
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"`layer_normalization`: unexpected keyword arguments {sorted(kwargs)}.")
    return LayerNormalization(axis, epsilon, rms_scaling)(x, gamma, beta)


class RmsNormalization(LayerNormalization):
    def __init__(self, axis: Any = -1, epsilon: Any = None, name: str | None = None) -> None:
        super().__init__(axis, epsilon, rms_scaling=True, name=name)

    def compute_output_spec(self, x: Any, scale: Any = None) -> SymbolicTensor:  # type: ignore[override]
        dtype, _, _ = self.check(x, {"scale": scale})
        return SymbolicTensor(static_shape(x), dtype)

    def call(self, x: Any, scale: Any = None) -> Any:  # type: ignore[override]
        return super().call(x, scale)


def rms_normalization(x: Any, scale: Any = None, axis: Any = -1, epsilon: Any = None) -> Any:
    """Root-mean-square normalization, ``x / sqrt(mean(x**2, axis) + epsilon) * scale``.

    Args:
        x: input tensor.
        scale: optional scale, of `x`'s shape along `axis`.
        axis: an int or a sequence of ints to normalize over.
        epsilon: small float added inside the root (default `lamina.config.epsilon()`).

    Example:
        >>> lamina.ops.rms_normalization(np.array([[3.0, 4.0]]))  # about [[0.8485, 1.1314]]
    """
    return RmsNormalization(axis, epsilon)(x, scale)


class Normalize(Op):
    def __init__(
        self, axis: Any = -1, order: int = 2, epsilon: Any = None, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        try:
            self.order = operator.index(order)
        except TypeError:
            self.order = 0
        if isinstance(order, bool) or self.order < 1:
            raise ValueError(
                f"`{self.op_name}`: argument `order` must be an int >= 1. Received: order={order!r}"
            )
        self.axis = axis
        self.epsilon = epsilon_or_default(self.op_name, epsilon)

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        _all_axes(self.op_name, self.axis, len(ranked(self.op_name, x)))
        return SymbolicTensor(static_shape(x), float_dtype(self.op_name, x))

    def call(self, x: Any) -> Any:
        axes = _all_axes(self.op_name, self.axis, len(ranked(self.op_name, x)))
        x = to_tensor(x, float_dtype(self.op_name, x))
        return composite("nn", "normalize")(x, axes, self.order, self.epsilon)


def normalize(x: Any, axis: Any = -1, order: int = 2, epsilon: Any = None) -> Any:
    """Scale `x` to unit `order`-norm along `axis`: ``x / max(norm(x), epsilon)``.

    Args:
        x: input tensor (rank >= 1).
        axis: an int or a sequence of ints (None: all axes) the norm runs over.
        order: the norm's order, an int >= 1.
        epsilon: lower bound on the norm (default `lamina.config.epsilon()`).

    Example:
        >>> lamina.ops.normalize(np.array([3.0, 4.0]))  # [0.6, 0.8]
    """
    return Normalize(axis, order, epsilon)(x)
