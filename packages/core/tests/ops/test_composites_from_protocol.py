"""Ops that left the backend protocol for core composites (`size`, `ldexp`).

The core composite runs here even where the backend keeps a native kernel (TensorFlow's
`size`), so every backend checks the one formula.
"""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops
from lamina.ops import composites


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
