"""numpy: control flow as plain Python loops, structural updates on copies."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lamina.backend.kit import DType, Tensor, to_numpy_dtype

__all__ = [
    "associative_scan",
    "cond",
    "custom_gradient",
    "fori_loop",
    "saturate_cast",
    "scan",
    "scatter",
    "scatter_update",
    "slice",
    "slice_update",
    "stop_gradient",
    "switch",
    "unstack",
    "vectorized_map",
    "while_loop",
]

Flat = tuple[Tensor, ...]
_slice = builtins.slice  # `slice` below is the op


def cond(pred: Tensor, true_fn: Callable[[], Flat], false_fn: Callable[[], Flat]) -> Flat:
    return true_fn() if bool(pred) else false_fn()


def switch(index: Tensor, branches: Sequence[Callable[[], Flat]]) -> Flat:
    i = min(max(int(index), 0), len(branches) - 1)
    return branches[i]()


def while_loop(
    cond: Callable[..., Tensor],
    body: Callable[..., Flat],
    loop_vars: Flat,
    maximum_iterations: int | None,
) -> Flat:
    step = 0
    while (maximum_iterations is None or step < maximum_iterations) and bool(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
        step += 1
    return loop_vars


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable[[Any, Flat], Flat], init_val: Flat
) -> Flat:
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
    n = int(length) if length is not None else len(xs[0])
    carry = init
    ys: list[Flat] = [()] * n
    for i in range(n - 1, -1, -1) if reverse else range(n):
        carry, ys[i] = f(carry, tuple(x[i] for x in xs))
    if n == 0:
        # Nothing ran, so learn the shape of one y from a step on zeros.
        zeros = tuple(np.zeros(x.shape[1:], x.dtype) for x in xs)
        _, y0 = f(carry, zeros)
        return carry, tuple(np.zeros((0, *np.shape(y)), np.asarray(y).dtype) for y in y0)
    return carry, tuple(np.stack(parts) for parts in zip(*ys))


def associative_scan(
    f: Callable[[Flat, Flat], Flat], elems: Flat, reverse: bool, axis: int
) -> Flat:
    if reverse:
        elems = tuple(np.flip(e, axis) for e in elems)
    n = elems[0].shape[axis]

    def part(x: Tensor, start: int, stop: int | None) -> Tensor:
        index = [_slice(None)] * x.ndim
        index[axis] = _slice(start, stop)
        return x[tuple(index)]

    # Hillis-Steele doubling: log2(n) calls of `f` on whole blocks.
    offset = 1
    while offset < n:
        combined = f(
            tuple(part(e, 0, n - offset) for e in elems),
            tuple(part(e, offset, None) for e in elems),
        )
        elems = tuple(
            np.concatenate([part(e, 0, offset), np.asarray(c, e.dtype)], axis)
            for e, c in zip(elems, combined)
        )
        offset *= 2
    if reverse:
        elems = tuple(np.flip(e, axis) for e in elems)
    return elems


def vectorized_map(function: Callable[..., Flat], elements: Flat) -> Flat:
    n = len(elements[0])
    outs = [function(*(e[i] for e in elements)) for i in range(n)]
    return tuple(np.stack(parts) for parts in zip(*outs))


def stop_gradient(x: Tensor) -> Tensor:
    return x


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    def forward(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)[0]

    return forward


def _clamped(inputs: Tensor, start_indices: Flat, shape: Sequence[int]) -> tuple[Any, ...]:
    """Starts wrapped (negative from the end) and clamped so the block fits, as jax does."""
    out = []
    for s, n, d in zip(start_indices, shape, inputs.shape):
        start = int(s)
        start = min(max(start + d if start < 0 else start, 0), d - n)
        out.append(_slice(start, start + n))
    return tuple(out)


def slice(inputs: Tensor, start_indices: Flat, shape: tuple[int, ...]) -> Tensor:
    return inputs[_clamped(inputs, start_indices, shape)]


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    out = np.array(inputs, copy=True)
    out[_clamped(inputs, start_indices, updates.shape)] = updates
    return out


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    out = np.zeros(shape, values.dtype)
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), values)
    return out


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    out = np.array(inputs, copy=True)
    out[tuple(np.moveaxis(indices, -1, 0))] = updates
    return out


def unstack(x: Tensor, num: int, axis: int) -> list[Tensor]:
    return list(np.moveaxis(x, axis, 0))


def saturate_cast(x: Tensor, dtype: DType, min_value: Any, max_value: Any) -> Tensor:
    return np.clip(x, min_value, max_value).astype(to_numpy_dtype(dtype))
