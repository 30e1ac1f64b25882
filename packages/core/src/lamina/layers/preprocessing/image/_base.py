"""The shared base of the image preprocessing layers: argument checks, batching of single
images and the training switch of the random augmentations."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops, random
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin
from lamina.layers.preprocessing.image import _dict_inputs


def factor_pair(
    layer: str, arg: str, value: Any, bounds: tuple[float, float], symmetric: bool = True
) -> tuple[float, float]:
    """A `factor` argument as ``(lower, upper)``: a number ``f`` gives ``(-f, f)`` clipped to
    `bounds` (``(0, f)`` when not `symmetric`), a pair is sorted; all within `bounds`."""
    message = (
        f"{layer}: argument `{arg}` must be a number or a pair of numbers in "
        f"[{bounds[0]}, {bounds[1]}]. Received: {arg}={value!r}"
    )
    if isinstance(value, bool):
        raise ValueError(message)
    if isinstance(value, numbers.Real):
        f = float(value)
        if not bounds[0] <= f <= bounds[1]:
            raise ValueError(message)
        f = abs(f)
        return (max(-f, bounds[0]) if symmetric else 0.0, f)
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)
    ):
        lower, upper = sorted(float(v) for v in value)
        if lower >= bounds[0] and upper <= bounds[1]:
            return (lower, upper)
    raise ValueError(message)


def probability_pair(layer: str, value: Any) -> tuple[float, float]:
    """A probability `factor`: a number ``p`` in [0, 1] gives ``(p, p)``, a pair is the
    range a probability is drawn from per image."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        p = factor_pair(layer, "factor", value, (0.0, 1.0), symmetric=False)[1]
        return (p, p)
    return factor_pair(layer, "factor", value, (0.0, 1.0))


def span_mask(start: Any, size: Any, length: Any, axis_shape: tuple[int, ...]) -> Any:
    """Per image, the positions ``[start, start + size)`` of an axis of `length` as a
    boolean tensor of `axis_shape` (``start`` and ``size`` are ``(batch,)`` floats)."""
    start = ops.reshape(start, (-1, 1, 1, 1))
    end = ops.add(start, ops.reshape(size, (-1, 1, 1, 1)))
    grid = ops.reshape(ops.arange(length, dtype="float32"), axis_shape)
    return ops.logical_and(ops.greater_equal(grid, start), ops.less(grid, end))


def value_range_pair(layer: str, value: Any) -> tuple[float, float]:
    """`value_range` as ``(low, high)`` with ``low < high``."""
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)
        and value[0] < value[1]
    ):
        return (float(value[0]), float(value[1]))
    raise ValueError(
        f"{layer}: argument `value_range` must be a pair (low, high) with low < high. "
        f"Received: value_range={value!r}"
    )


def positive_int(layer: str, arg: str, value: Any) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) > 0:
        return int(value)
    raise ValueError(f"{layer}: argument `{arg}` must be a positive int. Received: {arg}={value!r}")


def one_of(layer: str, arg: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value in allowed:
        return str(value)
    raise ValueError(
        f"{layer}: argument `{arg}` must be one of {allowed}. Received: {arg}={value!r}"
    )


def check_rank(layer: str, inputs: Any) -> int:
    rank = len(inputs.shape)
    if rank not in (3, 4):
        raise ValueError(
            f"{layer}: the inputs must be one image (rank 3) or a batch (rank 4). "
            f"Received: inputs.shape={tuple(inputs.shape)}"
        )
    return rank


class ImagePreprocessingLayer(TFGraphCallMixin, Layer):
    """Base of the image layers: checks `data_format`, accepts one image or a batch and
    hands `transform` a batch in the compute dtype.

    Subclasses define `transform(images, training)` on rank-4 batches. Dict inputs
    (``images``, ``labels``, ``bounding_boxes``, ``segmentation_masks``) go through
    `_dict_inputs`: colour layers change only the images; geometric ones (``dict_inputs =
    "geometric"``) define `draw`, `apply` and `box_map` and move boxes and masks too.
    """

    dict_inputs = _dict_inputs.PASS_THROUGH

    def __init__(self, data_format: str | None = None, bounding_box_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(**kwargs)
        name = type(self).__name__
        self.data_format = _args.data_format(name, data_format)
        self.bounding_box_format = _dict_inputs.bounding_box_format(name, bounding_box_format)
        self.built = True

    @property
    def _channels_first(self) -> bool:
        return self.data_format == "channels_first"

    def _spatial_axes(self) -> tuple[int, int]:
        return (2, 3) if self._channels_first else (1, 2)

    def _prepare(self, inputs: Any) -> Any:
        return ops.cast(inputs, self.compute_dtype)

    def transform(self, images: Any, training: bool) -> Any:
        """The layer's work on a rank-4 batch (overridden by every subclass, or defined by
        `draw` and `apply` in geometric ones)."""
        if self.dict_inputs == _dict_inputs.GEOMETRIC:
            return self.apply(images, self.draw(images, training), False)
        return images

    def draw(self, images: Any, training: bool) -> Any:
        """A geometric layer's random parameters for this batch (None: no randomness)."""
        return None

    def apply(self, images: Any, params: Any, masks: bool) -> Any:
        """A geometric layer's warp of `images` by `params` (``masks``: "nearest")."""
        raise TypeError(f"{type(self).__name__} must define `apply`.")

    def box_map(self, params: Any, size: tuple[Any, Any], out_size: tuple[Any, Any]) -> Any:
        """Where input points land in the output: ``[m0, ..., m5]``, see `_dict_inputs`."""
        raise TypeError(f"{type(self).__name__} must define `box_map`.")

    def call(self, inputs: Any, training: bool = True) -> Any:
        if isinstance(inputs, dict):
            return _dict_inputs.call_on_dict(self, inputs, bool(training), True)
        rank = check_rank(type(self).__name__, inputs)
        x = self._prepare(inputs)
        if rank == 3:
            return ops.squeeze(self.transform(ops.expand_dims(x, 0), bool(training)), 0)
        return self.transform(x, bool(training))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        from lamina.ops.symbolic import SymbolicTensor

        if isinstance(inputs, dict):
            images = self.compute_output_spec(inputs["images"], *args, **kwargs)
            return _dict_inputs.output_spec(self, inputs, images)
        dtype = self._output_dtype(inputs.dtype)
        return SymbolicTensor(tuple(self.compute_output_shape(tuple(inputs.shape))), dtype=dtype)

    def _output_dtype(self, input_dtype: Any) -> Any:
        return self.compute_dtype

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["data_format"] = self.data_format
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config


class RandomImageAugmentation(ImagePreprocessingLayer):
    """Base of the random augmentations: the identity unless ``training=True``; draws come
    from the layer's `SeedGenerator`, so they work inside jitted steps and `tf.function`
    (and, in a `tf.data` pipeline on another backend, in a stateful host node)."""

    _host_stateful = True

    def __init__(self, seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self.seed_generator = random.SeedGenerator(seed)

    def call(self, inputs: Any, training: bool = True) -> Any:
        if isinstance(inputs, dict):
            return _dict_inputs.call_on_dict(self, inputs, bool(training), bool(training))
        rank = check_rank(type(self).__name__, inputs)
        x = self._prepare(inputs)
        if not training:
            return x
        if rank == 3:
            return ops.squeeze(self.transform(ops.expand_dims(x, 0), True), 0)
        return self.transform(x, True)

    def uniform(self, batch: Any, lower: float, upper: float) -> Any:
        """One draw per image in ``[lower, upper)``, shape ``(batch,)`` (a float32 tensor)."""
        u = random.uniform((batch,), 0.0, 1.0, dtype="float32", seed=self.seed_generator)
        return ops.add(ops.multiply(u, upper - lower), lower)

    def applies(self, batch: Any, probability: tuple[float, float]) -> Any:
        """Per image, whether to apply: a probability drawn from `probability`, then a
        coin with it; shape ``(batch, 1, 1, 1)``."""
        chance = self.uniform(batch, *probability)
        return ops.reshape(ops.less(self.uniform(batch, 0.0, 1.0), chance), (-1, 1, 1, 1))

    def box(self, images: Any, scale: tuple[Any, Any]) -> Any:
        """A random box per image, with sides ``scale[0]`` and ``scale[1]`` (``(batch,)``
        fractions of the height and width) at a uniform position: a boolean mask
        broadcastable to `images`."""
        rows, cols = self._spatial_axes()
        shape = ops.shape(images)
        masks = []
        for axis, ratio, axis_shape in (
            (rows, scale[0], (1, -1, 1, 1) if rows == 1 else (1, 1, -1, 1)),
            (cols, scale[1], (1, 1, -1, 1) if cols == 2 else (1, 1, 1, -1)),
        ):
            length = ops.cast(shape[axis], "float32")
            size = ops.multiply(ratio, length)
            start = ops.multiply(self.uniform(shape[0], 0.0, 1.0), ops.subtract(length, size))
            masks.append(span_mask(start, size, shape[axis], axis_shape))
        return ops.logical_and(masks[0], masks[1])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["seed"] = self.seed
        return config
