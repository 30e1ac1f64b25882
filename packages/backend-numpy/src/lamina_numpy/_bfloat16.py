"""Products of bfloat16 arrays, computed in float32 and rounded back.

ml_dtypes' bfloat16 has no `np.einsum` loop ("invalid data type for einsum") and its
`np.matmul` returns float32. Other backends multiply bfloat16 with float32 accumulation and
return bfloat16; doing the same here keeps results and dtypes alike across backends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lamina.backend.kit import to_numpy_dtype

BFLOAT16 = np.dtype(to_numpy_dtype("bfloat16"))


def via_float32(fn: Callable[..., Any], *arrays: np.ndarray) -> np.ndarray:
    """``fn(*arrays)``; when they promote to bfloat16, run on float32 copies and cast back."""
    if np.result_type(*arrays) != BFLOAT16:
        return np.asarray(fn(*arrays))
    wide = [np.asarray(a).astype(np.float32) for a in arrays]
    return np.asarray(fn(*wide)).astype(BFLOAT16)
