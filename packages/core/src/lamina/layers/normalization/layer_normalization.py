"""`LayerNormalization`: normalize each sample over its feature axes (no batch statistics)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.layers.normalization import _common


class LayerNormalization(Layer):
    """Normalize each sample to zero mean and unit variance over `axis`, then scale and shift.

    Unlike `BatchNormalization` the statistics are per sample, so training and inference
    compute the same thing and the batch size does not matter.

    Args:
        axis: the axis or list of axes to normalize over (and to size the weights by).
        epsilon: added to the variance before the square root.
        center: whether to add the learned offset `beta`.
        scale: whether to multiply by the learned `gamma`.
        rms_scaling: divide by the standard deviation without subtracting the mean, and
            multiply by `gamma` only (`center` and `scale` are then ignored). This is not
            `RMSNormalization`, which divides by the root mean square.
        beta_initializer: initializer of `beta`.
        gamma_initializer: initializer of `gamma`.
        beta_regularizer: penalty on `beta`.
        gamma_regularizer: penalty on `gamma`.
        beta_constraint: projection of `beta` after each update.
        gamma_constraint: projection of `gamma` after each update.
        **kwargs: base `Layer` arguments (name, dtype, trainable).

    Example:
        >>> y = lamina.layers.LayerNormalization()(np.ones((2, 3)))
    """

    def __init__(
        self,
        axis: Any = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        rms_scaling: bool = False,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        name = "LayerNormalization"
        self.axis = _common.int_axes(name, axis)
        self.epsilon = _common.non_negative_float(name, "epsilon", epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.rms_scaling = bool(rms_scaling)
        self.beta_initializer = _args.get_initializer(beta_initializer)
        self.gamma_initializer = _args.get_initializer(gamma_initializer)
        self.beta_regularizer = _args.get_regularizer(beta_regularizer)
        self.gamma_regularizer = _args.get_regularizer(gamma_regularizer)
        self.beta_constraint = _args.get_constraint(beta_constraint)
        self.gamma_constraint = _args.get_constraint(gamma_constraint)
        self.supports_masking = True
        self.gamma: Any = None
        self.beta: Any = None

    def build(self, input_shape: Any = None) -> None:
        axes = _common.canonical_axes("LayerNormalization", self.axis, len(input_shape))
        shape = tuple(_common.known_dims("LayerNormalization", input_shape, axes))
        self._axes = axes
        if self.scale or self.rms_scaling:
            self.gamma = self.add_weight(
                shape=shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                name="gamma",
                autocast=False,
            )
        if self.center and not self.rms_scaling:
            self.beta = self.add_weight(
                shape=shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                name="beta",
                autocast=False,
            )
        self.built = True

    def call(self, inputs: Any) -> Any:
        dtype = _common.stats_dtype(inputs)
        x = _common.as_dtype(inputs, dtype)
        rank = len(x.shape)
        axes = self._axes
        if not self.rms_scaling:  # the op: one fused kernel where the backend has one
            gamma, beta = (
                None if w is None else _common.as_dtype(w.value, dtype)
                for w in (self.gamma, self.beta)
            )
            outputs = ops.layer_normalization(x, gamma, beta, axis=axes, epsilon=self.epsilon)
            return _common.as_dtype(outputs, self.compute_dtype)
        # Keras' rms_scaling divides by the standard deviation (not the root mean square).
        _, var = ops.nn.moments(x, axes=axes, keepdims=True)
        inv = ops.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            inv = inv * _common.broadcast_param(self.gamma.value, rank, axes, dtype)
        outputs = x * inv
        if self.beta is not None:
            outputs = outputs + _common.broadcast_param(self.beta.value, rank, axes, dtype)
        return ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "axis": self.axis,
                "epsilon": self.epsilon,
                "center": self.center,
                "scale": self.scale,
                "rms_scaling": self.rms_scaling,
                "beta_initializer": _args.serialize_initializer(self.beta_initializer),
                "gamma_initializer": _args.serialize_initializer(self.gamma_initializer),
                "beta_regularizer": _args.serialize_regularizer(self.beta_regularizer),
                "gamma_regularizer": _args.serialize_regularizer(self.gamma_regularizer),
                "beta_constraint": _args.serialize_constraint(self.beta_constraint),
                "gamma_constraint": _args.serialize_constraint(self.gamma_constraint),
            }
        )
        return config
