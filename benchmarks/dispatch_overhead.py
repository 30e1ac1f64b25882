"""Per-op dispatch overhead: `lamina.ops.<op>` vs the raw backend call on small inputs.

Each backend runs in its own interpreter (one backend per process, as in the tests). Both
sides get native tensors already on the backend, so the ratio is Lamina's own cost: the
symbolic check, validation, dtype promotion and the protocol call.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from per_backend import run_per_backend

WORKER = r"""
import json, sys, timeit
import numpy as np
import lamina
from lamina import ops

name = lamina.config.backend()
rng = np.random.default_rng(0)
x = rng.normal(size=(8, 8)).astype("float32")
img = rng.normal(size=(1, 8, 8, 3)).astype("float32")
ker = rng.normal(size=(3, 3, 3, 4)).astype("float32")
t = lambda a: ops.convert_to_tensor(a)
X, IMG, KER = t(x), t(img), t(ker)

if name == "numpy":
    windows = np.lib.stride_tricks.sliding_window_view
    raw = {
        "add": lambda: np.add(X, X),
        "matmul": lambda: np.matmul(X, X),
        # The same valid 3x3 convolution: every window against the kernel.
        "conv": lambda: np.einsum("nhwcij,ijco->nhwo", windows(IMG, (3, 3), axis=(1, 2)), KER),
    }
elif name == "jax":
    import jax, jax.numpy as jnp
    conv = lambda: jax.lax.conv_general_dilated(IMG, KER, (1, 1), "VALID",
        dimension_numbers=("NHWC", "HWIO", "NHWC"))
    raw = {"add": lambda: jnp.add(X, X), "matmul": lambda: jnp.matmul(X, X), "conv": conv}
elif name == "torch":
    import torch
    IMG_T = IMG.permute(0, 3, 1, 2).contiguous()
    KER_T = KER.permute(3, 2, 0, 1).contiguous()
    raw = {
        "add": lambda: torch.add(X, X),
        "matmul": lambda: torch.matmul(X, X),
        "conv": lambda: torch.nn.functional.conv2d(IMG_T, KER_T),
    }
else:
    import tensorflow as tf
    raw = {
        "add": lambda: tf.add(X, X),
        "matmul": lambda: tf.matmul(X, X),
        "conv": lambda: tf.nn.conv2d(IMG, KER, 1, "VALID"),
    }
lam = {
    "add": lambda: ops.add(X, X),
    "matmul": lambda: ops.matmul(X, X),
    "conv": lambda: ops.conv(IMG, KER),
}

def per_call(fn):
    fn()
    n, best = 200, float("inf")
    for _ in range(5):
        best = min(best, timeit.timeit(fn, number=n) / n)
    return best

for op in ("add", "matmul", "conv"):
    r, l = per_call(raw[op]), per_call(lam[op])
    print(json.dumps({"backend": name, "op": op, "raw_us": round(r * 1e6, 2),
                      "lamina_us": round(l * 1e6, 2), "ratio": round(l / r, 2)}))
"""


def bench_dispatch_overhead() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend; yields its JSON records."""
    return run_per_backend(WORKER, ("numpy", "jax", "torch", "tensorflow"))
