"""Shape rules shared by every op's symbolic and eager paths (no backend needed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Shape = tuple[int | None, ...]


def static_shape(x: Any) -> Shape:
    """The shape of a tensor, array, variable, symbolic tensor or Python value as a tuple."""
    shape = getattr(x, "shape", None)
    if shape is None:
        if isinstance(x, (int, float, complex, bool)):
            return ()
        import numpy as np

        return tuple(np.shape(x))
    # tf.TensorShape yields None for unknown dims; torch.Size and tuples yield ints; a
    # symbolic dim (jax2tf's polymorphic batch) is unknown here too.
    return tuple(_static_dim(d) for d in shape)


def _static_dim(d: Any) -> int | None:
    if d is None:
        return None
    try:
        return int(d)
    except Exception:  # TypeError, or a symbolic dimension that refuses int()
        return None


def broadcast_shapes(op: str, *shapes: Sequence[int | None]) -> Shape:
    """The broadcast of `shapes` under NumPy rules, with None for unknown dims.

    Raises:
        ValueError: two dims are known, differ, and neither is 1.
    """
    first = tuple(shapes[0]) if shapes else ()
    if all(tuple(s) == first for s in shapes[1:]):
        return first  # the common case, and the hot path of every element-wise op
    ndim = 0
    for s in shapes:  # not max() over a generator: torch.compile cannot trace that call
        ndim = max(ndim, len(s))
    out: list[int | None] = []
    for i in range(ndim):
        dim: int | None = 1
        for s in shapes:
            j = len(s) - ndim + i
            if j < 0:
                continue
            d = s[j]
            if d == 1:
                continue
            if d is None:
                dim = None if dim in (1, None) else dim
            elif dim in (1, None):
                dim = d
            elif dim != d:
                raise ValueError(
                    f"`{op}`: shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be "
                    f"broadcast together (dim {i} is {dim} in one and {d} in another)."
                )
        out.append(dim)
    return tuple(out)


def canonical_axis(op: str, axis: Any, ndim: int, arg: str = "axis") -> int:
    """`axis` as a non-negative int in ``[0, ndim)``.

    Raises:
        TypeError: `axis` is not an int.
        ValueError: `axis` is out of range.
    """
    if isinstance(axis, bool) or not isinstance(axis, int):
        try:
            import operator

            axis = operator.index(axis)
        except TypeError:
            raise TypeError(
                f"`{op}`: argument `{arg}` must be an int. Received: {arg}={axis!r} "
                f"(of type {type(axis).__name__})"
            ) from None
    if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise ValueError(
            f"`{op}`: argument `{arg}` is out of range for a tensor of rank {ndim}; expected "
            f"an int in [{-ndim}, {ndim}). Received: {arg}={axis}"
        )
    return axis % ndim if ndim else 0


def canonical_axes(op: str, axis: Any, ndim: int, arg: str = "axis") -> tuple[int, ...] | None:
    """`axis` (None, an int or a sequence of ints) as a sorted tuple, or None for all axes.

    Raises:
        ValueError: an axis is out of range or repeated.
    """
    if axis is None:
        return None
    axes = (axis,) if not isinstance(axis, (list, tuple)) else tuple(axis)
    out = tuple(canonical_axis(op, a, ndim, arg) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"`{op}`: argument `{arg}` repeats an axis. Received: {arg}={axis!r}")
    return tuple(sorted(out))


def reduced_shape(shape: Shape, axes: tuple[int, ...] | None, keepdims: bool) -> Shape:
    """The shape left after reducing `axes` (None = all) of `shape`."""
    if axes is None:
        return tuple(1 for _ in shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def check_rank(op: str, x_shape: Shape, allowed: Sequence[int] | int, arg: str = "x") -> None:
    """Raise ValueError unless ``len(x_shape)`` is in `allowed` (or at least `allowed`).

    An int `allowed` means "rank at least this"; a sequence lists the exact ranks accepted.
    """
    rank = len(x_shape)
    if isinstance(allowed, int):
        if rank < allowed:
            raise ValueError(
                f"`{op}`: argument `{arg}` must have rank >= {allowed}. "
                f"Received: {arg}.shape={tuple(x_shape)}"
            )
    elif rank not in allowed:
        raise ValueError(
            f"`{op}`: argument `{arg}` must have rank in {tuple(allowed)}. "
            f"Received: {arg}.shape={tuple(x_shape)}"
        )


def _is_int(value: Any) -> bool:
    import numpy as np

    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _dim_value(op: str, arg: str, shape: Any, d: Any) -> Any:
    """One dim as an int where its value is known, else the scalar integer tensor itself."""
    if d is None or _is_int(d):
        return None if d is None else int(d)
    from lamina.ops import dtypes

    if isinstance(d, bool) or not hasattr(d, "dtype") or static_shape(d) != ():
        raise TypeError(
            f"`{op}`: argument `{arg}` must hold ints or scalar integer tensors. "
            f"Received: {arg}={shape!r}"
        )
    if dtypes.dtype_of(d) not in dtypes.INTS:
        raise TypeError(
            f"`{op}`: argument `{arg}` must hold integers; one dim is a "
            f"{dtypes.dtype_of(d)} tensor. Received: {arg}={shape!r}"
        )
    import operator

    try:
        return operator.index(d)
    except Exception:  # a traced value (TF graph, symbolic dim): keep the tensor
        return d


def shape_arg(op: str, shape: Any, arg: str = "shape", *, minimum: int = 0) -> tuple[Any, ...]:
    """`shape` (an int, a sequence of dims or a 1-D integer tensor) as a tuple of dims.

    A dim comes back as a Python int (checked to be >= `minimum`), None (unknown, as in the
    shape of a `SymbolicTensor`), or a scalar integer tensor whose value is not known while a
    backend traces with unknown sizes, such as ``ops.shape(x)[0]`` inside a TensorFlow
    `tf.function`. A tensor whose value is known becomes an int, so JAX, PyTorch and NumPy
    only ever see ints here. `known_dims` and `require_known` take the result.

    Raises:
        TypeError: `shape` or one of its dims is not an integer.
        ValueError: an int dim is below `minimum`.
    """
    if _is_int(shape):
        items: Any = (shape,)
    elif hasattr(shape, "shape") and hasattr(shape, "dtype"):
        n = static_shape(shape)
        if len(n) != 1 or n[0] is None:
            raise TypeError(
                f"`{op}`: argument `{arg}` must be a tuple of ints or a 1-D integer tensor of "
                f"known length. Received: {arg} of shape {n}"
            )
        items = [shape[i] for i in range(n[0])]
    else:
        try:
            items = tuple(shape)  # a tuple, list, torch.Size, tf.TensorShape...
        except TypeError:
            raise TypeError(
                f"`{op}`: argument `{arg}` must be an int or a tuple of ints. "
                f"Received: {arg}={shape!r}"
            ) from None
    dims = tuple(_dim_value(op, arg, shape, d) for d in items)
    if any(isinstance(d, int) and d < minimum for d in dims):
        bound = "must not be negative" if minimum == 0 else f"must be >= {minimum}"
        raise ValueError(f"`{op}`: the dims of argument `{arg}` {bound}. Received: {arg}={shape!r}")
    return dims


def known_dims(dims: Sequence[Any]) -> Shape:
    """`dims` from `shape_arg` with every dim whose value is unknown as None."""
    return tuple(d if isinstance(d, int) else None for d in dims)


def require_known(op: str, dims: tuple[Any, ...], arg: str = "shape") -> tuple[Any, ...]:
    """`dims` unchanged, or ValueError if one is None (an eager call needs every size)."""
    if any(d is None for d in dims):
        raise ValueError(
            f"`{op}`: argument `{arg}` has an unknown (None) dim; on tensors every dim must be "
            f"an int or a scalar integer tensor. Received: {arg}={dims!r}"
        )
    return dims
