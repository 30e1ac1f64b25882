"""Fused LSTM and GRU kernels for a backend that loops over a sequence with its own primitive.

JAX (`lax.scan`) and TensorFlow (`tf.while_loop`) run the same recipe: project every step's
input with one matmul before the loop, then run only the recurrent matmul and the gate
arithmetic inside it. The recipe and the gate arithmetic are written here once; a backend
gives its loop (how masks, direction and unknown lengths are handled in its framework) and
its element-wise functions, and gets the `lamina.backend.protocols.fused.FusedKernels`
namespace. A backend with native whole-sequence kernels (PyTorch) writes its own instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

States = tuple[Any, ...]
Step = Callable[[Any, States], tuple[Any, States]]
"""``step(x_t, states) -> (output_t, new_states)`` for one time step."""


class LoopFlags(NamedTuple):
    """How a loop reads the sequence (see `FusedKernels`' conventions); hashable, so a
    tracing framework can treat it as static."""

    go_backwards: bool
    zero_output_for_mask: bool


Scanned = tuple[Any, States]
"""What a loop returns: ``(outputs, final_states)``."""
Loop = Callable[[Step, Any, States, Any, LoopFlags], Scanned]
"""``loop(step, projected, states, mask, flags)``: run `step` over axis 1 of the
batch-major `projected`, `mask` None or bool ``(batch, steps)``."""


class GateMath(NamedTuple):
    """A framework's functions for the gate arithmetic."""

    sigmoid: Callable[[Any], Any]
    tanh: Callable[[Any], Any]
    split: Callable[..., Any]
    """``split(x, n, axis=-1)``: `n` equal parts (``jnp.split``, ``tf.split``)."""


def _lstm_step(math: GateMath, recurrent_kernel: Any) -> Step:
    def step(x: Any, states: States) -> tuple[Any, States]:
        h_tm1, c_tm1 = states
        i, f, g, o = math.split(x + h_tm1 @ recurrent_kernel, 4, axis=-1)
        c_t = math.sigmoid(f) * c_tm1 + math.sigmoid(i) * math.tanh(g)
        h_t = math.sigmoid(o) * math.tanh(c_t)
        return h_t, (h_t, c_t)

    return step


def _gru_step(
    math: GateMath, recurrent_kernel: Any, recurrent_bias: Any | None, reset_after: bool
) -> Step:
    if not reset_after:  # the state's matmul is split around the reset gate
        units = int(recurrent_kernel.shape[0])
        u_zr, u_h = recurrent_kernel[:, : 2 * units], recurrent_kernel[:, 2 * units :]

    def step(x: Any, states: States) -> tuple[Any, States]:
        (h_tm1,) = states
        x_z, x_r, x_h = math.split(x, 3, axis=-1)
        if reset_after:  # the reset gate scales the recurrent matmul's result
            inner = h_tm1 @ recurrent_kernel
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
            r_z, r_r, r_h = math.split(inner, 3, axis=-1)
            r = math.sigmoid(x_r + r_r)
            candidate = math.tanh(x_h + r * r_h)
        else:  # the reset gate scales the state before its matmul
            r_z, r_r = math.split(h_tm1 @ u_zr, 2, axis=-1)
            r = math.sigmoid(x_r + r_r)
            candidate = math.tanh(x_h + (r * h_tm1) @ u_h)
        z = math.sigmoid(x_z + r_z)
        h_t = z * h_tm1 + (1 - z) * candidate
        return h_t, (h_t,)

    return step


class LoopedKernels:
    """`FusedKernels` built from a backend's `loop` and `math` (see the module docstring)."""

    def __init__(self, loop: Loop, math: GateMath) -> None:
        self._loop = loop
        self._math = math

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
        projected = inputs @ kernel
        if bias is not None:
            projected = projected + bias
        step = _lstm_step(self._math, recurrent_kernel)
        flags = LoopFlags(go_backwards, zero_output_for_mask)
        out, (h_n, c_n) = self._loop(step, projected, (h, c), mask, flags)
        return out, h_n, c_n

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
        projected = inputs @ kernel
        recurrent_bias = None
        if bias is not None:
            projected = projected + (bias[0] if reset_after else bias)
            recurrent_bias = bias[1] if reset_after else None
        step = _gru_step(self._math, recurrent_kernel, recurrent_bias, reset_after)
        flags = LoopFlags(go_backwards, zero_output_for_mask)
        out, (h_n,) = self._loop(step, projected, (h,), mask, flags)
        return out, h_n
