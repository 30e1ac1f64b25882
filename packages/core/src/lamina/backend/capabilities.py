"""What a backend can do, declared rather than inferred from its name."""

from __future__ import annotations

import enum


class Capability(enum.Enum):
    """A feature a backend may or may not support.

    The core and the tests branch on capabilities (``backend.supports(...)``), never on
    backend names, so a new backend opts into behaviour by declaring it here.
    """

    TRAINING = "training"
    """Gradients and optimizer steps (``fit``)."""
    JIT = "jit"
    """Compiling a step into one program (jax.jit, tf.function, torch.compile)."""
    SPARSE = "sparse"
    """Sparse tensors as op inputs and outputs."""
    FLOAT64 = "float64"
    """float64 computation without silent downcasting."""
    GPU = "gpu"
    """A CUDA device can be used when one is visible."""
    STATIC_SHAPES = "static_shapes"
    """Compiled steps are specialized to every input shape (jax.jit): no dim is unknown in
    a trace, and a batch of another size compiles the same trace again."""
