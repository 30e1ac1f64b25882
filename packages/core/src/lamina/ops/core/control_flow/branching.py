"""Choosing between functions on a tensor's value: cond and switch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lamina.ops import dtypes
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.core.control_flow._flat import Flattened, check_callable, merge_specs, specs
from lamina.ops.dispatch import backend, to_tensor
from lamina.ops.shapes import static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["cond", "switch"]


def _scalar(op: str, arg: str, x: Any, dtype: str) -> Any:
    """`x` as a rank-0 tensor of `dtype`; a tensor with one element is accepted."""
    shape = static_shape(x)
    if any(d is not None and d != 1 for d in shape):
        raise ValueError(
            f"`{op}`: argument `{arg}` must be a scalar (one element). "
            f"Received: {arg}.shape={shape}"
        )
    if isinstance(x, SymbolicTensor):
        return x
    x = to_tensor(x)
    if dtypes.dtype_of(x) != dtype:
        x = backend().core.cast(x, dtype)
    if shape:
        x = backend().numpy.reshape(x, ())
    return x


class Cond(Op):
    def __init__(
        self,
        true_fn: Callable[[], Any],
        false_fn: Callable[[], Any],
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "true_fn", true_fn)
        check_callable(self.op_name, "false_fn", false_fn)
        self.true_fn = true_fn
        self.false_fn = false_fn

    def compute_output_spec(self, pred: Any) -> Any:
        _scalar(self.op_name, "pred", pred, "bool")
        return merge_specs(
            self.op_name,
            "`true_fn` and `false_fn` outputs",
            specs(self.true_fn()),
            specs(self.false_fn()),
        )

    def call(self, pred: Any) -> Any:
        if isinstance(pred, (bool, np.bool_)):
            return self.true_fn() if pred else self.false_fn()
        pred = _scalar(self.op_name, "pred", pred, "bool")
        true_fn, false_fn = Flattened(self.true_fn), Flattened(self.false_fn)
        flat = composite("control_flow", "cond")(pred, true_fn, false_fn)
        return (true_fn if true_fn.called else false_fn).pack(flat)


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """Return ``true_fn()`` if `pred` is true, else ``false_fn()``.

    On JAX and TensorFlow both branches are traced, so they must return the same
    structure, dtypes and shapes.

    Args:
        pred: a scalar boolean (a tensor or a Python bool).
        true_fn: a function of no arguments.
        false_fn: a function of no arguments returning the same kind of output.

    Returns:
        The output of the branch taken.

    Example:
        >>> x = np.float32(-2.0)
        >>> lamina.ops.cond(x > 0, lambda: x, lambda: -x)  # 2.0
    """
    return Cond(true_fn, false_fn)(pred)


class Switch(Op):
    def __init__(self, branches: Sequence[Callable[..., Any]], name: str | None = None) -> None:
        super().__init__(name=name)
        if not isinstance(branches, (list, tuple)) or not branches:
            raise ValueError(
                "`switch`: argument `branches` must be a non-empty list of functions. "
                f"Received: branches={branches!r}"
            )
        for i, fn in enumerate(branches):
            check_callable(self.op_name, f"branches[{i}]", fn)
        self.branches = list(branches)

    def compute_output_spec(self, index: Any, *operands: Any) -> Any:
        _check_index(index)
        _scalar(self.op_name, "index", index, "int32")
        operand_specs = specs(operands)
        outs = [specs(fn(*operand_specs)) for fn in self.branches]
        merged = outs[0]
        for out in outs[1:]:
            merged = merge_specs(self.op_name, "all `branches` outputs", merged, out)
        return merged

    def call(self, index: Any, *operands: Any) -> Any:
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            i = min(max(int(index), 0), len(self.branches) - 1)
            return self.branches[i](*operands)
        _check_index(index)
        index = _scalar(self.op_name, "index", index, "int32")
        fns = [Flattened(fn) for fn in self.branches]

        def bind(fn: Flattened) -> Callable[[], tuple[Any, ...]]:
            return lambda: fn(*operands)

        flat = composite("control_flow", "switch")(index, [bind(fn) for fn in fns])
        called = next(fn for fn in fns if fn.called)
        return called.pack(flat)


def _check_index(index: Any) -> None:
    if dtypes.dtype_of(index) not in dtypes.INTS:
        raise TypeError(
            "`switch`: argument `index` must be an integer. "
            f"Received: index.dtype={dtypes.dtype_of(index)}"
        )


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """Apply ``branches[index]`` to `operands`; `index` is clamped to the valid range.

    Args:
        index: a scalar integer (tensor or Python int).
        branches: functions taking `operands` and returning the same kind of output.
        *operands: the inputs passed to the chosen branch.

    Example:
        >>> x = np.float32(5.0)
        >>> lamina.ops.switch(1, [lambda x: x + 1, lambda x: x - 1], x)  # 4.0
    """
    return Switch(branches)(index, *operands)
