"""jax: control flow on jax.lax primitives, so it traces under jax.jit.

`cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `associative_scan` and
`vectorized_map` replace the core's eager composites (Python loops, which would unroll or
fail on tracers) with their `lax` kernels; `fori_loop` keeps reverse-mode gradients through
`lax.fori_loop`'s scan lowering.
"""

from __future__ import annotations

import collections
import functools
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
associative_scan = lax.associative_scan

_PROGRAMS: collections.OrderedDict[str, Callable[..., Any]] = collections.OrderedDict()
_MAX_PROGRAMS = 256


def _compiled_once(run: Callable[..., Any], *args: Any) -> Any:
    """`run(*args)`, a `lax` loop whose body closes over arrays, compiled once per program.

    Called eagerly, `lax` traces the body anew on each call into a new program, which XLA
    compiled anew (every eager call of a recurrent layer paid a scan compile). Here the
    program's text (its input types included) keys a cache of compiled programs, and the
    arrays the body closes over are passed in as arguments. Under a transformation (a
    tracer among the arguments or the closed-over values), or when the program holds a
    Python object the text names only by address (a callback), `run` is called as it is.
    """
    leaves = jax.tree_util.tree_leaves(args)
    if any(isinstance(a, jax.core.Tracer) for a in leaves):
        return run(*args)
    closed, out_shape = jax.make_jaxpr(run, return_shape=True)(*args)
    consts = list(closed.consts)
    if any(isinstance(c, jax.core.Tracer) for c in consts):
        return run(*args)
    key = str(closed.jaxpr)
    if " at 0x" in key:
        return run(*args)
    program = _PROGRAMS.get(key)
    if program is None:
        program = _PROGRAMS[key] = jax.jit(functools.partial(jax.core.eval_jaxpr, closed.jaxpr))
        if len(_PROGRAMS) > _MAX_PROGRAMS:
            _PROGRAMS.popitem(last=False)
    else:
        _PROGRAMS.move_to_end(key)
    out = program(consts, *leaves)
    return jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(out_shape), out)


def scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any,
    length: int | None,
    reverse: bool,
    unroll: int | bool,
) -> Any:
    # An empty `xs` (the core's ``()``) scans over `length` steps, as None does.
    def run(init: Any, xs: Any) -> Any:
        return lax.scan(f, init, xs, length, reverse, unroll)

    return _compiled_once(run, init, xs)


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
