"""`Rescaling`: ``inputs * scale + offset`` (e.g. pixels from [0, 255] to [0, 1])."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from lamina import ops
from lamina.layers.layer import Layer


def _check_factor(arg: str, value: Any) -> Any:
    if isinstance(value, bool):
        value = None
    if isinstance(value, numbers.Real):
        return float(value)
    try:
        array = np.asarray(value, dtype="float64")
    except (TypeError, ValueError):
        array = None
    if array is None or array.dtype.kind != "f":
        raise ValueError(
            f"Rescaling: argument `{arg}` must be a number or an array of numbers "
            f"broadcastable to the inputs. Received: {arg}={value!r}"
        )
    return array


class Rescaling(Layer):
    """Multiply the inputs by `scale` and add `offset` (ints are cast to the compute dtype).

    Args:
        scale: a number, or an array broadcast against the inputs (per-channel scales).
        offset: a number or array added after scaling.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> lamina.layers.Rescaling(1 / 127.5, offset=-1)(images)  # [0, 255] -> [-1, 1]
    """

    def __init__(self, scale: Any, offset: Any = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = _check_factor("scale", scale)
        self.offset = _check_factor("offset", offset)
        self.supports_masking = True
        self.built = True

    def call(self, inputs: Any) -> Any:
        dtype = self.compute_dtype
        x = ops.cast(inputs, dtype)
        scale = ops.convert_to_tensor(self.scale, dtype=dtype)
        offset = ops.convert_to_tensor(self.offset, dtype=dtype)
        return ops.add(ops.multiply(x, scale), offset)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()

        def plain(v: Any) -> Any:
            return v.tolist() if isinstance(v, np.ndarray) else v

        config.update({"scale": plain(self.scale), "offset": plain(self.offset)})
        return config
