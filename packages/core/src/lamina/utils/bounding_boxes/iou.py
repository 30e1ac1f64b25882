"""Overlap measures of boxes: pairwise IoU and element-wise complete IoU (CIoU)."""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.utils.bounding_boxes.formats import _check_format, _to_xyxy


def _area(parts: list[Any]) -> Any:
    x1, y1, x2, y2 = parts
    return ops.multiply(ops.maximum(ops.subtract(x2, x1), 0.0),
                        ops.maximum(ops.subtract(y2, y1), 0.0))  # fmt: skip


def _absolute(boxes: Any, fmt: str, image_shape: Any, arg: str) -> list[Any]:
    fmt = _check_format("bounding_box_format", fmt)
    height = width = None
    if image_shape is not None:
        height, width = image_shape[0], image_shape[1]
    if fmt.startswith("rel_") and image_shape is None:
        raise ValueError(
            f"a relative bounding_box_format ({fmt!r}) needs `image_shape` for {arg}. "
            "Received: image_shape=None"
        )
    return _to_xyxy(ops.cast(boxes, "float32"), fmt, height, width)


def compute_iou(boxes1: Any, boxes2: Any, bounding_box_format: str, use_masking: bool = False,
                mask_val: float = -1, image_shape: Any = None) -> Any:  # fmt: skip
    """Intersection over union of every box of `boxes1` with every box of `boxes2`.

    Args:
        boxes1: ``(..., n, 4)`` boxes.
        boxes2: ``(..., m, 4)`` boxes (the same leading axes, or none).
        bounding_box_format: the boxes' format.
        use_masking: give pairs with a padding box (all four numbers negative) `mask_val`.
        mask_val: the value of masked pairs.
        image_shape: ``(height, width, ...)``, needed for relative formats.

    Returns:
        The ``(..., n, m)`` IoU values (0 where the union is empty).

    Example:
        >>> a = np.array([[0.0, 0.0, 2.0, 2.0]])
        >>> b = np.array([[1.0, 1.0, 3.0, 3.0], [0.0, 0.0, 2.0, 2.0]])
        >>> lamina.utils.bounding_boxes.compute_iou(a, b, "xyxy")  # [[0.1428..., 1.]]
    """
    p1 = [ops.expand_dims(t, -1) for t in _absolute(boxes1, bounding_box_format, image_shape,
                                                     "boxes1")]  # fmt: skip
    p2 = [ops.expand_dims(t, -2) for t in _absolute(boxes2, bounding_box_format, image_shape,
                                                     "boxes2")]  # fmt: skip
    inner = [ops.maximum(p1[0], p2[0]), ops.maximum(p1[1], p2[1]),
             ops.minimum(p1[2], p2[2]), ops.minimum(p1[3], p2[3])]  # fmt: skip
    overlap = _area(inner)
    union = ops.subtract(ops.add(_area(p1), _area(p2)), overlap)
    iou = ops.divide(overlap, ops.maximum(union, 1e-12))
    iou = ops.where(ops.greater(union, 0.0), iou, 0.0)
    if use_masking:
        pad1 = ops.expand_dims(ops.all(ops.less(ops.cast(boxes1, "float32"), 0.0), axis=-1), -1)
        pad2 = ops.expand_dims(ops.all(ops.less(ops.cast(boxes2, "float32"), 0.0), axis=-1), -2)
        iou = ops.where(ops.logical_or(pad1, pad2), float(mask_val), iou)
    return iou


def compute_ciou(boxes1: Any, boxes2: Any, bounding_box_format: str,
                 image_shape: Any = None) -> Any:  # fmt: skip
    """Complete IoU of matching boxes (element-wise): IoU minus the squared centre distance
    over the squared diagonal of the enclosing box, minus ``alpha v`` with ``v`` the
    aspect-ratio mismatch ``4 / pi^2 (atan(w2 / h2) - atan(w1 / h1))^2``.

    Args:
        boxes1: ``(..., 4)`` boxes.
        boxes2: ``(..., 4)`` boxes, broadcastable with `boxes1`.
        bounding_box_format: the boxes' format.
        image_shape: ``(height, width, ...)``, needed for relative formats.

    Returns:
        The ``(...)`` CIoU values, in [-1, 1].

    Example:
        >>> a = np.array([[0.0, 0.0, 2.0, 2.0]])
        >>> lamina.utils.bounding_boxes.compute_ciou(a, a, "xyxy")  # [1.]
    """
    eps = 1e-7
    x1a, y1a, x2a, y2a = _absolute(boxes1, bounding_box_format, image_shape, "boxes1")
    x1b, y1b, x2b, y2b = _absolute(boxes2, bounding_box_format, image_shape, "boxes2")
    inner = [ops.maximum(x1a, x1b), ops.maximum(y1a, y1b), ops.minimum(x2a, x2b),
             ops.minimum(y2a, y2b)]  # fmt: skip
    overlap = _area(inner)
    union = ops.subtract(ops.add(_area([x1a, y1a, x2a, y2a]), _area([x1b, y1b, x2b, y2b])),
                         overlap)  # fmt: skip
    iou = ops.divide(overlap, ops.add(union, eps))
    cw = ops.subtract(ops.maximum(x2a, x2b), ops.minimum(x1a, x1b))
    ch = ops.subtract(ops.maximum(y2a, y2b), ops.minimum(y1a, y1b))
    diagonal = ops.add(ops.add(ops.square(cw), ops.square(ch)), eps)
    dx = ops.divide(ops.subtract(ops.add(x1b, x2b), ops.add(x1a, x2a)), 2.0)
    dy = ops.divide(ops.subtract(ops.add(y1b, y2b), ops.add(y1a, y2a)), 2.0)
    distance = ops.add(ops.square(dx), ops.square(dy))
    wa, ha = ops.subtract(x2a, x1a), ops.add(ops.subtract(y2a, y1a), eps)
    wb, hb = ops.subtract(x2b, x1b), ops.add(ops.subtract(y2b, y1b), eps)
    v = ops.multiply(4.0 / math.pi**2,
                     ops.square(ops.subtract(ops.arctan(ops.divide(wb, hb)),
                                             ops.arctan(ops.divide(wa, ha)))))  # fmt: skip
    alpha = ops.divide(v, ops.add(ops.add(ops.subtract(1.0, iou), v), eps))
    return ops.subtract(ops.subtract(iou, ops.divide(distance, diagonal)), ops.multiply(alpha, v))
