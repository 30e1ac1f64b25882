"""`MaxNumBoundingBoxes`: give every sample the same number of bounding boxes, so that
box tensors batch (and keep a static shape in compiled steps)."""

from __future__ import annotations

import numbers
from typing import Any

from lamina import ops
from lamina.layers.layer import Layer
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin


def _fit(values: Any, max_number: int, fill_value: float, axis: int) -> Any:
    """`values` cut or padded with `fill_value` to `max_number` entries along `axis`."""
    shape = list(ops.shape(values))
    shape[axis] = max_number
    filler = ops.cast(ops.full(tuple(shape), fill_value), values.dtype)
    joined = ops.concatenate([values, filler], axis=axis)
    return ops.take(joined, ops.arange(max_number, dtype="int32"), axis=axis)


class MaxNumBoundingBoxes(TFGraphCallMixin, Layer):
    """Cut or pad (with `fill_value`) the ``bounding_boxes`` of a dict input to
    `max_number` boxes per image: ``boxes`` ``(batch, n, 4)`` and ``labels``
    ``(batch, n)``, or without the batch axis. The other entries, and inputs that are not
    dicts, pass through unchanged.

    Args:
        max_number: the number of boxes each image ends with.
        fill_value: the value of padding boxes and labels.
        **kwargs: base `Layer` arguments.

    Example:
        >>> data = {"images": np.zeros((2, 8, 8, 3), "float32"),
        ...         "bounding_boxes": {"boxes": np.ones((2, 3, 4), "float32"),
        ...                            "labels": np.ones((2, 3), "float32")}}
        >>> out = lamina.layers.MaxNumBoundingBoxes(5)(data)
        >>> tuple(out["bounding_boxes"]["boxes"].shape)
        (2, 5, 4)
    """

    def __init__(self, max_number: int, fill_value: float = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not (isinstance(max_number, numbers.Integral) and not isinstance(max_number, bool)
                and max_number > 0):  # fmt: skip
            raise ValueError(
                "MaxNumBoundingBoxes: argument `max_number` must be a positive int. "
                f"Received: max_number={max_number!r}"
            )
        value: Any = fill_value
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(
                "MaxNumBoundingBoxes: argument `fill_value` must be a number. "
                f"Received: fill_value={fill_value!r}"
            )
        self.max_number: int = int(max_number)
        self.fill_value: float = value
        self.built = True

    def _boxes(self, boxes: dict[str, Any], batched: bool) -> dict[str, Any]:
        out = dict(boxes)
        axis = 1 if batched else 0
        for key in ("boxes", "labels"):
            if key in out:
                out[key] = _fit(out[key], self.max_number, self.fill_value, axis)
        return out

    def call(self, inputs: Any) -> Any:
        if not isinstance(inputs, dict):
            return inputs
        if "bounding_boxes" not in inputs or not isinstance(inputs["bounding_boxes"], dict):
            raise ValueError(
                "MaxNumBoundingBoxes: a dict input needs a `bounding_boxes` dict with `boxes` "
                f"(and `labels`). Received keys: {sorted(inputs)}"
            )
        outputs = dict(inputs)
        boxes = inputs["bounding_boxes"]
        batched = len(boxes["boxes"].shape) == 3 if "boxes" in boxes else True
        outputs["bounding_boxes"] = self._boxes(boxes, batched)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        if not isinstance(input_shape, dict):
            return tuple(input_shape)
        shapes = dict(input_shape)
        boxes = dict(shapes["bounding_boxes"])
        for key in ("boxes", "labels"):
            if key in boxes:
                shape = list(boxes[key])
                shape[1 if len(boxes.get("boxes", (0, 0, 0))) == 3 else 0] = self.max_number
                boxes[key] = tuple(shape)
        shapes["bounding_boxes"] = boxes
        return shapes

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        from lamina import tree
        from lamina.ops.symbolic import SymbolicTensor

        if not isinstance(inputs, dict):
            return SymbolicTensor(tuple(inputs.shape), dtype=inputs.dtype)
        # Fresh tensors even for what passes through: an output must not be its own input.
        out = tree.map_structure(lambda t: SymbolicTensor(tuple(t.shape), dtype=t.dtype), inputs)
        boxes = inputs.get("bounding_boxes")
        if isinstance(boxes, dict):
            shapes = self.compute_output_shape(
                {"bounding_boxes": {k: tuple(v.shape) for k, v in boxes.items()}}
            )
            out["bounding_boxes"] = {k: SymbolicTensor(shapes["bounding_boxes"][k], dtype=v.dtype)
                                     for k, v in boxes.items()}  # fmt: skip
        return out

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"max_number": self.max_number, "fill_value": self.fill_value})
        return config
