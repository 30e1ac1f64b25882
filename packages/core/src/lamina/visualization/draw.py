"""Overlays painted with NumPy: box outlines (`draw_bounding_boxes`) and class colours
(`draw_segmentation_masks`). Both return a new array shaped and typed like the images."""

from __future__ import annotations

from typing import Any

import numpy as np

from lamina.visualization._common import channels_last, palette, restore, to_numpy
from lamina.visualization._common import data_format as _data_format


def _colour(fn: str, arg: str, value: Any, channels: int) -> np.ndarray:
    rgb = np.asarray(value, "float64").reshape(-1)
    if rgb.size != 3:
        raise ValueError(
            f"{fn}: argument `{arg}` must be an (R, G, B) triple. Received: {arg}={value!r}"
        )
    if channels == 1:
        return np.array([rgb.mean()])
    if channels <= 3:
        return rgb[:channels]
    return np.concatenate([rgb, np.full(channels - 3, 255.0)])


def _cast_like(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    if np.issubdtype(like.dtype, np.integer):
        # Truncated, as Keras 3's overlays are.
        info = np.iinfo(like.dtype)
        return np.clip(values, info.min, info.max).astype(like.dtype)
    return values.astype(like.dtype)


def _outline(canvas: np.ndarray, box: np.ndarray, colour: np.ndarray, thickness: int) -> None:
    """Paint the `thickness`-pixel border just inside ``box`` (xyxy; pixel ``i`` spans
    ``[i, i + 1)``), clipped to the image."""
    height, width = canvas.shape[:2]
    x1, y1, x2, y2 = (round(float(v)) for v in box)
    x2, y2 = x2 - 1, y2 - 1  # the last covered column and row
    if x2 < x1 or y2 < y1:
        return
    for r0, r1, c0, c1 in (
        (y1, y1 + thickness, x1, x2 + 1), (y2 - thickness + 1, y2 + 1, x1, x2 + 1),
        (y1, y2 + 1, x1, x1 + thickness), (y1, y2 + 1, x2 - thickness + 1, x2 + 1),
    ):  # fmt: skip
        r0, r1 = max(r0, y1, 0), min(r1, y2 + 1, height)
        c0, c1 = max(c0, x1, 0), min(c1, x2 + 1, width)
        if r0 < r1 and c0 < c1:
            canvas[r0:r1, c0:c1] = colour


def draw_bounding_boxes(images: Any, bounding_boxes: dict[str, Any], bounding_box_format: str,
                        class_mapping: dict[int, str] | None = None,
                        color: Any = (128, 128, 128), line_thickness: int = 2,
                        text_thickness: int = 1, font_scale: float = 1.0,
                        data_format: str | None = None) -> np.ndarray:  # fmt: skip
    """Draw box outlines onto a batch of images.

    Boxes labelled -1 (padding) are skipped. Class names are not written into the array
    (Lamina has no font renderer); `plot_bounding_box_gallery` shows them as text.

    Args:
        images: ``(batch, height, width, channels)`` images (channels first per
            `data_format`).
        bounding_boxes: a dict with ``boxes`` ``(batch, n, 4)`` and ``labels``
            ``(batch, n)``.
        bounding_box_format: the boxes' format (see `lamina.utils.bounding_boxes`).
        class_mapping: class id to name (kept for Keras 3; names are not drawn here).
        color: the outline colour, an (R, G, B) triple in the images' value scale.
        line_thickness: the outline width in pixels.
        text_thickness: kept for Keras 3 (no text is drawn).
        font_scale: kept for Keras 3 (no text is drawn).
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Returns:
        A NumPy copy of the images with the outlines, same shape and dtype.

    Example:
        >>> images = np.zeros((1, 8, 8, 3), "uint8")
        >>> boxes = {"boxes": np.array([[[1, 1, 6, 5]]]), "labels": np.array([[0]])}
        >>> out = lamina.visualization.draw_bounding_boxes(images, boxes, "xyxy",
        ...                                                 line_thickness=1)
        >>> int(out[0, 1, 3, 0])
        128
    """
    from lamina.utils import bounding_boxes as bb

    fn = "draw_bounding_boxes"
    fmt = _data_format(fn, data_format)
    x = channels_last(fn, images, fmt)
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes:
        raise ValueError(
            f"{fn}: argument `bounding_boxes` must be a dict with `boxes` and `labels`. "
            f"Received: bounding_boxes={type(bounding_boxes).__name__}"
        )
    if int(line_thickness) < 1:
        raise ValueError(
            f"{fn}: argument `line_thickness` must be a positive int. "
            f"Received: line_thickness={line_thickness!r}"
        )
    height, width = x.shape[1], x.shape[2]
    boxes = to_numpy(bb.convert_format(bounding_boxes["boxes"], bounding_box_format, "xyxy",
                                       height=height, width=width))  # fmt: skip
    labels = bounding_boxes.get("labels")
    labels = np.zeros(boxes.shape[:-1]) if labels is None else to_numpy(labels)
    colour = _colour(fn, "color", color, x.shape[-1])
    canvas = x.astype("float64")
    for i in range(x.shape[0]):
        for box, label in zip(boxes[i], labels[i], strict=True):
            if int(label) != -1:
                _outline(canvas[i], box, colour, int(line_thickness))
    return restore(_cast_like(canvas, x), fmt)


def draw_segmentation_masks(images: Any, segmentation_masks: Any, num_classes: int | None = None,
                            color_mapping: dict[int, Any] | None = None, alpha: float = 0.8,
                            blend: bool = True, ignore_index: int = -1,
                            data_format: str | None = None) -> np.ndarray:  # fmt: skip
    """Colour each pixel by its class in a segmentation mask, over the images.

    Args:
        images: ``(batch, height, width, channels)`` images (channels first per
            `data_format`).
        segmentation_masks: ``(batch, height, width)`` or with one channel axis, class ids.
        num_classes: the number of classes (default: the largest id in the masks, plus one).
        color_mapping: class id to (R, G, B); default: a palette of distinct colours.
        alpha: the colour's weight when blending, in [0, 1].
        blend: mix the colour with the image (``(1 - alpha) image + alpha colour``); False
            paints the colour.
        ignore_index: the class id left unpainted.
        data_format: "channels_last" or "channels_first" (default: the global setting).

    Returns:
        A NumPy copy of the images with the classes coloured, same shape and dtype.

    Example:
        >>> images = np.zeros((1, 2, 2, 3), "uint8")
        >>> masks = np.array([[[0, 1], [1, -1]]])
        >>> out = lamina.visualization.draw_segmentation_masks(
        ...     images, masks, color_mapping={0: (255, 0, 0), 1: (0, 0, 255)}, blend=False)
        >>> out[0, 0, 1].tolist()
        [0, 0, 255]
    """
    fn = "draw_segmentation_masks"
    fmt = _data_format(fn, data_format)
    x = channels_last(fn, images, fmt)
    masks = to_numpy(segmentation_masks)
    if masks.ndim == 4:
        masks = masks[:, 0] if fmt == "channels_first" else masks[..., 0]
    if masks.shape != x.shape[:3]:
        raise ValueError(
            f"{fn}: argument `segmentation_masks` must be (batch, height, width) like the "
            f"images {x.shape[:3]}, with at most one channel. Received: "
            f"segmentation_masks.shape={to_numpy(segmentation_masks).shape}"
        )
    if not 0.0 <= float(alpha) <= 1.0:
        raise ValueError(f"{fn}: argument `alpha` must be in [0, 1]. Received: alpha={alpha!r}")
    masks = masks.astype("int64")
    if num_classes is None:
        num_classes = int(masks.max()) + 1 if masks.size else 0
    colours = palette(int(num_classes)) if color_mapping is None else dict(color_mapping)
    canvas = x.astype("float64")
    for class_id, rgb in colours.items():
        if int(class_id) == int(ignore_index):
            continue
        where = masks == int(class_id)
        colour = _colour(fn, "color_mapping", rgb, x.shape[-1])
        painted = (1.0 - alpha) * canvas + alpha * colour if blend else colour
        canvas = np.where(where[..., None], painted, canvas)
    return restore(_cast_like(canvas, x), fmt)
