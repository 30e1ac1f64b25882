"""`Dropout` and its channel-wise variants `SpatialDropout1D/2D/3D`."""

from __future__ import annotations

from typing import Any

from lamina import random
from lamina.layers.core import _args
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.ops.symbolic import SymbolicTensor


class Dropout(Layer):
    """Zero a fraction `rate` of the inputs during training, scaling the rest by
    ``1 / (1 - rate)`` so the expected sum is unchanged; the identity at inference.

    Args:
        rate: the probability of dropping an entry, in ``[0, 1)``.
        noise_shape: the shape of the keep mask, broadcast to the inputs; None dims take
            the inputs' size (``(None, 1, None)`` drops the same features at every step).
        seed: an int seed for the layer's `SeedGenerator` (None: from the global seed).
        **kwargs: base `Layer` arguments.

    Example:
        >>> x = np.ones((2, 4), "float32")
        >>> y = lamina.layers.Dropout(0.5)(x, training=True)  # entries 0.0 or 2.0
    """

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.rate = _args.rate_in_unit(type(self).__name__, rate)
        if noise_shape is not None and not isinstance(noise_shape, (tuple, list)):
            raise ValueError(
                f"{type(self).__name__}: argument `noise_shape` must be a tuple or None. "
                f"Received: noise_shape={noise_shape!r}"
            )
        self.noise_shape = tuple(noise_shape) if noise_shape is not None else None
        self.seed = seed
        if self.rate > 0:
            self.seed_generator = random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def _noise_shape(self, inputs: Any) -> Any:
        return self.noise_shape

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if training and self.rate > 0:
            return random.dropout(
                inputs, self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed_generator
            )
        return inputs

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return SymbolicTensor(inputs.shape, dtype=inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "rate": self.rate,
                "noise_shape": list(self.noise_shape) if self.noise_shape is not None else None,
                "seed": self.seed,
            }
        )
        return config


class _SpatialDropout(Dropout):
    """Drop whole channels: the keep mask is shared over the spatial axes."""

    _rank = 1

    def __init__(
        self, rate: float, data_format: str | None = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = _args.data_format(type(self).__name__, data_format)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def _noise_shape(self, inputs: Any) -> Any:
        ones = (1,) * self._rank
        if self.data_format == "channels_first":
            return (None, None, *ones)
        return (None, *ones, None)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("noise_shape", None)
        config["data_format"] = self.data_format
        return config


class SpatialDropout1D(_SpatialDropout):
    """Dropout of entire 1D feature maps: inputs ``(batch, steps, channels)`` lose whole
    channels, which suits strongly correlated neighbouring steps.

    Args:
        rate: the probability of dropping a channel, in ``[0, 1)``.
        seed: an int seed.
        **kwargs: base `Layer` arguments.
    """

    _rank = 1

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        kwargs.pop("data_format", None)
        super().__init__(rate, data_format="channels_last", seed=seed, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("data_format", None)
        return config


class SpatialDropout2D(_SpatialDropout):
    """Dropout of entire 2D feature maps (inputs ``(batch, h, w, channels)`` or channels
    first).

    Args:
        rate: the probability of dropping a channel, in ``[0, 1)``.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: global setting).
        seed: an int seed.
        **kwargs: base `Layer` arguments.
    """

    _rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Dropout of entire 3D feature maps (inputs ``(batch, d, h, w, channels)`` or channels
    first).

    Args:
        rate: the probability of dropping a channel, in ``[0, 1)``.
        data_format: ``"channels_last"`` or ``"channels_first"`` (default: global setting).
        seed: an int seed.
        **kwargs: base `Layer` arguments.
    """

    _rank = 3
