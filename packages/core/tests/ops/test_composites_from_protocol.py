"""Ops that left the backend protocol for core composites (`size`, `ldexp`).

The core composite runs here even where the backend keeps a native kernel (TensorFlow's
`size`), so every backend checks the one formula.
"""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops
from lamina.ops import composites
from lamina.ops.dispatch import backend


@pytest.mark.parametrize("shape", [(2, 3, 4), (5,), (0, 3)])
def test_size_composite_counts_elements_as_int32(shape):
    out = composites.fallback("numpy", "size")(ops.zeros(shape))
    assert ops.dtype(out) == "int32"
    assert int(ops.convert_to_numpy(out)) == int(np.prod(shape))


def test_ldexp_composite_matches_numpy():
    dtype = "float32"
    x1 = np.array([0.5, -1.5, 3.0, 0.0], dtype)
    x2 = np.array([3, -2, 0, 7], "int32")
    out = composites.fallback("numpy", "ldexp")(
        ops.convert_to_tensor(x1), ops.convert_to_tensor(x2)
    )
    assert ops.dtype(out) == dtype
    # Scaling by a power of two is exact: no tolerance.
    np.testing.assert_array_equal(ops.convert_to_numpy(out), np.ldexp(x1, x2))


def test_unique_composite_pads_along_the_axis_with_fill_and_zero_counts():
    # `unique` is a composite on the `sorted_unique` primitive: the core cuts and pads.
    x = np.array([[3, 1, 3], [0, 2, 0]], "int32")
    v, c = ops.unique(x, axis=1, return_counts=True, size=4, fill_value=-1)
    np.testing.assert_array_equal(ops.convert_to_numpy(v), [[1, 3, -1, -1], [2, 0, -1, -1]])
    np.testing.assert_array_equal(ops.convert_to_numpy(c), [1, 2, 0, 0])


def test_unique_with_size_under_jax_jit():
    if backend().name != "jax":
        pytest.skip("jax.jit: shapes must be static, so `size` reaches the backend's kernel")
    import jax

    f = jax.jit(lambda x: ops.unique(x, return_counts=True, size=5, fill_value=-1))
    v, c = f(np.array([4, 2, 4, 7], "int32"))
    np.testing.assert_array_equal(np.asarray(v), [2, 4, 7, -1, -1])
    np.testing.assert_array_equal(np.asarray(c), [1, 2, 1, 0, 0])
