"""Activation layers: element-wise `ReLU`, `LeakyReLU`, `PReLU`, `ELU` and a masked `Softmax`.

They exist beside `Activation("relu")` because their arguments (a slope, a cap, learned
slopes, a softmax mask) are part of the layer's config, as in Keras 3.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from lamina import activations, ops
from lamina.layers.core import _args
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.ops import dtypes


def _real(layer: str, arg: str, value: Any, minimum: float | None = None) -> float:
    """`value` as a float (>= `minimum` when given), or a ValueError naming the argument."""
    bad = isinstance(value, bool) or not isinstance(value, numbers.Real)
    if not bad and minimum is not None:
        bad = value < minimum
    if bad:
        expected = "a number" if minimum is None else f"a number >= {minimum:g}"
        raise ValueError(f"{layer}: argument `{arg}` must be {expected}. Received: {arg}={value!r}")
    return float(value)


class _Elementwise(Layer):
    """An activation with no weights: same shape out, masks pass through."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class ReLU(_Elementwise):
    """Rectified linear unit with an optional cap, leak and threshold.

    ``f(x) = max_value`` for ``x >= max_value``, ``x`` for ``threshold <= x < max_value``
    and ``negative_slope * (x - threshold)`` otherwise.

    Args:
        max_value: the cap (>= 0), or None for none.
        negative_slope: the slope below the threshold (>= 0).
        threshold: the value under which units are inactive.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.ReLU(max_value=6.0)(np.array([-1.0, 3.0, 8.0]))  # [0, 3, 6]
    """

    def __init__(
        self,
        max_value: float | None = None,
        negative_slope: float = 0.0,
        threshold: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.max_value = None if max_value is None else _real("ReLU", "max_value", max_value, 0.0)
        self.negative_slope = _real("ReLU", "negative_slope", negative_slope, 0.0)
        self.threshold = _real("ReLU", "threshold", threshold)

    def call(self, inputs: Any) -> Any:
        return activations.relu(
            inputs,
            negative_slope=self.negative_slope,
            max_value=self.max_value,
            threshold=self.threshold,
        )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "max_value": self.max_value,
                "negative_slope": self.negative_slope,
                "threshold": self.threshold,
            }
        )
        return config


class LeakyReLU(_Elementwise):
    """``x`` for positive inputs, ``negative_slope * x`` otherwise.

    Args:
        negative_slope: the slope for negative inputs (>= 0). The Keras 2 name `alpha`
            is accepted, with a warning.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.LeakyReLU(0.1)(np.array([-2.0, 2.0]))  # [-0.2, 2.0]
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn(
                "LeakyReLU: argument `alpha` is the Keras 2 name of `negative_slope`; "
                "use `negative_slope`.",
                stacklevel=2,
            )
        super().__init__(**kwargs)
        self.negative_slope = _real("LeakyReLU", "negative_slope", negative_slope, 0.0)

    def call(self, inputs: Any) -> Any:
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config


class ELU(_Elementwise):
    """Exponential linear unit: ``x`` for positive inputs, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        alpha: the scale of the negative part.
        **kwargs: base `Layer` arguments.

    Example:
        >>> lamina.layers.ELU()(np.array([-1.0, 1.0]))  # [-0.632, 1.0]
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = _real("ELU", "alpha", alpha)

    def call(self, inputs: Any) -> Any:
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


class PReLU(Layer):
    """Leaky ReLU whose negative slopes are learned: ``max(x, 0) - alpha * max(-x, 0)``.

    Args:
        alpha_initializer: initializer of the slopes.
        alpha_regularizer: penalty on the slopes.
        alpha_constraint: projection applied to the slopes after each update.
        shared_axes: axes (1-based, batch excluded) along which one slope is shared, e.g.
            ``[1, 2]`` for one slope per channel of an image.
        **kwargs: base `Layer` arguments.

    Example:
        >>> layer = lamina.layers.PReLU(shared_axes=[1, 2])  # one slope per channel
    """

    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = _args.get_initializer(alpha_initializer)
        self.alpha_regularizer = _args.get_regularizer(alpha_regularizer)
        self.alpha_constraint = _args.get_constraint(alpha_constraint)
        axes = [shared_axes] if isinstance(shared_axes, int) else shared_axes
        if axes is not None and not (
            isinstance(axes, (list, tuple))
            and all(isinstance(a, int) and not isinstance(a, bool) and a >= 1 for a in axes)
        ):
            raise ValueError(
                "PReLU: argument `shared_axes` must be None, a positive int or a list of "
                f"positive ints (axis 0 is the batch). Received: shared_axes={shared_axes!r}"
            )
        self.shared_axes: list[int] | None = None if axes is None else list(axes)

    def build(self, input_shape: Any = None) -> None:
        shape = list(tuple(input_shape)[1:])
        for axis in self.shared_axes or []:
            if axis > len(shape):
                raise ValueError(
                    f"PReLU: argument `shared_axes` names axis {axis} but the inputs have rank "
                    f"{len(shape) + 1}. Received: shared_axes={self.shared_axes}"
                )
            shape[axis - 1] = 1
        if any(d is None for d in shape):
            raise ValueError(
                "PReLU: every non-shared axis needs a known size to hold its slopes. "
                f"Received: input_shape={tuple(input_shape)}, shared_axes={self.shared_axes}"
            )
        self.alpha = self.add_weight(
            shape=tuple(shape),
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
            name="alpha",
        )
        axes: dict[int, int | None] = {
            i: int(d) for i, d in enumerate(tuple(input_shape)) if i and d is not None
        }
        for axis in self.shared_axes or []:
            axes.pop(axis, None)
        self.input_spec = InputSpec(ndim=len(tuple(input_shape)), axes=axes)
        self.built = True

    def call(self, inputs: Any) -> Any:
        positive = ops.relu(inputs)
        negative = ops.multiply(ops.negative(self.alpha.value), ops.relu(ops.negative(inputs)))
        return ops.add(positive, negative)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "alpha_initializer": _args.serialize_initializer(self.alpha_initializer),
                "alpha_regularizer": _args.serialize_regularizer(self.alpha_regularizer),
                "alpha_constraint": _args.serialize_constraint(self.alpha_constraint),
                "shared_axes": self.shared_axes,
            }
        )
        return config


def large_negative(dtype: str) -> float:
    """A logit small enough to vanish under softmax yet finite in `dtype`."""
    return -3e4 if dtype == "float16" else -1e9


class Softmax(_Elementwise):
    """Softmax over `axis`; with a mask, masked positions get probability 0.

    Args:
        axis: an int, or a list of ints normalized together.
        **kwargs: base `Layer` arguments.

    Call arguments:
        inputs: the logits.
        mask: optional, broadcastable to the inputs; True (or 1) keeps a position.

    Example:
        >>> lamina.layers.Softmax()(np.array([[1.0, 1.0, 5.0]]), mask=np.array([[1, 1, 0]]))
    """

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        ok = isinstance(axis, int) and not isinstance(axis, bool)
        if isinstance(axis, (list, tuple)):
            ok = bool(axis) and all(isinstance(a, int) and not isinstance(a, bool) for a in axis)
        if not ok:
            raise ValueError(
                f"Softmax: argument `axis` must be an int or a non-empty list of ints. "
                f"Received: axis={axis!r}"
            )
        self.axis: int | list[int] = list(axis) if isinstance(axis, (list, tuple)) else axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        dtype = dtypes.dtype_of(inputs)
        keep = None
        if mask is not None:
            keep = ops.cast(mask, dtype)
            # Adding (rather than replacing) keeps gradients flowing as Keras' layer does.
            inputs = ops.add(inputs, ops.multiply(ops.subtract(1.0, keep), large_negative(dtype)))
        if isinstance(self.axis, list) and len(self.axis) > 1:
            axis = tuple(self.axis)
            outputs = ops.exp(ops.subtract(inputs, ops.logsumexp(inputs, axis, keepdims=True)))
        else:
            axis_int = self.axis[0] if isinstance(self.axis, list) else self.axis
            outputs = ops.softmax(inputs, axis=axis_int)
        if keep is not None:
            outputs = ops.multiply(outputs, keep)
        return outputs

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        return previous_mask

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["axis"] = self.axis
        return config
