"""PyTorch: image primitives (the core computes weights, taps and paddings)."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from lamina.backend.kit import Tensor


def resample_axes(x: Tensor, weights: tuple[tuple[int, Tensor], ...]) -> Tensor:
    for axis, w in weights:
        x = torch.movedim(torch.tensordot(w, x, dims=([1], [axis])), 0, axis)
    return x


def pad(
    x: Tensor, paddings: tuple[tuple[int, int], ...], mode: str, constant_value: float
) -> Tensor:
    if mode == "constant":
        flat = [p for pair in reversed(paddings) for p in pair]
        return F.pad(x, flat, mode="constant", value=constant_value)
    # F.pad has no "symmetric" and limits reflect/replicate ranks: gather NumPy-padded indices.
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            idx = np.pad(np.arange(x.shape[axis]), (before, after), mode=mode)  # type: ignore[call-overload]
            x = torch.index_select(x, axis, torch.as_tensor(idx, device=x.device))
    return x
