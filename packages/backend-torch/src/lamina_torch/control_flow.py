"""torch: control flow as Python loops (eager), torch.vmap, and autograd.Function."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import torch

from lamina.backend.kit import DType, Tensor
from lamina_torch.core import to_torch_dtype

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
    n = int(length) if length is not None else xs[0].shape[0]
    carry = init
    ys: list[Flat] = [()] * n
    for i in range(n - 1, -1, -1) if reverse else range(n):
        carry, ys[i] = f(carry, tuple(x[i] for x in xs))
    if n == 0:
        # Nothing ran, so learn the shape of one y from a step on zeros.
        _, y0 = f(carry, tuple(torch.zeros(x.shape[1:], dtype=x.dtype) for x in xs))
        return carry, tuple(torch.empty((0, *y.shape), dtype=y.dtype) for y in y0)
    return carry, tuple(torch.stack(parts) for parts in zip(*ys))


def associative_scan(
    f: Callable[[Flat, Flat], Flat], elems: Flat, reverse: bool, axis: int
) -> Flat:
    if reverse:
        elems = tuple(torch.flip(e, (axis,)) for e in elems)
    n = elems[0].shape[axis]
    # Hillis-Steele doubling: log2(n) calls of `f` on whole blocks.
    offset = 1
    while offset < n:
        combined = f(
            tuple(e.narrow(axis, 0, n - offset) for e in elems),
            tuple(e.narrow(axis, offset, n - offset) for e in elems),
        )
        elems = tuple(
            torch.cat([e.narrow(axis, 0, offset), c], axis) for e, c in zip(elems, combined)
        )
        offset *= 2
    if reverse:
        elems = tuple(torch.flip(e, (axis,)) for e in elems)
    return elems


def vectorized_map(function: Callable[..., Flat], elements: Flat) -> Flat:
    out: Flat = torch.vmap(function)(*elements)
    return out


def stop_gradient(x: Tensor) -> Tensor:
    return x.detach()


class _CustomGradient(torch.autograd.Function):
    """Runs `f` forward and its returned `grad_fn` backward."""

    @staticmethod
    def forward(ctx: Any, f: Callable[..., Any], *args: Any) -> Any:
        outputs, grad_fn = f(*args)
        ctx.grad_fn = grad_fn
        return outputs

    @staticmethod
    def backward(ctx: Any, *upstream: Any) -> Any:
        grads = ctx.grad_fn(*upstream)
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        return (None, *grads)


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        # autograd.Function.apply takes positional arguments only: bind the keywords.
        return _CustomGradient.apply(lambda *a: f(*a, **kwargs), *args)

    return wrapped


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
    out = inputs.clone()
    out[_clamped(inputs, start_indices, updates.shape)] = updates
    return out


def _index(indices: Tensor) -> tuple[Tensor, ...]:
    # torch indexes with int64 (or int32) tensors only; unsigned ints are rejected.
    return tuple(torch.movedim(indices.to(torch.int64), -1, 0))


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    out = torch.zeros(shape, dtype=values.dtype, device=values.device)
    return out.index_put(_index(indices), values, accumulate=True)


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    return inputs.index_put(_index(indices), updates)


def unstack(x: Tensor, num: int, axis: int) -> list[Tensor]:
    return list(torch.unbind(x, axis))


def saturate_cast(x: Tensor, dtype: DType, min_value: Any, max_value: Any) -> Tensor:
    return torch.clamp(x, min_value, max_value).to(to_torch_dtype(dtype))
