"""Special math: fft, segment reductions, top_k, erf and friends."""

from __future__ import annotations

from typing import Protocol

from ._types import Tensor


class MathOps(Protocol):
    """Special math: fft, segment reductions, top_k, erf and friends.

    FFTs take and return (real, imag) pairs of float tensors of one dtype; sizes, axes and
    windows arrive validated (a window is a float tensor of length `fft_length`).

    Composites the core writes once on these primitives (`lamina.ops.composites.math`):
    `fft2`, `ifft2`, `in_top_k`, `logdet`, `logsumexp`, `rsqrt`, `view_as_real`. A backend
    may still define one, with the same signature, where a native kernel is faster; the core
    then calls it.
    """

    def erf(self, x: Tensor, /) -> Tensor: ...
    def erfc(self, x: Tensor, /) -> Tensor: ...
    def erfinv(self, x: Tensor, /) -> Tensor: ...
    def extract_sequences(
        self, x: Tensor, sequence_length: int, sequence_stride: int
    ) -> Tensor: ...
    def fft(self, real: Tensor, imag: Tensor) -> tuple[Tensor, Tensor]: ...
    def rfft(self, x: Tensor, fft_length: int) -> tuple[Tensor, Tensor]: ...
    def irfft(self, real: Tensor, imag: Tensor, fft_length: int) -> Tensor: ...
    def top_k(self, x: Tensor, k: int, sorted: bool) -> tuple[Tensor, Tensor]: ...
    def segment_sum(
        self, data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool
    ) -> Tensor: ...
    def segment_prod(
        self, data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool
    ) -> Tensor: ...
    def segment_max(
        self, data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool
    ) -> Tensor: ...
    def segment_min(
        self, data: Tensor, segment_ids: Tensor, num_segments: int, sorted: bool
    ) -> Tensor: ...
    def view_as_complex(self, x: Tensor) -> Tensor: ...
