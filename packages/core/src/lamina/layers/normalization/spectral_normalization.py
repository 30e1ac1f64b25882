"""`SpectralNormalization`: keep a wrapped layer's kernel at spectral norm 1 while training."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops
from lamina.layers.layer import Layer


def _l2_normalize(x: Any, eps: float = 1e-12) -> Any:
    return x * ops.rsqrt(ops.maximum(ops.sum(ops.square(x)), eps))


class SpectralNormalization(Layer):
    """Wrap a layer with a `kernel` (or `embeddings`) and divide it by its largest singular
    value, estimated by power iteration, on each training call.

    The estimate's vector `vector_u` is a non-trainable variable refined by
    `power_iterations` steps per training call, so the estimate improves as training runs
    (one step per call is usually enough). In training the normalized kernel is assigned
    back to the wrapped layer's variable; inference uses the kernel as it is. This bounds
    the Lipschitz constant of the layer, which stabilizes GAN discriminators.

    Args:
        layer: the layer to wrap; it must have a `kernel` or `embeddings` variable once
            built.
        power_iterations: power-iteration steps per training call (>= 1).
        **kwargs: base `Layer` arguments (name, dtype, trainable).

    Example:
        >>> sn = lamina.layers.SpectralNormalization(lamina.layers.Dense(4))
        >>> y = sn(np.ones((2, 3)), training=True)
    """

    def __init__(self, layer: Any, power_iterations: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise TypeError(
                "SpectralNormalization: argument `layer` must be a lamina Layer. "
                f"Received: layer={layer!r} (of type {type(layer).__name__})"
            )
        if (
            isinstance(power_iterations, bool)
            or not isinstance(power_iterations, numbers.Integral)
            or power_iterations < 1
        ):
            raise ValueError(
                "SpectralNormalization: argument `power_iterations` must be an int >= 1. "
                f"Received: power_iterations={power_iterations!r}"
            )
        self.layer: Layer = layer
        self.power_iterations: int = int(power_iterations)

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer._build(input_shape)
        kernel = getattr(self.layer, "kernel", None)
        if kernel is None:
            kernel = getattr(self.layer, "embeddings", None)
        if kernel is None or not hasattr(kernel, "assign"):
            raise ValueError(
                "SpectralNormalization: the wrapped layer must have a `kernel` or "
                f"`embeddings` variable. Received: layer={self.layer!r}"
            )
        self.kernel = kernel
        self.vector_u = self.add_weight(
            shape=(1, int(kernel.shape[-1])),
            initializer="random_normal",
            trainable=False,
            name="vector_u",
            autocast=False,
        )
        self.built = True

    def normalized_weights(self) -> tuple[Any, Any]:
        """One power-iteration refinement: the new `vector_u` and the normalized kernel."""
        kernel = self.kernel.value
        dtype = "float32" if str(kernel.dtype) in ("float16", "bfloat16") else kernel.dtype
        matrix = ops.reshape(ops.cast(kernel, dtype), (-1, int(kernel.shape[-1])))
        u = ops.cast(self.vector_u.value, dtype)
        v = u
        for _ in range(self.power_iterations):
            v = _l2_normalize(ops.matmul(u, ops.transpose(matrix)))
            u = _l2_normalize(ops.matmul(v, matrix))
        u = ops.stop_gradient(u)
        v = ops.stop_gradient(v)
        sigma = ops.matmul(ops.matmul(v, matrix), ops.transpose(u))
        normalized = ops.reshape(matrix / sigma, kernel.shape)
        return u, ops.cast(normalized, kernel.dtype)

    def call(self, inputs: Any, training: Any = None) -> Any:
        if training:
            new_u, new_kernel = self.normalized_weights()
            self.vector_u.assign(ops.cast(new_u, self.vector_u.dtype))
            self.kernel.assign(new_kernel)
        outputs = self.layer(inputs)
        return ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config.update(
            {
                "layer": serialize_lamina_object(self.layer),
                "power_iterations": self.power_iterations,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> SpectralNormalization:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        config["layer"] = deserialize_lamina_object(config["layer"])
        return cls(**config)
