"""Anchor deltas of detection heads: boxes encoded relative to anchor boxes and back."""

from __future__ import annotations

from typing import Any

from lamina import config, ops
from lamina.utils.bounding_boxes.formats import convert_format

_ENCODINGS = ("center_xywh", "center_yxhw")


def _encoding(arg: str, value: Any) -> str:
    if value in _ENCODINGS:
        return str(value)
    raise ValueError(f"argument `{arg}` must be one of {_ENCODINGS}. Received: {arg}={value!r}")


def _variance(value: Any) -> Any:
    if value is None:
        return None
    v = ops.convert_to_tensor(value, dtype="float32")
    if len(v.shape) == 0 or v.shape[-1] != 4:
        raise ValueError(
            "argument `variance` must hold 4 numbers (one per box coordinate). "
            f"Received: variance={value!r}"
        )
    return v


def _convert(boxes: Any, source: str, target: str, image_shape: Any) -> Any:
    height = width = None
    if image_shape is not None:
        height, width = image_shape[0], image_shape[1]
    return convert_format(boxes, source, target, height=height, width=width)


def encode_box_to_deltas(anchors: Any, boxes: Any, anchor_format: str, box_format: str,
                         encoding_format: str = "center_yxhw", variance: Any = None,
                         image_shape: Any = None) -> Any:  # fmt: skip
    """Encode boxes as deltas from anchors: the centre offsets in anchor sizes and the
    log ratios of the sizes (``(dy, dx, log(h / ha), log(w / wa))`` for "center_yxhw"),
    each divided by `variance` when given.

    Args:
        anchors: ``(..., 4)`` anchor boxes.
        boxes: ``(..., 4)`` boxes, broadcastable with `anchors`.
        anchor_format: the anchors' format.
        box_format: the boxes' format.
        encoding_format: "center_yxhw" or "center_xywh", the order of the deltas.
        variance: 4 numbers that divide the deltas (or None).
        image_shape: ``(height, width, ...)``, needed for relative formats.

    Returns:
        The ``(..., 4)`` deltas (float32).

    Example:
        >>> a = np.array([[0.0, 0.0, 10.0, 10.0]])
        >>> b = np.array([[2.0, 0.0, 12.0, 20.0]])
        >>> lamina.utils.bounding_boxes.encode_box_to_deltas(a, b, "xyxy", "xyxy")
        ... # [[0.5, 0.2, 0.6931, 0.]]
    """
    encoding = _encoding("encoding_format", encoding_format)
    var = _variance(variance)
    eps = config.epsilon()
    a = _convert(anchors, anchor_format, encoding, image_shape)
    b = _convert(boxes, box_format, encoding, image_shape)
    a_size = ops.maximum(a[..., 2:], eps)
    b_size = ops.maximum(b[..., 2:], eps)
    deltas = ops.concatenate(
        [ops.divide(ops.subtract(b[..., :2], a[..., :2]), a_size), ops.log(b_size / a_size)],
        axis=-1,
    )
    return deltas if var is None else ops.divide(deltas, var)


def decode_deltas_to_boxes(anchors: Any, boxes_delta: Any, anchor_format: str,
                           box_format: str, encoded_format: str = "center_yxhw",
                           variance: Any = None, image_shape: Any = None) -> Any:  # fmt: skip
    """Boxes from their deltas to anchors (the inverse of `encode_box_to_deltas`).

    Args:
        anchors: ``(..., 4)`` anchors, or a dict of them per feature level.
        boxes_delta: ``(..., 4)`` deltas (a dict with the same keys for dict anchors).
        anchor_format: the anchors' format.
        box_format: the format of the boxes returned.
        encoded_format: "center_yxhw" or "center_xywh", the order of the deltas.
        variance: the 4 numbers the deltas were divided by (or None).
        image_shape: ``(height, width, ...)``, needed for relative formats.

    Returns:
        The ``(..., 4)`` boxes in `box_format` (a dict per level for dict anchors).

    Example:
        >>> a = np.array([[0.0, 0.0, 10.0, 10.0]])
        >>> d = np.array([[0.5, 0.2, 0.6931, 0.0]])
        >>> lamina.utils.bounding_boxes.decode_deltas_to_boxes(a, d, "xyxy", "xyxy")
        ... # [[2., 0., 12., 20.]]
    """
    encoding = _encoding("encoded_format", encoded_format)
    var = _variance(variance)

    def decode(anchor: Any, delta: Any) -> Any:
        a = _convert(anchor, anchor_format, encoding, image_shape)
        d = ops.cast(delta, "float32")
        if var is not None:
            d = ops.multiply(d, var)
        centre = ops.add(ops.multiply(d[..., :2], a[..., 2:]), a[..., :2])
        size = ops.multiply(ops.exp(d[..., 2:]), a[..., 2:])
        return _convert(ops.concatenate([centre, size], axis=-1), encoding, box_format,
                        image_shape)  # fmt: skip

    if isinstance(anchors, dict):
        if not isinstance(boxes_delta, dict) or set(boxes_delta) != set(anchors):
            raise ValueError(
                "decode_deltas_to_boxes: dict `anchors` need a `boxes_delta` dict with the "
                f"same levels. Received: anchors levels={sorted(anchors)}, "
                f"boxes_delta={type(boxes_delta).__name__}"
            )
        return {level: decode(anchors[level], boxes_delta[level]) for level in anchors}
    return decode(anchors, boxes_delta)
