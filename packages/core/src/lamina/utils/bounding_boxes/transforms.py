"""Boxes that follow their image: an affine warp (`affine_transform`), a crop and a pad,
and the corner mapping that the image preprocessing layers share with them."""

from __future__ import annotations

import math
from typing import Any

from lamina import ops
from lamina.utils.bounding_boxes.formats import _check_format, _from_xyxy, _to_xyxy


def _absolute_format(fn: str, value: Any) -> str:
    fmt = _check_format("bounding_box_format", value)
    if fmt.startswith("rel_"):
        raise ValueError(
            f"{fn}: relative boxes cannot move without the size of the image they are "
            "relative to; pass an absolute bounding_box_format (e.g. 'xyxy'). "
            f"Received: bounding_box_format={fmt!r}"
        )
    return fmt


def _per_image(value: Any, boxes: Any) -> Any:
    """A number or a ``(batch,)`` parameter, shaped to broadcast over ``(batch, n)``
    coordinates (left as is for unbatched ``(n, 4)`` boxes)."""
    v = ops.convert_to_tensor(value, dtype="float32")
    if len(v.shape) == 0 or len(boxes.shape) < 3:
        return v
    return ops.reshape(v, (-1,) + (1,) * (len(boxes.shape) - 2))


def map_corners(parts: list[Any], matrix: list[Any]) -> list[Any]:
    """xyxy box parts through the affine map ``x' = m0 x + m1 y + m2``,
    ``y' = m3 x + m4 y + m5`` (or, given nine coefficients, the projective map that also
    divides both by ``m6 x + m7 y + m8``): the axis-aligned box around the four moved
    corners."""
    x1, y1, x2, y2 = parts
    xs, ys = [], []
    for x, y in ((x1, y1), (x2, y1), (x1, y2), (x2, y2)):
        row = [ops.add(ops.add(ops.multiply(matrix[i], x), ops.multiply(matrix[i + 1], y)),
                       matrix[i + 2]) for i in range(0, len(matrix), 3)]  # fmt: skip
        if len(row) == 3:
            row = [ops.divide(row[0], row[2]), ops.divide(row[1], row[2])]
        xs.append(row[0])
        ys.append(row[1])
    low_x, high_x, low_y, high_y = xs[0], xs[0], ys[0], ys[0]
    for x, y in zip(xs[1:], ys[1:], strict=True):
        low_x, high_x = ops.minimum(low_x, x), ops.maximum(high_x, x)
        low_y, high_y = ops.minimum(low_y, y), ops.maximum(high_y, y)
    return [low_x, low_y, high_x, high_y]


def affine_transform(boxes: Any, angle: Any, translate_x: Any, translate_y: Any, scale: Any,
                     shear_x: Any, shear_y: Any, height: Any, width: Any,
                     center_x: Any = None, center_y: Any = None,
                     bounding_box_format: str = "xyxy") -> Any:  # fmt: skip
    """Move boxes as their image moves under an affine warp about a centre point.

    A point ``p`` goes to ``c + scale * A (p - c + t)`` as in Keras 3: ``c`` the centre,
    ``t`` the translation (both given as fractions of ``width - 1`` and ``height - 1``,
    pixel-index units), ``A`` the rotation by `angle` (positive turns the picture
    counter-clockwise on screen, y pointing down) combined with the shears (alone,
    ``[[1, tan(shear_x)], [0, 1]]`` and ``[[1, 0], [tan(shear_y), 1]]``). Each box
    becomes the box around its four moved corners; boxes are not clipped (see
    `clip_to_image_size`).

    Args:
        boxes: ``(n, 4)`` or ``(batch, n, 4)`` boxes.
        angle: the rotation in degrees, a number or one per image ``(batch,)``.
        translate_x: the horizontal move, a fraction of ``width - 1`` (number or
            ``(batch,)``).
        translate_y: the vertical move, a fraction of ``height - 1``.
        scale: the scale factor (1: no scaling).
        shear_x: the horizontal shear angle in degrees.
        shear_y: the vertical shear angle in degrees.
        height: the image height.
        width: the image width.
        center_x: the centre's x as a fraction of ``width - 1`` (default 0.5).
        center_y: the centre's y as a fraction of ``height - 1`` (default 0.5).
        bounding_box_format: the boxes' format (relative ones use `height` and `width`).

    Returns:
        The moved boxes, shaped and formatted as `boxes` (float32).

    Example:
        >>> b = np.array([[0.0, 0.0, 10.0, 20.0]])
        >>> lamina.utils.bounding_boxes.affine_transform(b, 0, 0.5, 0, 1, 0, 0, 41, 41)
        ... # [[20., 0., 30., 20.]]
    """
    fmt = _check_format("bounding_box_format", bounding_box_format)
    x = ops.cast(boxes, "float32")
    parts = _to_xyxy(x, fmt, height, width)

    def per(v: Any) -> Any:
        return _per_image(v, x)

    theta = ops.multiply(per(angle), math.pi / 180.0)
    phi_y = ops.multiply(per(shear_y), math.pi / 180.0)
    tan_x = ops.tan(ops.multiply(per(shear_x), math.pi / 180.0))
    # The rotation-with-shear of Keras 3: pure rotations are R(angle), pure shears
    # [[1, tan(shear_x)], [0, 1]] and [[1, 0], [tan(shear_y), 1]].
    cos_k = ops.divide(ops.cos(ops.subtract(theta, phi_y)), ops.cos(phi_y))
    sin_k = ops.divide(ops.sin(ops.subtract(theta, phi_y)), ops.cos(phi_y))
    s = per(scale)
    a00 = ops.multiply(s, ops.add(ops.cos(theta), ops.multiply(sin_k, tan_x)))
    a01 = ops.multiply(s, ops.add(ops.multiply(cos_k, tan_x), ops.sin(theta)))
    a10 = ops.negative(ops.multiply(s, sin_k))
    a11 = ops.multiply(s, cos_k)
    # Fractions count in pixel indices, of ``width - 1`` and ``height - 1``, as in Keras 3;
    # the translation applies before the linear part: p' = c + A (p - c + t).
    h = ops.subtract(ops.cast(height, "float32"), 1.0)
    w = ops.subtract(ops.cast(width, "float32"), 1.0)
    cx = ops.multiply(per(0.5 if center_x is None else center_x), w)
    cy = ops.multiply(per(0.5 if center_y is None else center_y), h)
    dx = ops.subtract(ops.multiply(per(translate_x), w), cx)
    dy = ops.subtract(ops.multiply(per(translate_y), h), cy)
    m2 = ops.add(cx, ops.add(ops.multiply(a00, dx), ops.multiply(a01, dy)))
    m5 = ops.add(cy, ops.add(ops.multiply(a10, dx), ops.multiply(a11, dy)))
    moved = map_corners(parts, [a00, a01, m2, a10, a11, m5])
    return _from_xyxy(moved, fmt, height, width)


def _shift(fn: str, boxes: Any, top: Any, left: Any, fmt: str) -> list[Any]:
    x = ops.cast(boxes, "float32")
    x1, y1, x2, y2 = _to_xyxy(x, _absolute_format(fn, fmt), None, None)
    dy, dx = _per_image(top, x), _per_image(left, x)
    return [ops.add(x1, dx), ops.add(y1, dy), ops.add(x2, dx), ops.add(y2, dy)]


def crop(boxes: Any, top: Any, left: Any, height: Any, width: Any,
         bounding_box_format: str = "xyxy") -> Any:  # fmt: skip
    """Boxes of the ``(height, width)`` window cut at ``(top, left)`` from their image:
    shifted to the window's origin and clipped to it (None skips clipping an axis).

    Args:
        boxes: ``(n, 4)`` or ``(batch, n, 4)`` boxes in an absolute format.
        top: the window's first row (a number or one per image).
        left: the window's first column.
        height: the window's height.
        width: the window's width.
        bounding_box_format: the boxes' format.

    Returns:
        The boxes in the window's coordinates, in `bounding_box_format` (float32).

    Example:
        >>> b = np.array([[5.0, 5.0, 30.0, 15.0]])
        >>> lamina.utils.bounding_boxes.crop(b, 2, 10, 10, 10)  # [[0., 3., 10., 10.]]
    """
    dy = ops.negative(ops.convert_to_tensor(top, dtype="float32"))
    dx = ops.negative(ops.convert_to_tensor(left, dtype="float32"))
    parts = _shift("crop", boxes, dy, dx, bounding_box_format)
    x1, y1, x2, y2 = parts
    if width is not None:
        x1, x2 = ops.clip(x1, 0.0, float(width)), ops.clip(x2, 0.0, float(width))
    if height is not None:
        y1, y2 = ops.clip(y1, 0.0, float(height)), ops.clip(y2, 0.0, float(height))
    return _from_xyxy([x1, y1, x2, y2], bounding_box_format, None, None)


def pad(boxes: Any, top: Any, left: Any, height: Any = None, width: Any = None,
        bounding_box_format: str = "xyxy") -> Any:  # fmt: skip
    """Boxes of an image padded with `top` rows above and `left` columns on the left.

    Args:
        boxes: ``(n, 4)`` or ``(batch, n, 4)`` boxes in an absolute format.
        top: the rows added above (a number or one per image).
        left: the columns added on the left.
        height: the padded height (unused by absolute formats; kept for Keras 3).
        width: the padded width (likewise).
        bounding_box_format: the boxes' format.

    Returns:
        The boxes in the padded image's coordinates, in `bounding_box_format` (float32).

    Example:
        >>> b = np.array([[5.0, 5.0, 30.0, 15.0]])
        >>> lamina.utils.bounding_boxes.pad(b, 2, 10)  # [[15., 7., 40., 17.]]
    """
    parts = _shift("pad", boxes, top, left, bounding_box_format)
    return _from_xyxy(parts, bounding_box_format, None, None)
