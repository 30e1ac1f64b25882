"""Bases for element-wise ops whose compute dtype differs from the promoted input dtype.

`input_dtype` maps the promoted (or input) dtype to the dtype the backend computes in, and
raises TypeError for dtypes the op rejects; `output_dtype` maps that to the result dtype.
The eager result is cast to the symbolic dtype when a framework returns another one, so the
two paths always agree.
"""

from __future__ import annotations

from typing import Any

from lamina.ops import dtypes
from lamina.ops.base import ElementwiseBinary, ElementwiseUnary
from lamina.ops.dispatch import backend, native, promote, to_tensor
from lamina.ops.eager_memo import memo
from lamina.ops.shapes import broadcast_shapes, static_shape
from lamina.ops.symbolic import SymbolicTensor

FLOATS_AND_COMPLEXES = dtypes.FLOATS + dtypes.COMPLEXES
INTS_AND_BOOL = dtypes.INTS + dtypes.BOOL
REALS = dtypes.BOOL + dtypes.INTS + dtypes.FLOATS
NUMERIC = REALS + dtypes.COMPLEXES


def check_dtype(op: str, dtype: str, allowed: tuple[str, ...], what: str) -> None:
    """Raise TypeError unless `dtype` is in `allowed` (`what` describes them in words)."""
    if dtype not in allowed:
        raise TypeError(f"`{op}`: the inputs must have {what} dtypes. Received: dtype={dtype}")


def to_float(op: str, dtype: str, allow_complex: bool = True) -> str:
    """`dtype` if it is a float (or complex, when allowed), else the float it promotes to."""
    check_dtype(op, dtype, NUMERIC, "numeric")
    if dtype in dtypes.COMPLEXES:
        if not allow_complex:
            check_dtype(op, dtype, REALS, "real (bool, integer or float)")
        return dtype
    if dtype in dtypes.FLOATS:
        return dtype
    return dtypes.result_type(dtype, float)


def finish(out: Any, dtype: str) -> Any:
    """`out` cast to `dtype` if the framework returned another dtype."""
    if dtypes.standardize_dtype(out.dtype) != dtype:
        return backend().core.cast(out, dtype)
    return out


class Binary(ElementwiseBinary):
    """Two inputs, broadcast and promoted together, then converted to `input_dtype`."""

    def input_dtype(self, dtype: str) -> str:
        """The dtype the backend computes in, given the promoted dtype."""
        check_dtype(self.op_name, dtype, NUMERIC, "numeric")
        return dtype

    def dtypes_for(self, x1: Any, x2: Any) -> tuple[str, str]:
        """The compute and output dtypes for inputs `x1` and `x2`."""
        try:
            promoted = dtypes.result_type(dtypes.promotion_key(x1), dtypes.promotion_key(x2))
        except ValueError as e:
            raise TypeError(f"`{self.op_name}`: {e}") from None
        compute = self.input_dtype(promoted)
        return compute, self.output_dtype(compute)

    def compute_output_spec(self, x1: Any, x2: Any) -> SymbolicTensor:
        shape = broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        return SymbolicTensor(shape, self.dtypes_for(x1, x2)[1])

    def _checked_dtypes(self, x1: Any, x2: Any) -> tuple[str, str, bool]:
        """Check that the shapes broadcast; return the compute and output dtypes, and
        whether both inputs are already tensors of the compute dtype."""
        broadcast_shapes(self.op_name, static_shape(x1), static_shape(x2))
        compute, out = self.dtypes_for(x1, x2)
        return compute, out, native(compute, x1, x2)

    def call(self, x1: Any, x2: Any) -> Any:
        compute, out, ready = memo(self, (x1, x2), lambda: self._checked_dtypes(x1, x2))
        if not ready:
            x1, x2 = promote(self.op_name, x1, x2, dtype=compute)
        return finish(self.compute(x1, x2), out)


class Unary(ElementwiseUnary):
    """One input converted to `input_dtype`; the output has `output_dtype`."""

    def input_dtype(self, dtype: str) -> str:
        """The dtype the backend computes in, given the input dtype."""
        check_dtype(self.op_name, dtype, NUMERIC, "numeric")
        return dtype

    def compute_output_spec(self, x: Any) -> SymbolicTensor:
        dtype = self.input_dtype(dtypes.dtype_of(x))
        return SymbolicTensor(static_shape(x), self.output_dtype(dtype))

    def call(self, x: Any) -> Any:
        dtype, out, ready = memo(self, (x,), lambda: self._dtypes(x))
        return finish(self.compute(x if ready else to_tensor(x, dtype)), out)

    def _dtypes(self, x: Any) -> tuple[str, str, bool]:
        """The compute and output dtypes for input `x`, and whether `x` is already a
        tensor of the compute dtype."""
        dtype = self.input_dtype(dtypes.dtype_of(x))
        return dtype, self.output_dtype(dtype), native(dtype, x)


class FloatOp(Unary):
    """Ints and bools become floatx first; complex inputs pass when `allow_complex`."""

    allow_complex = True

    def input_dtype(self, dtype: str) -> str:
        return to_float(self.op_name, dtype, self.allow_complex)


class RealFloatOp(FloatOp):
    """A float op that NumPy defines for real inputs only."""

    allow_complex = False


class FloatBinary(Binary):
    """Two inputs promoted together, then to float (ints become floatx)."""

    allow_complex = False

    def input_dtype(self, dtype: str) -> str:
        return to_float(self.op_name, dtype, self.allow_complex)


class Predicate(Unary):
    """A bool-valued test of each element."""

    def output_dtype(self, dtype: str) -> str:
        return "bool"


class Comparison(Binary):
    """A bool-valued comparison of two promoted inputs."""

    def output_dtype(self, dtype: str) -> str:
        return "bool"
