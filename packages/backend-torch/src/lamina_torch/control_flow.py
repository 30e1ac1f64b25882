"""torch: control flow as Python loops (eager), torch.vmap, and autograd.Function."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import torch

from lamina.backend.kit import Tensor

Flat = tuple[Tensor, ...]
_slice = builtins.slice  # `slice` below is the op


# Native: torch.vmap batches the function once (the composite loops per slice).
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
