"""`control_flow` composites: eager loops and branches, and casts built on the primitives.

The loops here run in Python, one step at a time, on concrete tensors: what a backend
without a graph compiler (NumPy, eager PyTorch) does. Backends that trace steps into a
program (JAX, TensorFlow) keep their own `cond`, `while_loop`, `scan`... kernels.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

from lamina.ops.composites._base import Tensor, backend, const, dtype_of
from lamina.ops.composites.numpy import clip, zeros

Flat = tuple[Tensor, ...]
_slice = builtins.slice  # `slice` below is the op


def cond(pred: Tensor, true_fn: Callable[[], Flat], false_fn: Callable[[], Flat]) -> Flat:
    """Run `true_fn` when the scalar bool `pred` is true, else `false_fn`."""
    return true_fn() if bool(pred) else false_fn()


def switch(index: Tensor, branches: Sequence[Callable[[], Flat]]) -> Flat:
    """Run ``branches[index]`` with `index` clamped into range."""
    return branches[min(max(int(index), 0), len(branches) - 1)]()


def while_loop(
    cond: Callable[..., Tensor],
    body: Callable[..., Flat],
    loop_vars: Flat,
    maximum_iterations: int | None,
) -> Flat:
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``."""
    step = 0
    while (maximum_iterations is None or step < maximum_iterations) and bool(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
        step += 1
    return loop_vars


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable[[Any, Flat], Flat], init_val: Flat
) -> Flat:
    """``val = body_fun(i, val)`` for the Python ints i in ``range(lower, upper)``."""
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def scan(
    f: Callable[[Flat, Flat], tuple[Flat, Flat]],
    init: Flat,
    xs: Flat,
    length: int | None,
    reverse: bool,
    unroll: int | bool,
) -> tuple[Flat, Flat]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of `xs`; stack the ys."""
    b = backend()
    n = int(length) if length is not None else int(b.core.shape(xs[0])[0])
    carry = init
    ys: list[Flat] = [()] * n
    for i in range(n - 1, -1, -1) if reverse else range(n):
        carry, ys[i] = f(carry, tuple(x[i, ...] for x in xs))
    if n == 0:
        # Nothing ran, so learn the shape of one y from a step on zeros.
        blank = tuple(zeros(tuple(b.core.shape(x)[1:]), dtype_of(x)) for x in xs)
        _, y0 = f(carry, blank)
        y0 = tuple(b.core.convert_to_tensor(y) for y in y0)
        return carry, tuple(zeros((0, *b.core.shape(y)), dtype_of(y)) for y in y0)
    return carry, tuple(b.numpy.stack(list(parts), 0) for parts in zip(*ys, strict=True))


def associative_scan(
    f: Callable[[Flat, Flat], Flat], elems: Flat, reverse: bool, axis: int
) -> Flat:
    """Inclusive prefix scan of `elems` along `axis`: Hillis-Steele doubling, log2(n) calls."""
    b = backend()
    n_ = b.numpy
    if reverse:
        elems = tuple(n_.flip(e, (axis,)) for e in elems)
    n = b.core.shape(elems[0])[axis]
    if not isinstance(n, int):
        raise ValueError(
            "`associative_scan`: this backend needs a static size along `axis`. "
            f"Received shape {b.core.shape(elems[0])}"
        )

    def part(x: Tensor, start: int, stop: int | None) -> Tensor:
        return x[(_slice(None),) * axis + (_slice(start, stop), Ellipsis)]

    offset = 1
    while offset < n:
        combined = f(
            tuple(part(e, 0, n - offset) for e in elems),
            tuple(part(e, offset, None) for e in elems),
        )
        elems = tuple(
            n_.concatenate([part(e, 0, offset), b.core.cast(c, dtype_of(e))], axis)
            for e, c in zip(elems, combined, strict=True)
        )
        offset *= 2
    if reverse:
        elems = tuple(n_.flip(e, (axis,)) for e in elems)
    return elems


def vectorized_map(function: Callable[..., Flat], elements: Flat) -> Flat:
    """``function(*slices)`` for each slice along the leading axis, results stacked."""
    b = backend()
    count = int(b.core.shape(elements[0])[0])
    outs = [function(*(e[i, ...] for e in elements)) for i in range(count)]
    return tuple(b.numpy.stack(list(parts), 0) for parts in zip(*outs, strict=True))


def slice(inputs: Tensor, start_indices: Flat, shape: tuple[int, ...]) -> Tensor:
    """A `shape`-sized block at the concrete `start_indices`, clamped to fit."""
    from lamina.backend.kit import clamped_block

    return inputs[clamped_block(start_indices, shape, tuple(backend().core.shape(inputs)))]


def unstack(x: Tensor, num: int, axis: int) -> list[Tensor]:
    """The `num` slices of `x` along the non-negative `axis`."""
    return [x[(_slice(None),) * axis + (i, Ellipsis)] for i in range(num)]


def saturate_cast(x: Tensor, dtype: str, min_value: Any, max_value: Any) -> Tensor:
    """`x` clipped to ``[min_value, max_value]`` (in its own dtype), then cast."""
    b = backend()
    return b.core.cast(clip(x, const(x, min_value), const(x, max_value)), dtype)
