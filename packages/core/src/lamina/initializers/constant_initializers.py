"""Deterministic initializers: constants, the identity matrix and STFT kernels."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from lamina import ops
from lamina.initializers.initializer import (
    Initializer,
    check_float_dtype,
    check_number,
    check_shape,
    resolve_dtype,
)


class Constant(Initializer):
    """Fill with a constant: a scalar, or an array broadcastable to the requested shape.

    Args:
        value: the fill value (number or array-like).

    Example:
        >>> lamina.initializers.Constant(3.0)((2, 2))  # [[3., 3.], [3., 3.]]
    """

    def __init__(self, value: Any = 0.0) -> None:
        if isinstance(value, bool) or not isinstance(value, numbers.Number):
            try:
                array = np.asarray(value)
            except (TypeError, ValueError) as err:
                raise TypeError(
                    "Argument `value` must be a number or an array-like. "
                    f"Received: value={value!r}"
                ) from err
            if array.dtype.kind not in "biuf":
                raise TypeError(
                    "Argument `value` must be a number or a numeric array-like. "
                    f"Received: value={value!r}"
                )
            value = array if array.ndim else array.item()
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """A tensor of `shape` and `dtype` filled with (broadcast) `value`."""
        shape = check_shape("Constant", shape)
        dtype = resolve_dtype(dtype)
        value_shape = np.shape(self.value)
        try:
            np.broadcast_shapes(value_shape, shape)
        except ValueError as err:
            raise ValueError(
                f"`Constant`: a value of shape {value_shape} cannot fill a tensor of the "
                f"requested shape. Received: shape={shape}"
            ) from err
        if value_shape and np.broadcast_shapes(value_shape, shape) != shape:
            raise ValueError(
                f"`Constant`: a value of shape {value_shape} does not broadcast to the "
                f"requested shape. Received: shape={shape}"
            )
        filled = ops.convert_to_tensor(np.array(self.value), dtype=dtype)
        return ops.broadcast_to(filled, shape)

    def get_config(self) -> dict[str, Any]:
        value = self.value
        if isinstance(value, np.ndarray):
            value = value.tolist()
        return {"value": value}


class Zeros(Initializer):
    """Fill with zeros (any dtype).

    Example:
        >>> lamina.initializers.Zeros()((3,), dtype="int32")
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """A tensor of zeros."""
        return ops.zeros(check_shape("Zeros", shape), dtype=resolve_dtype(dtype))


class Ones(Initializer):
    """Fill with ones (any dtype).

    Example:
        >>> lamina.initializers.Ones()((3,))
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """A tensor of ones."""
        return ops.ones(check_shape("Ones", shape), dtype=resolve_dtype(dtype))


class Identity(Initializer):
    """`gain` times the identity matrix (rectangular shapes get ones on the main diagonal).

    Args:
        gain: the multiplier of the identity.

    Example:
        >>> lamina.initializers.Identity(gain=2.0)((2, 3))
    """

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = check_number("Identity", "gain", gain)

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """`gain` times an identity matrix of the 2D `shape`.

        Raises:
            ValueError: `shape` is not 2D.
        """
        shape = check_shape("Identity", shape)
        if len(shape) != 2:
            raise ValueError(
                "`Identity`: the identity initializer makes 2D matrices only. "
                f"Received: shape={shape}"
            )
        dtype = resolve_dtype(dtype)
        eye = ops.eye(shape[0], shape[1], dtype=dtype)
        return ops.multiply(eye, ops.convert_to_tensor(self.gain, dtype=dtype))

    def get_config(self) -> dict[str, Any]:
        return {"gain": self.gain}


IdentityInitializer = Identity

_WINDOWS = ("hann", "hamming", "blackman", "bartlett", "boxcar")


def window_values(name: str, length: int, periodic: bool) -> np.ndarray[Any, Any]:
    """The samples of a named window of `length` points (float64).

    A periodic window (for spectral analysis) is the symmetric window of ``length + 1``
    points without its last point.

    Raises:
        ValueError: `name` is not one of the supported windows.
    """
    if name not in _WINDOWS:
        raise ValueError(
            f"Argument `window` must be one of {_WINDOWS} or an array. Received: window={name!r}"
        )
    if length <= 1:
        return np.ones((length,))
    size = length + 1 if periodic else length
    n = np.arange(size, dtype="float64")
    phase = 2.0 * math.pi * n / (size - 1)
    if name == "hann":
        values = 0.5 - 0.5 * np.cos(phase)
    elif name == "hamming":
        values = 0.54 - 0.46 * np.cos(phase)
    elif name == "blackman":
        values = 0.42 - 0.5 * np.cos(phase) + 0.08 * np.cos(2.0 * phase)
    elif name == "bartlett":
        values = 1.0 - np.abs(2.0 * n / (size - 1) - 1.0)
    else:
        values = np.ones((size,))
    return values[:length]


class STFT(Initializer):
    """Kernels of a 1D convolution that computes a short-time Fourier transform.

    Calling it with ``shape=(frame_length, input_channels, fft_bins)`` gives the real
    (cosine) or imaginary (sine) part of the DFT basis, windowed and scaled.

    Args:
        side: ``"real"`` or ``"imag"``, the part of the transform the kernel computes.
        window: a window name (``"hann"``, ``"hamming"``, ``"blackman"``, ``"bartlett"``,
            ``"boxcar"``), an array of ``frame_length`` values, or None (no window).
        scaling: ``"density"`` (divide by the window's L2 norm), ``"spectrum"`` (by its
            sum) or None.
        periodic: use the periodic form of a named window rather than the symmetric one.

    Example:
        >>> kernel = lamina.initializers.STFT(side="imag")((256, 1, 129))
    """

    def __init__(
        self,
        side: str = "real",
        window: Any = "hann",
        scaling: str | None = "density",
        periodic: bool = False,
    ) -> None:
        if side not in ("real", "imag"):
            raise ValueError(
                f"Argument `side` must be 'real' or 'imag'. Received: side={side!r}"
            )
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(
                "Argument `scaling` must be 'density', 'spectrum' or None. "
                f"Received: scaling={scaling!r}"
            )
        if isinstance(window, str):
            window_values(window, 1, False)
        elif window is not None:
            array = np.asarray(window)
            if array.ndim != 1 or array.dtype.kind not in "biuf":
                raise ValueError(
                    "Argument `window` must be a window name, a 1D numeric array or None. "
                    f"Received: window={window!r}"
                )
            window = array.astype("float64").tolist()
        if not isinstance(periodic, bool):
            raise TypeError(
                f"Argument `periodic` must be a bool. Received: periodic={periodic!r}"
            )
        self.side = side
        self.window = window
        self.scaling = scaling
        self.periodic = periodic

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        """The STFT kernel of `shape` ``(frame_length, input_channels, fft_bins)``.

        Raises:
            ValueError: `shape` is not 3D, or an array window's length is not `frame_length`.
        """
        shape = check_shape("STFT", shape)
        dtype = check_float_dtype("STFT", dtype)
        if len(shape) != 3:
            raise ValueError(
                "`STFT`: argument `shape` must be (frame_length, input_channels, fft_bins). "
                f"Received: shape={shape}"
            )
        frame_length, channels, bins = shape
        # The basis is computed in float64 on the host so that every dtype gets the same
        # values rounded once.
        time = np.arange(frame_length, dtype="float64").reshape(frame_length, 1, 1)
        period = max((bins - 1) * 2, 1)
        freq = np.arange(bins, dtype="float64").reshape(1, 1, bins) / period
        angle = -2.0 * math.pi * time * freq
        kernel = np.cos(angle) if self.side == "real" else np.sin(angle)
        if self.window is not None:
            if isinstance(self.window, str):
                win = window_values(self.window, frame_length, self.periodic)
            else:
                win = np.asarray(self.window, dtype="float64")
                if win.shape != (frame_length,):
                    raise ValueError(
                        f"`STFT`: the window must have frame_length={frame_length} values. "
                        f"Received: a window of shape {win.shape}"
                    )
            kernel = kernel * win.reshape(frame_length, 1, 1)
            if self.scaling == "density":
                kernel = kernel / np.sqrt(np.sum(np.square(win)))
            elif self.scaling == "spectrum":
                kernel = kernel / np.sum(np.abs(win))
        kernel = np.broadcast_to(kernel, (frame_length, channels, bins))
        return ops.convert_to_tensor(np.array(kernel, copy=True), dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "window": self.window,
            "scaling": self.scaling,
            "periodic": self.periodic,
        }


STFTInitializer = STFT
