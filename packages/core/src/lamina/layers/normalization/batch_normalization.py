"""`BatchNormalization`: normalize with batch statistics in training, moving ones otherwise."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.layers.normalization import _common


class BatchNormalization(Layer):
    """Normalize each feature of `axis` to zero mean and unit variance, then scale and shift.

    In training (``training=True`` and the layer trainable) the statistics come from the
    batch, and the moving statistics move towards them:
    ``moving = moving * momentum + batch * (1 - momentum)``. Otherwise the moving statistics
    are used, unchanged. A frozen layer (``trainable=False``) always runs in inference mode,
    so fine-tuning a model around it does not disturb its statistics.

    The moving statistics are non-trainable variables updated by assignment, so
    `stateless_call` returns their new values instead of assigning them.

    Args:
        axis: the feature axis (typically -1 for channels-last data).
        momentum: weight of the old moving statistics in each update.
        epsilon: added to the variance before the square root.
        center: whether to add the learned offset `beta`.
        scale: whether to multiply by the learned `gamma`.
        beta_initializer: initializer of `beta`.
        gamma_initializer: initializer of `gamma`.
        moving_mean_initializer: initializer of the moving mean.
        moving_variance_initializer: initializer of the moving variance.
        beta_regularizer: penalty on `beta`.
        gamma_regularizer: penalty on `gamma`.
        beta_constraint: projection of `beta` after each update.
        gamma_constraint: projection of `gamma` after each update.
        synchronized: sync batch statistics across devices in distributed training.
        **kwargs: base `Layer` arguments (name, dtype, trainable).

    Call arguments:
        inputs: a tensor of any rank.
        training: whether to use (and update) batch statistics.
        mask: optional boolean mask over the leading dims; masked entries do not count in
            the batch statistics.

    Example:
        >>> y = lamina.layers.BatchNormalization()(np.ones((4, 3)), training=True)
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        synchronized: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        name = "BatchNormalization"
        self.axis = _common.int_axis(name, axis)
        self.momentum = _common.unit_float(name, "momentum", momentum)
        self.epsilon = _common.non_negative_float(name, "epsilon", epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.synchronized = bool(synchronized)
        self.beta_initializer = _args.get_initializer(beta_initializer)
        self.gamma_initializer = _args.get_initializer(gamma_initializer)
        self.moving_mean_initializer = _args.get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = _args.get_initializer(moving_variance_initializer)
        self.beta_regularizer = _args.get_regularizer(beta_regularizer)
        self.gamma_regularizer = _args.get_regularizer(gamma_regularizer)
        self.beta_constraint = _args.get_constraint(beta_constraint)
        self.gamma_constraint = _args.get_constraint(gamma_constraint)
        self.supports_masking = True
        self.gamma: Any = None
        self.beta: Any = None

    def build(self, input_shape: Any = None) -> None:
        rank = len(input_shape)
        axis = _common.canonical_axes("BatchNormalization", self.axis, rank)[0]
        (dim,) = _common.known_dims("BatchNormalization", input_shape, [axis])
        self._feature_axis = axis
        self._reduction_axes = [i for i in range(rank) if i != axis]
        shape = (dim,)
        if self.scale:
            self.gamma = self.add_weight(
                shape=shape,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                name="gamma",
                autocast=False,
            )
        if self.center:
            self.beta = self.add_weight(
                shape=shape,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                name="beta",
                autocast=False,
            )
        self.moving_mean = self.add_weight(
            shape=shape,
            initializer=self.moving_mean_initializer,
            trainable=False,
            name="moving_mean",
            autocast=False,
        )
        self.moving_variance = self.add_weight(
            shape=shape,
            initializer=self.moving_variance_initializer,
            trainable=False,
            name="moving_variance",
            autocast=False,
        )
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: dim})
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        dtype = _common.stats_dtype(inputs)
        x = _common.as_dtype(inputs, dtype)
        if training and self.trainable:
            mean, var = _common.masked_moments(
                x, self._reduction_axes, mask, keepdims=False, synchronized=self.synchronized
            )
            self._update_moving(self.moving_mean, mean)
            self._update_moving(self.moving_variance, var)
        else:
            mean, var = self.moving_mean.value, self.moving_variance.value
        # One op, whose kernel reshapes and combines the vectors: an eager call pays for
        # one op's dispatch instead of a dozen.
        outputs = ops.batch_normalization(
            x,
            _common.as_dtype(mean, dtype),
            _common.as_dtype(var, dtype),
            axis=self._feature_axis,
            offset=None if self.beta is None else _common.as_dtype(self.beta.value, dtype),
            scale=None if self.gamma is None else _common.as_dtype(self.gamma.value, dtype),
            epsilon=self.epsilon,
        )
        return _common.as_dtype(outputs, self.compute_dtype)

    def _update_moving(self, variable: Any, batch_value: Any) -> None:
        old = variable.value
        new = old * self.momentum + ops.cast(batch_value, old.dtype) * (1.0 - self.momentum)
        variable.assign(ops.cast(new, old.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        return previous_mask

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "axis": self.axis,
                "momentum": self.momentum,
                "epsilon": self.epsilon,
                "center": self.center,
                "scale": self.scale,
                "beta_initializer": _args.serialize_initializer(self.beta_initializer),
                "gamma_initializer": _args.serialize_initializer(self.gamma_initializer),
                "moving_mean_initializer": _args.serialize_initializer(
                    self.moving_mean_initializer
                ),
                "moving_variance_initializer": _args.serialize_initializer(
                    self.moving_variance_initializer
                ),
                "beta_regularizer": _args.serialize_regularizer(self.beta_regularizer),
                "gamma_regularizer": _args.serialize_regularizer(self.gamma_regularizer),
                "beta_constraint": _args.serialize_constraint(self.beta_constraint),
                "gamma_constraint": _args.serialize_constraint(self.gamma_constraint),
                "synchronized": self.synchronized,
            }
        )
        return config
