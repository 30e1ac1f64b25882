"""Box formats: the conversions between them and clipping to the image.

Formats (the last axis holds 4 numbers): "xyxy" (left, top, right, bottom), "yxyx",
"xywh" (left, top, width, height), "center_xywh", "center_yxhw", and the relative
"rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh" (fractions of the image's width and
height, which the conversions then need).
"""

from __future__ import annotations

from typing import Any

from lamina import ops

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")  # fmt: skip


def _check_format(arg: str, value: Any) -> str:
    if value in FORMATS:
        return str(value)
    raise ValueError(f"argument `{arg}` must be one of {FORMATS}. Received: {arg}={value!r}")


def _parts(boxes: Any) -> list[Any]:
    return [boxes[..., i] for i in range(4)]


def _to_xyxy(boxes: Any, fmt: str, height: Any, width: Any) -> list[Any]:
    a, b, c, d = _parts(boxes)
    base = fmt[4:] if fmt.startswith("rel_") else fmt
    if base == "xyxy":
        out = [a, b, c, d]
    elif base == "yxyx":
        out = [b, a, d, c]
    elif base == "xywh":
        out = [a, b, ops.add(a, c), ops.add(b, d)]
    elif base == "center_xywh":
        out = [ops.subtract(a, c / 2), ops.subtract(b, d / 2), ops.add(a, c / 2),
               ops.add(b, d / 2)]  # fmt: skip
    else:  # center_yxhw
        out = [ops.subtract(b, d / 2), ops.subtract(a, c / 2), ops.add(b, d / 2),
               ops.add(a, c / 2)]  # fmt: skip
    if fmt.startswith("rel_"):
        out = [ops.multiply(out[0], width), ops.multiply(out[1], height),
               ops.multiply(out[2], width), ops.multiply(out[3], height)]  # fmt: skip
    return out


def _from_xyxy(parts: list[Any], fmt: str, height: Any, width: Any) -> Any:
    x1, y1, x2, y2 = parts
    if fmt.startswith("rel_"):
        x1, x2 = ops.divide(x1, width), ops.divide(x2, width)
        y1, y2 = ops.divide(y1, height), ops.divide(y2, height)
    base = fmt[4:] if fmt.startswith("rel_") else fmt
    w, h = ops.subtract(x2, x1), ops.subtract(y2, y1)
    if base == "xyxy":
        out = [x1, y1, x2, y2]
    elif base == "yxyx":
        out = [y1, x1, y2, x2]
    elif base == "xywh":
        out = [x1, y1, w, h]
    elif base == "center_xywh":
        out = [ops.add(x1, w / 2), ops.add(y1, h / 2), w, h]
    else:
        out = [ops.add(y1, h / 2), ops.add(x1, w / 2), h, w]
    return ops.stack(out, axis=-1)


def _size(fmt: str, height: Any, width: Any, arg: str = "bounding_box_format") -> None:
    if fmt.startswith("rel_") and (height is None or width is None):
        raise ValueError(
            f"a relative {arg} ({fmt!r}) needs the image's `height` and `width`. "
            f"Received: height={height!r}, width={width!r}"
        )


def convert_format(boxes: Any, source: str, target: str, height: Any = None,
                   width: Any = None, dtype: str = "float32") -> Any:  # fmt: skip
    """Convert boxes between formats (`height`/`width` needed for relative ones).

    Args:
        boxes: a tensor whose last axis holds 4 numbers, or a dict with ``boxes``.
        source: the format of `boxes`.
        target: the format wanted.
        height: the image height (relative formats).
        width: the image width (relative formats).
        dtype: the output dtype.

    Returns:
        The converted boxes (a dict with converted ``boxes`` for a dict input).

    Example:
        >>> b = np.array([[10.0, 20.0, 30.0, 60.0]])
        >>> lamina.utils.bounding_boxes.convert_format(b, "xyxy", "center_xywh")
        ... # [[20., 40., 20., 40.]]
    """
    if isinstance(boxes, dict):
        out = dict(boxes)
        out["boxes"] = convert_format(boxes["boxes"], source, target, height, width, dtype)
        return out
    source, target = _check_format("source", source), _check_format("target", target)
    _size(source, height, width, "source")
    _size(target, height, width, "target")
    x = ops.cast(boxes, "float32")
    if source == target:
        return ops.cast(x, dtype)
    return ops.cast(_from_xyxy(_to_xyxy(x, source, height, width), target, height, width), dtype)


def clip_to_image_size(bounding_boxes: dict[str, Any], height: Any = None, width: Any = None,
                       bounding_box_format: str = "xyxy") -> dict[str, Any]:  # fmt: skip
    """Clip boxes to the image; boxes left with no area get label -1.

    Args:
        bounding_boxes: a dict with ``boxes`` (``(..., n, 4)``) and ``labels`` (``(..., n)``).
        height: the image height (relative formats clip to [0, 1] without it).
        width: the image width.
        bounding_box_format: the boxes' format.

    Returns:
        The dict with clipped ``boxes`` and updated ``labels``.

    Example:
        >>> data = {"boxes": np.array([[-5.0, 2.0, 20.0, 8.0]]), "labels": np.array([1])}
        >>> lamina.utils.bounding_boxes.clip_to_image_size(data, 10, 10)["boxes"]
        ... # [[0., 2., 10., 8.]]
    """
    fmt = _check_format("bounding_box_format", bounding_box_format)
    relative = fmt.startswith("rel_")
    if not relative and (height is None or width is None):
        raise ValueError(
            "clip_to_image_size: an absolute bounding_box_format needs `height` and `width`. "
            f"Received: height={height!r}, width={width!r}"
        )
    h, w = (1.0, 1.0) if relative else (height, width)
    plain = fmt[4:] if relative else fmt
    x1, y1, x2, y2 = _to_xyxy(ops.cast(bounding_boxes["boxes"], "float32"), plain, 1.0, 1.0)
    x1, x2 = ops.clip(x1, 0.0, w), ops.clip(x2, 0.0, w)
    y1, y2 = ops.clip(y1, 0.0, h), ops.clip(y2, 0.0, h)
    empty = ops.logical_or(ops.less_equal(x2, x1), ops.less_equal(y2, y1))
    out = dict(bounding_boxes)
    out["boxes"] = _from_xyxy([x1, y1, x2, y2], plain, 1.0, 1.0)
    if "labels" in bounding_boxes:
        labels = bounding_boxes["labels"]
        out["labels"] = ops.where(empty, ops.cast(-1, ops.dtype(labels)), labels)
    return out
