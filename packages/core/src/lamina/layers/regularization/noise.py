"""Noise layers active only in training: `GaussianNoise`, `GaussianDropout`, `AlphaDropout`."""

from __future__ import annotations

import math
import numbers
from typing import Any

from lamina import ops, random
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.ops import dtypes
from lamina.ops.symbolic import SymbolicTensor

# SELU's constants: AlphaDropout drops to SELU's negative saturation value.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class _TrainingNoise(Layer):
    """Shared parts: a seed generator, masks pass through, identity at inference."""

    def __init__(self, seed: int | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed)
        self.supports_masking = True
        self.built = True

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return SymbolicTensor(inputs.shape, dtype=inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class GaussianNoise(_TrainingNoise):
    """Add zero-mean Gaussian noise of deviation `stddev` in training (a regularizer, and
    a way to augment real-valued inputs).

    Args:
        stddev: the noise's standard deviation (>= 0).
        seed: an int seed.
        **kwargs: base `Layer` arguments.
    """

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any) -> None:
        if isinstance(stddev, bool) or not isinstance(stddev, numbers.Real) or stddev < 0:
            raise ValueError(
                "GaussianNoise: argument `stddev` must be a non-negative number. "
                f"Received: stddev={stddev!r}"
            )
        super().__init__(seed, **kwargs)
        self.stddev: float = float(stddev)

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if not training or self.stddev == 0:
            return inputs
        noise = random.normal(
            ops.shape(inputs),
            stddev=self.stddev,
            dtype=dtypes.dtype_of(inputs),
            seed=self.seed_generator,
        )
        return ops.add(inputs, noise)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config


class GaussianDropout(_TrainingNoise):
    """Multiply the inputs by Gaussian noise of mean 1 and deviation
    ``sqrt(rate / (1 - rate))`` in training: dropout's variance without zeros.

    Args:
        rate: the equivalent dropout rate, in ``[0, 1)``.
        seed: an int seed.
        **kwargs: base `Layer` arguments.
    """

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        rate = _args.rate_in_unit("GaussianDropout", rate)
        super().__init__(seed, **kwargs)
        self.rate = rate

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if not training or self.rate == 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = random.normal(
            ops.shape(inputs),
            mean=1.0,
            stddev=stddev,
            dtype=dtypes.dtype_of(inputs),
            seed=self.seed_generator,
        )
        return ops.multiply(inputs, noise)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


class AlphaDropout(_TrainingNoise):
    """Dropout for SELU networks: dropped entries take SELU's saturation value and an
    affine correction keeps the inputs' mean and variance.

    Args:
        rate: the probability of dropping an entry, in ``[0, 1)``.
        noise_shape: the shape of the keep mask, broadcast to the inputs (None dims: the
            inputs' size).
        seed: an int seed.
        **kwargs: base `Layer` arguments.
    """

    def __init__(
        self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any
    ) -> None:
        rate = _args.rate_in_unit("AlphaDropout", rate)
        if noise_shape is not None and not isinstance(noise_shape, (tuple, list)):
            raise ValueError(
                "AlphaDropout: argument `noise_shape` must be a tuple or None. "
                f"Received: noise_shape={noise_shape!r}"
            )
        super().__init__(seed, **kwargs)
        self.rate = rate
        self.noise_shape = tuple(noise_shape) if noise_shape is not None else None

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if not training or self.rate == 0:
            return inputs
        shape = tuple(ops.shape(inputs))
        noise_shape = shape
        if self.noise_shape is not None:
            if len(self.noise_shape) != len(shape):
                raise ValueError(
                    "AlphaDropout: argument `noise_shape` must have the inputs' rank "
                    f"{len(shape)}. Received: noise_shape={self.noise_shape!r}"
                )
            noise_shape = tuple(s if d is None else d for d, s in zip(self.noise_shape, shape))
        dtype = dtypes.dtype_of(inputs)
        keep = ops.greater_equal(
            random.uniform(noise_shape, dtype=dtype, seed=self.seed_generator), self.rate
        )
        keep = ops.cast(keep, dtype)
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        # Affine correction so the output keeps zero mean and unit variance.
        a = ((1.0 - self.rate) * (1.0 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = ops.add(ops.multiply(inputs, keep), ops.multiply(ops.subtract(1.0, keep), alpha_p))
        return ops.add(ops.multiply(x, a), b)

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
