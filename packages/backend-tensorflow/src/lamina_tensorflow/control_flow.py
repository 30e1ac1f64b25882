"""tensorflow: control flow on tf.cond / tf.while_loop, so it builds graphs in tf.function.

`cond`, `switch`, `while_loop`, `fori_loop`, `scan` and `vectorized_map` replace the
core's eager composites (Python loops, which cannot branch on a symbolic tensor) with graph
kernels; `associative_scan` is the core's, whose doubling loop runs at trace time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorflow as tf

from lamina.backend.kit import Tensor

Flat = tuple[Tensor, ...]


def cond(pred: Tensor, true_fn: Callable[[], Flat], false_fn: Callable[[], Flat]) -> Flat:
    return tuple(tf.cond(pred, true_fn, false_fn))


def switch(index: Tensor, branches: Sequence[Callable[[], Flat]]) -> Flat:
    # tf.switch_case runs the last branch for any out-of-range index; clamp as jax does.
    index = tf.clip_by_value(index, 0, len(branches) - 1)
    return tuple(tf.switch_case(index, list(branches)))


_Cond = Callable[..., Tensor]
_Body = Callable[..., Flat]


def while_loop(cond: _Cond, body: _Body, loop_vars: Flat, maximum_iterations: int | None) -> Flat:
    return tuple(tf.while_loop(cond, body, loop_vars, maximum_iterations=maximum_iterations))


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable[[Any, Flat], Flat], init_val: Flat
) -> Flat:
    upper = tf.cast(upper, tf.int32)
    _, val = tf.while_loop(
        lambda i, v: i < upper,
        lambda i, v: (i + 1, body_fun(i, v)),
        (tf.cast(lower, tf.int32), init_val),
    )
    return tuple(val)


def _y_signature(
    f: Callable[[Flat, Flat], tuple[Flat, Flat]], init: Flat, xs: Flat
) -> list[tf.TensorSpec]:
    """The ys' specs, found by tracing (not running) one step."""
    traced = tf.function(lambda c, x: f(c, x)[1], autograph=False).get_concrete_function(
        tuple(tf.TensorSpec(c.shape, c.dtype) for c in init),
        tuple(tf.TensorSpec(x.shape[1:], x.dtype) for x in xs),
    )
    return list(tf.nest.flatten(traced.structured_outputs))


def scan(
    f: Callable[[Flat, Flat], tuple[Flat, Flat]],
    init: Flat,
    xs: Flat,
    length: int | None,
    reverse: bool,
    unroll: int | bool,
) -> tuple[Flat, Flat]:
    n: Any = length if length is not None else xs[0].shape[0]
    if n is None:
        n = tf.shape(xs[0])[0]
    if isinstance(n, int) and n == 0:
        specs = _y_signature(f, init, xs)
        return init, tuple(tf.zeros((0, *s.shape), s.dtype) for s in specs)

    def index(i: Any) -> Any:
        return n - 1 - i if reverse else i

    # TensorArrays need the ys' dtypes up front: run the first step outside the loop.
    carry, y0 = f(init, tuple(tf.gather(x, index(0)) for x in xs))
    arrays = tuple(
        tf.TensorArray(y.dtype, size=n, element_shape=y.shape).write(index(0), y) for y in y0
    )

    def body(i: Any, carry: Flat, arrays: Flat) -> tuple[Any, Flat, Flat]:
        carry, ys = f(carry, tuple(tf.gather(x, index(i)) for x in xs))
        return i + 1, carry, tuple(a.write(index(i), y) for a, y in zip(arrays, ys))

    _, carry, arrays = tf.while_loop(lambda i, c, a: i < n, body, (tf.constant(1), carry, arrays))
    return tuple(carry), tuple(a.stack() for a in arrays)


def vectorized_map(function: Callable[..., Flat], elements: Flat) -> Flat:
    return tuple(tf.vectorized_map(lambda e: function(*e), elements))


def stop_gradient(x: Tensor) -> Tensor:
    return tf.stop_gradient(x)


def custom_gradient(f: Callable[..., Any]) -> Callable[..., Any]:
    @tf.custom_gradient
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        outputs, grad_fn = f(*args, **kwargs)

        def grad(*upstream: Any) -> Any:
            return grad_fn(*upstream)

        return outputs, grad

    return wrapped


def _begin(inputs: Tensor, start_indices: Flat, shape: Sequence[Any]) -> list[Any]:
    """Tensor starts wrapped and clamped as jax does (Python ints arrive already clamped)."""
    dims = tf.shape(inputs)
    out: list[Any] = []
    for i, (s, size) in enumerate(zip(start_indices, shape)):
        if isinstance(s, int):
            out.append(s)
        else:
            s = tf.cast(s, tf.int32)
            s = tf.where(s < 0, s + dims[i], s)
            out.append(tf.clip_by_value(s, 0, dims[i] - size))
    return out


def slice(inputs: Tensor, start_indices: Flat, shape: tuple[int, ...]) -> Tensor:
    return tf.slice(inputs, tf.stack(_begin(inputs, start_indices, shape)), shape)


def slice_update(inputs: Tensor, start_indices: Flat, updates: Tensor) -> Tensor:
    if inputs.shape.rank == 0:
        return updates
    sizes = tf.shape(updates)
    begin = _begin(inputs, start_indices, [sizes[i] for i in range(inputs.shape.rank)])
    grids = tf.meshgrid(*(tf.range(sizes[i]) + b for i, b in enumerate(begin)), indexing="ij")
    return tf.tensor_scatter_nd_update(inputs, tf.stack(grids, axis=-1), updates)


def _indices(indices: Tensor) -> Tensor:
    # tf scatter kernels take int32 or int64 indices only.
    return indices if indices.dtype in (tf.int32, tf.int64) else tf.cast(indices, tf.int64)


def scatter(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    return tf.scatter_nd(_indices(indices), values, shape)


def scatter_update(inputs: Tensor, indices: Tensor, updates: Tensor) -> Tensor:
    return tf.tensor_scatter_nd_update(inputs, _indices(indices), updates)
