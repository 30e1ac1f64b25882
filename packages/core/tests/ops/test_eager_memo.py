"""The memo of eager checks: once per input signature, never for bad input, keyed right."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import eager_memo
from lamina.ops.base import Op, literal_key
from lamina.ops.numpy.elementwise._base import Binary
from lamina.ops.numpy.elementwise.arithmetic import Add
from lamina.ops.numpy.linear.products import Tensordot


@pytest.fixture(autouse=True)
def _empty_memo():
    eager_memo._MEMO.clear()
    yield
    eager_memo._MEMO.clear()


@pytest.fixture
def check_count(monkeypatch):
    """How many times `Binary`'s shape and dtype check has run."""
    calls = [0]
    original = Binary._checked_dtypes

    def counting(self: Any, x1: Any, x2: Any) -> tuple[str, str]:
        calls[0] += 1
        return original(self, x1, x2)

    monkeypatch.setattr(Binary, "_checked_dtypes", counting)
    return calls


def test_checks_run_once_per_signature(check_count):
    a, b = ops.ones((2, 3)), ops.ones((3,))
    first = ops.add(a, b)
    again = ops.add(a, b)
    assert check_count[0] == 1
    np.testing.assert_array_equal(ops.convert_to_numpy(again), ops.convert_to_numpy(first))
    ops.add(a, ops.ones((2, 1)))  # another shape: checked again
    ops.add(a, ops.ones((3,), dtype="int32"))  # another dtype: checked again
    assert check_count[0] == 3
    assert ops.dtype(ops.add(ops.ones((3,), dtype="int8"), 2)) == "int8"
    assert ops.dtype(ops.add(ops.ones((3,), dtype="int8"), 2.0)) == lamina.config.floatx()


def test_bad_input_is_refused_on_every_call(check_count):
    a, b = ops.ones((2, 3)), ops.ones((4,))
    for _ in range(2):
        with pytest.raises(ValueError, match="add"):
            ops.add(a, b)
    assert check_count[0] == 2
    assert not eager_memo._MEMO


@pytest.mark.half_precision
def test_floatx_is_part_of_the_signature():
    assert ops.dtype(ops.add(1.0, 2.0)) == "float32"
    lamina.config.set_floatx("float16")  # float64 needs x64 on JAX
    try:
        assert ops.dtype(ops.add(1.0, 2.0)) == "float16"
    finally:
        lamina.config.set_floatx("float32")


class _Scale(Op):
    """An op with a constructor argument, and a check that counts its runs."""

    runs = 0

    def __init__(self, factor: float, memoized: bool) -> None:
        super().__init__()
        self.factor = factor
        self.memoized = memoized

    def memo_params(self) -> tuple[Any, ...] | None:
        return (self.factor,) if self.memoized else None

    def call(self, x: Any) -> Any:
        def check() -> str:
            _Scale.runs += 1
            return "float32"

        dtype = eager_memo.memo(self, (x,), check)
        return ops.multiply(ops.cast(x, dtype), self.factor)


def test_ops_with_arguments_key_on_them_or_check_every_call():
    x = ops.ones((2,))
    _Scale.runs = 0
    for _ in range(3):
        _Scale(2.0, memoized=False)(x)
    assert _Scale.runs == 3
    _Scale.runs = 0
    for factor in (2.0, 2.0, 3.0):
        _Scale(factor, memoized=True)(x)
    assert _Scale.runs == 2


def test_ops_key_on_their_literal_arguments_with_their_types():
    assert Add().memo_params() == ()
    one = Tensordot(axes=1).memo_params()
    assert one is not None and one == Tensordot(axes=1).memo_params()
    assert one != Tensordot(axes=2).memo_params()
    assert literal_key((1,)) != literal_key((True,)) != literal_key((1.0,))
    assert literal_key(([1],)) != literal_key(((1,),))
    assert Tensordot(axes=[[1], [0]]).memo_params() is None  # nested: checked every call
    assert literal_key((np.int64(1),)) is None and literal_key(((1, 2.0),)) is None


class _Keeps(Op):
    """An op that does not keep its argument under the argument's name."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self._width = width


def test_an_op_that_does_not_keep_its_arguments_is_checked_every_call():
    assert _Keeps(3).memo_params() is None


@pytest.mark.parametrize(
    ("good", "bad"),
    [
        (lambda x: ops.sum(x, axis=1), lambda x: ops.sum(x, axis=(1, -1))),
        (lambda x: ops.softmax(x, axis=1), lambda x: ops.softmax(x, axis=2)),
        (lambda x: ops.moments(x, axes=1), lambda x: ops.moments(x, axes=(1, 1))),
        (
            lambda x: ops.layer_normalization(x, ops.ones((3,))),
            lambda x: ops.layer_normalization(x, ops.ones((4,))),
        ),
        (lambda x: ops.reshape(x, (3, 2)), lambda x: ops.reshape(ops.ones((2, 4)), (3, 2))),
        (lambda x: ops.transpose(x, (1, 0)), lambda x: ops.transpose(ops.ones((2, 3, 4)), (1, 0))),
        (lambda x: ops.squeeze(ops.expand_dims(x, 1), 1), lambda x: ops.squeeze(x, 1)),
        (
            lambda x: ops.concatenate([x, x], axis=1),
            lambda x: ops.concatenate([x, ops.ones((3, 3))], axis=1),
        ),
        (
            lambda x: ops.where(ops.greater(x, 0), x, 0.0),
            lambda x: ops.where(ops.ones((2, 4), "bool"), x, 0.0),
        ),
        (
            lambda x: ops.einsum("ij,jk->ik", x, ops.ones((3, 2))),
            lambda x: ops.einsum("ij,jk->ik", x, ops.ones((2, 2))),
        ),
    ],
)
def test_a_call_unlike_a_memoized_one_is_refused(good, bad):
    """Whatever a memoized call left behind, a call with another argument or input shape
    is checked again, every time."""
    x = ops.ones((2, 3))
    good(x)
    for _ in range(2):
        with pytest.raises((TypeError, ValueError)):
            bad(x)


def test_inputs_without_a_dtype_are_checked_every_call(check_count):
    ops.add([1.0, 2.0], [3.0, 4.0])
    ops.add([1.0, 2.0], [3.0, 4.0])
    assert check_count[0] == 2


def test_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(eager_memo, "_LIMIT", 3)
    for n in range(1, 8):
        ops.add(ops.ones((n,)), 1.0)
    assert 1 <= len(eager_memo._MEMO) <= 3


def test_convolutions_key_on_their_arguments():
    x, k = ops.ones((1, 8, 8, 3)), ops.ones((3, 3, 3, 4))
    assert tuple(ops.conv(x, k).shape) == (1, 6, 6, 4)
    assert tuple(ops.conv(x, k, strides=2).shape) == (1, 3, 3, 4)
    assert tuple(ops.conv(x, k, strides=[2, 1], padding="same").shape) == (1, 4, 8, 4)
    assert tuple(ops.conv_transpose(x, ops.ones((3, 3, 4, 3)), strides=2).shape) == (1, 17, 17, 4)
    out = ops.conv_transpose(x, ops.ones((3, 3, 4, 3)), strides=2, output_padding=1)
    assert tuple(out.shape) == (1, 18, 18, 4)
    with pytest.raises(ValueError, match="dilation_rate"):
        ops.conv(x, k, strides=2, dilation_rate=2)
