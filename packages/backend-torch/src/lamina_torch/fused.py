"""Fused recurrent kernels (`lamina.backend.protocols.fused.FusedKernels`) on PyTorch.

The whole sequence runs in the kernel `torch.nn.LSTM` / `torch.nn.GRU` run (ATen's native
loop on CPU, cuDNN on CUDA), fed with the layer's own variables: the transposes and the GRU
gate reordering are ops in the autograd graph, so gradients reach Keras-layout weights.
Right-padded masks become packed sequences; any other mask returns None (generic loop).
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

from lamina_torch.between_graphs import BetweenGraphs


def _lengths(mask: torch.Tensor | None) -> torch.Tensor | bool | None:
    """Per-sample lengths of a right-padded mask; None when nothing is masked; False when
    the mask is not right-padded or masks a whole sample (not packable)."""
    if mask is None:
        return None
    mask = mask.to(torch.bool)
    lengths = mask.sum(dim=1)
    steps = mask.shape[1]
    if bool((lengths == steps).all()):
        return None
    padded = torch.arange(steps, device=mask.device)[None, :] < lengths[:, None]
    if not torch.equal(mask, padded) or bool((lengths == 0).any()):
        return False
    return lengths


def _take_steps(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``x[b, index[b, t]]`` for a batch-major ``x``."""
    return torch.gather(x, 1, index[:, :, None].expand(-1, -1, x.shape[-1]))


def _run_kernel(kernel: Any, inputs: torch.Tensor, *args: Any) -> Any:
    """``kernel(*args)``; on CUDA without the warning about weights not in one buffer.

    cuDNN gathers weights that are not one flat buffer into one at each call (ours are the
    layer's own variables, so they never are) and warns about it; that copy is the price of
    training Keras-layout variables in place. On CPU the kernel is called directly.
    """
    if not inputs.is_cuda:
        return kernel(*args)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="RNN module weights are not part")
        return kernel(*args)


call_kernel = BetweenGraphs(_run_kernel)
"""``kernel(inputs, *args)``, between torch.compile's graphs when a step is compiled:
inductor fails on the oneDNN RNN kernel a CPU runs, and decomposing the loop would unroll
every time step. torch.compile breaks its graphs at its own `nn.LSTM` and `nn.GRU` too
(`torch._dynamo.config.allow_rnn` is off)."""


def _hx(states: tuple[torch.Tensor, ...]) -> Any:
    """torch.lstm takes its states as a tuple, torch.gru as one tensor."""
    return states if len(states) > 1 else states[0]


def _run(
    kernel: Any,
    inputs: torch.Tensor,
    hx: Any,
    params: list[torch.Tensor],
    has_biases: bool,
    mask: torch.Tensor | None,
    go_backwards: bool,
    zero_output_for_mask: bool,
) -> tuple[torch.Tensor, tuple[torch.Tensor, ...]] | None:
    """Run `kernel` (``torch.lstm`` or ``torch.gru``) with Keras' mask/direction rules."""
    lengths = _lengths(mask)
    if lengths is False:
        return None
    if inputs.is_cuda:
        # cuDNN copies the weights into one buffer through views, which a transposed
        # kernel cannot give: a contiguous copy (an autograd op, so gradients still reach
        # the layer's variables) is what it can read.
        params = [p.contiguous() for p in params]
    train = torch.is_grad_enabled()
    if lengths is None:
        x = torch.flip(inputs, (1,)) if go_backwards else inputs
        out, *states = call_kernel(
            kernel, inputs, x, _hx(hx), params, has_biases, 1, 0.0, train, False, True
        )
        return out, tuple(s[0] for s in states)
    assert isinstance(lengths, torch.Tensor)
    steps = inputs.shape[1]
    time = torch.arange(steps, device=inputs.device)[None, :]
    x = inputs
    if go_backwards:
        # Each sample's valid steps, last first; the padding after them is never read.
        reversed_time = torch.where(time < lengths[:, None], lengths[:, None] - 1 - time, time)
        x = _take_steps(inputs, reversed_time)
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    sorted_hx = tuple(h.index_select(1, packed.sorted_indices) for h in hx)
    data, *states = call_kernel(
        kernel,
        inputs,
        packed.data,
        packed.batch_sizes,
        _hx(sorted_hx),
        params,
        has_biases,
        1,
        0.0,
        train,
        False,
    )
    unpacked, _ = pad_packed_sequence(
        PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices),
        batch_first=True,
        total_length=steps,
    )
    final = tuple(s[0].index_select(0, packed.unsorted_indices) for s in states)
    if go_backwards:
        # Keras reads the padding first: outputs are zeros, then the valid steps.
        source = time - (steps - lengths[:, None])
        out = _take_steps(unpacked, source.clamp(min=0))
        out = torch.where((source >= 0)[:, :, None], out, torch.zeros_like(out))
    elif zero_output_for_mask:
        out = unpacked
    else:
        # A padded step repeats the last valid output.
        out = _take_steps(unpacked, torch.minimum(time, lengths[:, None] - 1))
    return out, final


def lstm(
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
    # torch and Keras share the gate order i, f, g(c), o: only a transpose (a view).
    params = [kernel.t(), recurrent_kernel.t()]
    if bias is not None:
        params += [bias, torch.zeros_like(bias)]
    result = _run(
        torch.lstm,
        inputs,
        (h[None], c[None]),
        params,
        bias is not None,
        mask,
        go_backwards,
        zero_output_for_mask,
    )
    if result is None:
        return None
    out, (h_n, c_n) = result
    return out, h_n, c_n


def _to_torch_gates(w: torch.Tensor) -> torch.Tensor:
    """Keras' GRU blocks z, r, h along the last axis, as torch's r, z, n."""
    z, r, n = torch.chunk(w, 3, dim=-1)
    return torch.cat([r, z, n], dim=-1)


def gru(
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
    if not reset_after:
        return None  # torch's GRU applies the reset gate after the matmul only
    params = [_to_torch_gates(kernel).t(), _to_torch_gates(recurrent_kernel).t()]
    if bias is not None:
        params += list(_to_torch_gates(bias).unbind(0))  # both rows in one reorder
    result = _run(
        torch.gru,
        inputs,
        (h[None],),
        params,
        bias is not None,
        mask,
        go_backwards,
        zero_output_for_mask,
    )
    if result is None:
        return None
    out, (h_n,) = result
    return out, h_n
