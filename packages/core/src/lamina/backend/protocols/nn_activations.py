"""Activations, losses, normalization and encoding ops.

Every argument arrives normalized by the core op: tensors are native, already promoted to
the op's compute dtype (a float for everything but `one_hot`/`multi_hot` indices), axes are
non-negative ints, and static arguments are plain Python values.
"""

from __future__ import annotations

from typing import Protocol

from ._types import DType, Tensor


class NNActivationOps(Protocol):
    """Activations, losses, normalization and encoding ops.

    Composites the core writes once on these primitives (`lamina.ops.composites.nn`):
    `batch_normalization`, `binary_crossentropy`, `categorical_crossentropy`, `celu`, `elu`,
    `gelu`, `glu`, `hard_shrink`, `hard_sigmoid`, `hard_silu`, `hard_tanh`,
    `layer_normalization`, `leaky_relu`, `log_sigmoid`, `log_softmax`, `moments`,
    `multi_hot`, `normalize`, `polar`, `psnr`, `relu`, `relu6`, `rms_normalization`, `selu`,
    `silu`, `soft_shrink`, `softplus`, `softsign`, `sparse_categorical_crossentropy`,
    `sparse_plus`, `sparse_sigmoid`, `sparsemax`, `squareplus`, `tanh_shrink`, `threshold`.
    A backend may still define one, with the same signature, where a native kernel is
    faster; the core then calls it.
    """

    def sigmoid(self, x: Tensor) -> Tensor: ...

    def softmax(self, x: Tensor, axis: tuple[int, ...]) -> Tensor: ...

    # Encodings.
    def one_hot(self, x: Tensor, num_classes: int, axis: int, dtype: DType) -> Tensor:
        """One-hot of the int tensor `x`; out-of-range indices (negative too) give zeros."""
        ...
