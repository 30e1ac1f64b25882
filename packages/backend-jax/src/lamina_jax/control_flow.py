"""jax: control flow on jax.lax primitives, so it traces under jax.jit.

`cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `associative_scan` and
`vectorized_map` replace the core's eager composites (Python loops, which would unroll or
fail on tracers) with their `lax` kernels; `fori_loop` keeps reverse-mode gradients through
`lax.fori_loop`'s scan lowering.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from lamina.backend.kit import Tensor

Flat = tuple[Tensor, ...]


# The core calls these with positional arguments in `lax`'s own order: `lax` binds them.
cond = lax.cond
fori_loop = lax.fori_loop
scan = lax.scan  # an empty `xs` (the core's ``()``) scans over `length` steps, as None does
associative_scan = lax.associative_scan


def switch(index: Tensor, branches: Sequence[Callable[[], Flat]]) -> Flat:
    # lax.switch clamps `index` into range, as the core promises.
    out: Flat = lax.switch(index, list(branches))
    return out


def while_loop(
    cond: Callable[..., Tensor],
    body: Callable[..., Flat],
    loop_vars: Flat,
    maximum_iterations: int | None,
) -> Flat:
    if maximum_iterations is None:
        out: Flat = lax.while_loop(lambda v: cond(*v), lambda v: body(*v), loop_vars)
        return out
    # lax.while_loop has no iteration cap: carry a counter alongside the variables.
    _, out = lax.while_loop(
        lambda s: jnp.logical_and(s[0] < maximum_iterations, cond(*s[1])),
        lambda s: (s[0] + 1, body(*s[1])),
        (jnp.asarray(0, jnp.int32), loop_vars),
    )
    return out


def vectorized_map(function: Callable[..., Flat], elements: Flat) -> Flat:
    out: Flat = jax.vmap(function)(*elements)
    return out


def stop_gradient(x: Tensor) -> Tensor:
    return lax.stop_gradient(x)


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    def forward(*args: Any, **kwargs: Any) -> Any:
        outputs, grad_fn = f(*args, **kwargs)

        def backward(*upstream: Any) -> Any:
            grads = grad_fn(*upstream)
            # jax wants one cotangent per positional argument, as a tuple.
            return tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)

        return outputs, backward

    return jax.custom_gradient(forward)


def slice(inputs: Tensor, start_indices: Flat, shape: tuple[int, ...]) -> Tensor:
    return lax.dynamic_slice(inputs, start_indices, shape)


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    return lax.dynamic_update_slice(inputs, updates, start_indices)


def _index(indices: Tensor) -> tuple[Tensor, ...]:
    return tuple(jnp.moveaxis(indices, -1, 0))


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    return jnp.zeros(shape, values.dtype).at[_index(indices)].add(values)


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    return inputs.at[_index(indices)].set(updates)
