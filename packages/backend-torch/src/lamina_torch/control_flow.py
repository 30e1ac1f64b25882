"""torch: control flow as Python loops (eager), torch.vmap, and autograd.Function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from lamina.backend.kit import Tensor, clamped_block

Flat = tuple[Tensor, ...]


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


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    out = inputs.clone()
    out[clamped_block(start_indices, tuple(updates.shape), tuple(inputs.shape))] = updates
    return out


def _index(indices: Tensor) -> tuple[Tensor, ...]:
    # torch indexes with int64 (or int32) tensors only; unsigned ints are rejected.
    return tuple(torch.movedim(indices.to(torch.int64), -1, 0))


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    out = torch.zeros(shape, dtype=values.dtype, device=values.device)
    return out.index_put(_index(indices), values, accumulate=True)


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    return inputs.index_put(_index(indices), updates)
