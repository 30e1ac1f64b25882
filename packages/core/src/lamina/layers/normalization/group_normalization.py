"""`GroupNormalization`: normalize each sample over groups of channels (and all positions)."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.layers.normalization import _common


class GroupNormalization(Layer):
    """Split the channels of `axis` into `groups` and normalize each sample within a group.

    Statistics are taken over the group's channels and every non-batch position, per
    sample, so they do not depend on the batch size. ``groups=1`` normalizes over all
    channels (like `LayerNormalization` over all non-batch axes); ``groups=channels`` is
    instance normalization. The learned `gamma`/`beta` are per channel.

    Args:
        groups: the number of groups; must divide the channel count.
        axis: the channel axis.
        epsilon: added to the variance before the square root.
        center: whether to add the learned offset `beta`.
        scale: whether to multiply by the learned `gamma`.
        beta_initializer: initializer of `beta`.
        gamma_initializer: initializer of `gamma`.
        beta_regularizer: penalty on `beta`.
        gamma_regularizer: penalty on `gamma`.
        beta_constraint: projection of `beta` after each update.
        gamma_constraint: projection of `gamma` after each update.
        **kwargs: base `Layer` arguments (name, dtype, trainable).

    Call arguments:
        inputs: a tensor of rank >= 2, batch first.
        mask: optional boolean mask over the leading dims; masked positions do not count
            in the statistics.

    Example:
        >>> y = lamina.layers.GroupNormalization(groups=2)(np.ones((2, 5, 4)))
    """

    def __init__(
        self,
        groups: int = 32,
        axis: int = -1,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        name = "GroupNormalization"
        self.groups = _args.positive_int(name, "groups", groups)
        self.axis = _common.int_axis(name, axis)
        self.epsilon = _common.non_negative_float(name, "epsilon", epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
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
        rank = len(input_shape)
        if rank < 2:
            raise ValueError(
                "GroupNormalization: inputs must have rank >= 2 (batch and channels). "
                f"Received: input_shape={tuple(input_shape)}"
            )
        axis = _common.canonical_axes("GroupNormalization", self.axis, rank)[0]
        if axis == 0:
            raise ValueError(
                "GroupNormalization: argument `axis` must not be the batch axis 0. "
                f"Received: axis={self.axis}"
            )
        (channels,) = _common.known_dims("GroupNormalization", input_shape, [axis])
        if channels < self.groups or channels % self.groups:
            raise ValueError(
                f"GroupNormalization: argument `groups` must divide the number of channels "
                f"({channels}) and be at most it. Received: groups={self.groups}"
            )
        self._channel_axis = axis
        if self.scale:
            self.gamma = self.add_weight(
                shape=(channels,),
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                name="gamma",
                autocast=False,
            )
        if self.center:
            self.beta = self.add_weight(
                shape=(channels,),
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                name="beta",
                autocast=False,
            )
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: channels})
        self.built = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        dtype = _common.stats_dtype(inputs)
        x = ops.cast(inputs, dtype)
        rank = len(x.shape)
        axis = self._channel_axis
        # Channels last, then split them: (batch, *positions, groups, channels // groups).
        x = ops.moveaxis(x, axis, -1)
        moved_shape = ops.shape(x)
        channels = int(x.shape[-1])
        grouped = ops.reshape(
            x, (-1, *moved_shape[1:-1], self.groups, channels // self.groups)
        )
        axes = [i for i in range(1, rank + 1) if i != rank - 1]
        if mask is not None and axis < len(mask.shape):
            mask = None  # a mask over the channel axis is not a positions mask: ignore it
        mean, var = _common.masked_moments(grouped, axes, mask, keepdims=True)
        normed = (grouped - mean) * ops.rsqrt(var + self.epsilon)
        outputs = ops.reshape(normed, moved_shape)
        if self.gamma is not None:
            outputs = outputs * ops.cast(self.gamma.value, dtype)
        if self.beta is not None:
            outputs = outputs + ops.cast(self.beta.value, dtype)
        outputs = ops.moveaxis(outputs, -1, axis)
        return ops.cast(outputs, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "groups": self.groups,
                "axis": self.axis,
                "epsilon": self.epsilon,
                "center": self.center,
                "scale": self.scale,
                "beta_initializer": _args.serialize_initializer(self.beta_initializer),
                "gamma_initializer": _args.serialize_initializer(self.gamma_initializer),
                "beta_regularizer": _args.serialize_regularizer(self.beta_regularizer),
                "gamma_regularizer": _args.serialize_regularizer(self.gamma_regularizer),
                "beta_constraint": _args.serialize_constraint(self.beta_constraint),
                "gamma_constraint": _args.serialize_constraint(self.gamma_constraint),
            }
        )
        return config
