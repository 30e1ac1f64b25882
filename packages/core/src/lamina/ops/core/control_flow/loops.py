"""Loops over nested structures: while_loop, fori_loop, scan, map, associative_scan."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from lamina import tree
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.core.control_flow._flat import (
    check_callable,
    conform,
    merge_specs,
    same_structure,
    specs,
    tensors,
)
from lamina.ops.dtypes import INTS, dtype_of
from lamina.ops.shapes import canonical_axis, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["associative_scan", "fori_loop", "map", "scan", "while_loop"]


def _call_unpacked(fn: Callable[..., Any], values: Any, is_tuple: bool) -> Any:
    return fn(*values) if is_tuple else fn(values)


class WhileLoop(Op):
    def __init__(
        self,
        cond: Callable[..., Any],
        body: Callable[..., Any],
        maximum_iterations: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "cond", cond)
        check_callable(self.op_name, "body", body)
        if maximum_iterations is not None:
            try:
                maximum_iterations = operator.index(maximum_iterations)
            except TypeError:
                raise TypeError(
                    "`while_loop`: argument `maximum_iterations` must be an int or None. "
                    f"Received: maximum_iterations={maximum_iterations!r}"
                ) from None
            if maximum_iterations < 0:
                raise ValueError(
                    "`while_loop`: argument `maximum_iterations` must be >= 0. "
                    f"Received: maximum_iterations={maximum_iterations}"
                )
        self.cond = cond
        self.body = body
        self.maximum_iterations = maximum_iterations

    def compute_output_spec(self, loop_vars: Any) -> Any:
        is_tuple = isinstance(loop_vars, (list, tuple))
        inputs = specs(loop_vars)
        outputs = _call_unpacked(self.body, inputs, is_tuple)
        result = merge_specs(self.op_name, "`body` outputs and `loop_vars`", inputs, outputs)
        return tuple(result) if is_tuple else result

    def call(self, loop_vars: Any) -> Any:
        is_tuple = isinstance(loop_vars, (list, tuple))
        flat = tensors(loop_vars)

        def cond(*flat_vars: Any) -> Any:
            values = tree.pack_sequence_as(loop_vars, list(flat_vars))
            return _call_unpacked(self.cond, values, is_tuple)

        def body(*flat_vars: Any) -> tuple[Any, ...]:
            values = tree.pack_sequence_as(loop_vars, list(flat_vars))
            out = _call_unpacked(self.body, values, is_tuple)
            same_structure(self.op_name, "`body` outputs and `loop_vars`", loop_vars, out)
            return conform(self.op_name, "`body`", flat, out)

        result = composite("control_flow", "while_loop")(cond, body, flat, self.maximum_iterations)
        packed = tree.pack_sequence_as(loop_vars, list(result))
        return tuple(packed) if is_tuple else packed


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    maximum_iterations: int | None = None,
) -> Any:
    """Run ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` is true.

    Args:
        cond: returns a scalar boolean from the loop variables.
        body: returns new loop variables with the same structure, dtypes and shapes.
        loop_vars: a tensor or a (nested) tuple/list of tensors; a tuple or list is
            unpacked into the arguments of `cond` and `body`.
        maximum_iterations: stop after this many iterations even if `cond` holds.

    Returns:
        The final loop variables (a tuple when `loop_vars` is a tuple or list).

    Example:
        >>> lamina.ops.while_loop(lambda i: i < 10, lambda i: i + 1, 0)  # 10
    """
    return WhileLoop(cond, body, maximum_iterations)(loop_vars)


def _check_bound(op: str, arg: str, value: Any) -> None:
    if isinstance(value, bool) or dtype_of(value) not in INTS:
        raise TypeError(f"`{op}`: argument `{arg}` must be an integer. Received: {arg}={value!r}")


class ForiLoop(Op):
    def __init__(self, body_fun: Callable[[Any, Any], Any], name: str | None = None) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "body_fun", body_fun)
        self.body_fun = body_fun

    def compute_output_spec(self, lower: Any, upper: Any, init_val: Any) -> Any:
        _check_bound(self.op_name, "lower", lower)
        _check_bound(self.op_name, "upper", upper)
        inputs = specs(init_val)
        outputs = self.body_fun(SymbolicTensor((), "int32"), inputs)
        return merge_specs(self.op_name, "`body_fun` outputs and `init_val`", inputs, outputs)

    def call(self, lower: Any, upper: Any, init_val: Any) -> Any:
        _check_bound(self.op_name, "lower", lower)
        _check_bound(self.op_name, "upper", upper)
        flat = tensors(init_val)

        def body(i: Any, flat_val: tuple[Any, ...]) -> tuple[Any, ...]:
            out = self.body_fun(i, tree.pack_sequence_as(init_val, list(flat_val)))
            same_structure(self.op_name, "`body_fun` outputs and `init_val`", init_val, out)
            return conform(self.op_name, "`body_fun`", flat, out)

        result = composite("control_flow", "fori_loop")(lower, upper, body, flat)
        return tree.pack_sequence_as(init_val, list(result))


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any) -> Any:
    """Run ``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    Args:
        lower: the first index (int or scalar integer tensor).
        upper: one past the last index.
        body_fun: takes the index and the loop value; returns a value of the same kind.
        init_val: the initial value (a tensor or nested structure of tensors).

    Example:
        >>> lamina.ops.fori_loop(0, 5, lambda i, x: x + i, 0)  # 10
    """
    return ForiLoop(body_fun)(lower, upper, init_val)


def _leading_length(op: str, flat_xs: list[Any], length: Any, arg: str = "xs") -> int | None:
    """The common leading dim of `flat_xs`, checked against `length` (None if unknown)."""
    dims: set[int] = set()
    for x in flat_xs:
        shape = static_shape(x)
        if not shape:
            raise ValueError(
                f"`{op}`: every tensor in `{arg}` needs a leading axis to loop over. "
                f"Received a tensor of shape {shape}."
            )
        if shape[0] is not None:
            dims.add(shape[0])
    if len(dims) > 1:
        raise ValueError(
            f"`{op}`: every tensor in `{arg}` must have the same leading dim. "
            f"Received leading dims {sorted(dims)}."
        )
    n = dims.pop() if dims else None
    if length is not None and n is not None and n != length:
        raise ValueError(
            f"`{op}`: argument `length` does not match the leading dim of `{arg}`. "
            f"Received: length={length}, leading dim {n}."
        )
    return n if n is not None else length


def _unstacked_specs(structure: Any) -> Any:
    return tree.map_structure(lambda x: SymbolicTensor(static_shape(x)[1:], dtype_of(x)), structure)


def _stacked_specs(n: int | None, structure: Any) -> Any:
    return tree.map_structure(
        lambda y: SymbolicTensor((n, *static_shape(y)), dtype_of(y)), structure
    )


def _check_step_output(op: str, fn: str, out: Any) -> tuple[Any, Any]:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError(f"`{op}`: `{fn}` must return a pair `(carry, y)`. Received: {out!r}")
    return out[0], out[1]


class Scan(Op):
    def __init__(
        self,
        f: Callable[[Any, Any], Any],
        length: int | None = None,
        reverse: bool = False,
        unroll: int | bool = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "f", f)
        if length is not None:
            try:
                length = operator.index(length)
            except TypeError:
                raise TypeError(
                    f"`scan`: argument `length` must be an int or None. Received: length={length!r}"
                ) from None
            if length < 0:
                raise ValueError(f"`scan`: argument `length` must be >= 0. Received: {length}")
        if not isinstance(unroll, (bool, int)) or (not isinstance(unroll, bool) and unroll < 1):
            raise ValueError(
                "`scan`: argument `unroll` must be a positive int or a bool. "
                f"Received: unroll={unroll!r}"
            )
        self.f = f
        self.length = length
        self.reverse = bool(reverse)
        self.unroll = unroll

    def _length(self, xs: Any) -> int | None:
        if xs is None:
            if self.length is None:
                raise ValueError("`scan`: argument `length` is required when `xs` is None.")
            return self.length
        return _leading_length(self.op_name, tree.flatten(xs), self.length)

    def compute_output_spec(self, init: Any, xs: Any = None) -> Any:
        n = self._length(xs)
        carry_in = specs(init)
        x = None if xs is None else _unstacked_specs(xs)
        carry, y = _check_step_output(self.op_name, "f", self.f(carry_in, x))
        carry = merge_specs(self.op_name, "the carry returned by `f` and `init`", carry_in, carry)
        return carry, (None if y is None else _stacked_specs(n, specs(y)))

    def call(self, init: Any, xs: Any = None) -> Any:
        n = self._length(xs)
        flat_init = tensors(init)
        flat_xs = () if xs is None else tensors(xs)
        y_structure: list[Any] = []

        def step(carry: tuple[Any, ...], x: tuple[Any, ...]) -> tuple[Any, Any]:
            c = tree.pack_sequence_as(init, list(carry))
            value = None if xs is None else tree.pack_sequence_as(xs, list(x))
            new_carry, y = _check_step_output(self.op_name, "f", self.f(c, value))
            what = "the carry returned by `f` and `init`"
            same_structure(self.op_name, what, init, new_carry)
            y_structure[:] = [y]
            ys = () if y is None else tensors(y)
            return conform(self.op_name, "`f`", flat_init, new_carry), ys

        carry, ys = composite("control_flow", "scan")(
            step, flat_init, flat_xs, n, self.reverse, self.unroll
        )
        carry = tree.pack_sequence_as(init, list(carry))
        y = y_structure[0]
        return carry, (None if y is None else tree.pack_sequence_as(y, list(ys)))


def scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of `xs`, stacking the ys.

    Args:
        f: takes ``(carry, x)`` and returns ``(new_carry, y)``; `new_carry` keeps the
            structure, dtypes and shapes of `init`.
        init: the initial carry (a tensor or nested structure).
        xs: tensors (or a nested structure) to loop over; None to loop `length` times
            with ``x=None``.
        length: the number of steps; must match the leading dim of `xs` when both given.
        reverse: loop from the last element to the first (the ys keep `xs`' order).
        unroll: how many steps to unroll per loop iteration (a hint; JAX uses it).

    Returns:
        ``(final_carry, stacked_ys)``.

    Example:
        >>> lamina.ops.scan(lambda c, x: (c + x, c), 0.0, np.arange(4.0))  # (6.0, [0,0,1,3])
    """
    return Scan(f, length, reverse, unroll)(init, xs)


class Map(Op):
    def __init__(self, f: Callable[[Any], Any], name: str | None = None) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "f", f)
        self.f = f

    def compute_output_spec(self, xs: Any) -> Any:
        n = _leading_length(self.op_name, tree.flatten(xs), None)
        return _stacked_specs(n, specs(self.f(_unstacked_specs(xs))))

    def call(self, xs: Any) -> Any:
        n = _leading_length(self.op_name, tree.flatten(xs), None)
        y_structure: list[Any] = []

        def step(carry: tuple[Any, ...], x: tuple[Any, ...]) -> tuple[Any, Any]:
            y = self.f(tree.pack_sequence_as(xs, list(x)))
            y_structure[:] = [y]
            return (), tensors(y)

        _, ys = composite("control_flow", "scan")(step, (), tensors(xs), n, False, 1)
        return tree.pack_sequence_as(y_structure[0], list(ys))


def map(f: Callable[[Any], Any], xs: Any) -> Any:
    """Apply `f` to each slice of `xs` along its leading axis and stack the results.

    Example:
        >>> lamina.ops.map(lambda x: x + 1, np.arange(3.0))  # [1., 2., 3.]
    """
    return Map(f)(xs)


class AssociativeScan(Op):
    def __init__(
        self,
        f: Callable[[Any, Any], Any],
        reverse: bool = False,
        axis: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "f", f)
        self.f = f
        self.reverse = bool(reverse)
        self.axis = axis

    def _axis(self, flat: list[Any]) -> int:
        if not flat:
            raise ValueError("`associative_scan`: argument `elems` must contain a tensor.")
        shapes = [static_shape(x) for x in flat]
        axis = canonical_axis(self.op_name, self.axis, len(shapes[0]))
        dims = {s[axis] for s in shapes if len(s) > axis and s[axis] is not None}
        if len(dims) > 1 or any(len(s) <= axis for s in shapes):
            raise ValueError(
                "`associative_scan`: every tensor in `elems` must have the same size "
                f"along `axis`={self.axis}. Received shapes {shapes}."
            )
        return axis

    def compute_output_spec(self, elems: Any) -> Any:
        self._axis(tree.flatten(elems))
        inputs = specs(elems)
        out = self.f(inputs, inputs)
        return merge_specs(self.op_name, "`f` outputs and `elems`", inputs, out)

    def call(self, elems: Any) -> Any:
        flat = tensors(elems)
        axis = self._axis(list(flat))

        def combine(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
            out = self.f(
                tree.pack_sequence_as(elems, list(a)), tree.pack_sequence_as(elems, list(b))
            )
            same_structure(self.op_name, "`f` outputs and `elems`", elems, out)
            return conform(self.op_name, "`f`", a, out)

        result = composite("control_flow", "associative_scan")(combine, flat, self.reverse, axis)
        return tree.pack_sequence_as(elems, list(result))


def associative_scan(
    f: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0
) -> Any:
    """Inclusive prefix scan of `elems` along `axis` with the associative function `f`.

    `f(a, b)` combines two blocks of slices elementwise (it is called on whole blocks,
    not single slices) and must be associative.

    Args:
        f: the associative combining function over structures like `elems`.
        elems: a tensor or nested structure of tensors with the same size along `axis`.
        reverse: scan from the end (as `jax.lax.associative_scan`).
        axis: the axis to scan along.

    Example:
        >>> lamina.ops.associative_scan(lambda a, b: a + b, np.arange(4.0))  # [0,1,3,6]
    """
    return AssociativeScan(f, reverse, axis)(elems)
