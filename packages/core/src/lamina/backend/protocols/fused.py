"""Fused recurrent kernels: an optional namespace a backend offers for LSTM and GRU layers.

The core's recurrent layers loop over their cell with `ops.scan`, which works everywhere.
A backend whose framework has a faster way to run a whole sequence (PyTorch's native
LSTM/GRU kernels, one `lax.scan` with the input projection hoisted out of the loop) offers
it here; the layers call it only for configurations these kernels can reproduce exactly
(tanh/sigmoid activations, no recurrent dropout, no unroll) and fall back to the generic
loop whenever a kernel returns None.

Conventions shared by every kernel:

* `inputs` are batch-major ``(batch, steps, features)``; `mask` is None or a bool
  ``(batch, steps)`` tensor.
* Weights come in Keras 3's layout: ``kernel`` ``(features, gates * units)``,
  ``recurrent_kernel`` ``(units, gates * units)``; LSTM gates in the order i, f, c, o and
  GRU gates z, r, h. A kernel converts whatever its framework wants inside the graph, so
  gradients reach the layer's own variables.
* A masked step keeps the states; its output is zero when `zero_output_for_mask`, else the
  previous step's output (zero before the first unmasked step).
* With `go_backwards` the sequence (and mask) is read from its last step to its first and
  the outputs come back in that processing order, as Keras 3 returns them.
* The result is ``(outputs, *final_states)`` with `outputs` ``(batch, steps, units)``, or
  None when the kernel does not handle this call (a mask that is not right-padded, a dtype
  its framework lacks on this device...): the layer then runs its generic loop.
"""

from __future__ import annotations

from typing import Any, Protocol


class FusedKernels(Protocol):
    """Whole-sequence LSTM and GRU kernels (see the module docstring for conventions)."""

    def lstm(
        self,
        inputs: Any,
        h: Any,
        c: Any,
        kernel: Any,
        recurrent_kernel: Any,
        bias: Any | None,
        mask: Any | None,
        go_backwards: bool,
        zero_output_for_mask: bool,
    ) -> tuple[Any, Any, Any] | None:
        """Run an LSTM (tanh, sigmoid) over the sequence: ``(outputs, h, c)`` or None.

        `bias` is the ``(4 * units,)`` vector or None.
        """
        ...

    def gru(
        self,
        inputs: Any,
        h: Any,
        kernel: Any,
        recurrent_kernel: Any,
        bias: Any | None,
        mask: Any | None,
        go_backwards: bool,
        zero_output_for_mask: bool,
        reset_after: bool,
    ) -> tuple[Any, Any] | None:
        """Run a GRU (tanh, sigmoid) over the sequence: ``(outputs, h)`` or None.

        `bias` is ``(2, 3 * units)`` (input and recurrent biases) when `reset_after`,
        ``(3 * units,)`` otherwise, or None.
        """
        ...
