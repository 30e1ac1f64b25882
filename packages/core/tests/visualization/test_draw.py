"""lamina.visualization's array overlays (NumPy only): box outlines against pixels set by
explicit loops, mask colours against the blend formula (exact after truncation to uint8,
as Keras 3 casts)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops, visualization
from lamina.utils import bounding_boxes as bb

RNG = np.random.default_rng(3)
IMAGES = RNG.integers(0, 200, (2, 10, 12, 3)).astype("uint8")
XYXY = np.array([[[2, 1, 9, 7], [0, 0, 4, 4]], [[5, 3, 12, 10], [1, 1, 3, 3]]], "float32")
LABELS = np.array([[0, -1], [2, 1]], "int32")


def _outlined(images: np.ndarray, boxes: np.ndarray, labels: np.ndarray, colour: tuple,
              t: int) -> np.ndarray:  # fmt: skip
    out = images.copy()
    for i in range(images.shape[0]):
        for (x1, y1, x2, y2), label in zip(boxes[i].astype(int), labels[i], strict=True):
            if label == -1:
                continue
            for r in range(y1, y2):
                for c in range(x1, x2):
                    if r < y1 + t or r >= y2 - t or c < x1 + t or c >= x2 - t:
                        out[i, r, c] = colour
    return out


def test_draw_bounding_boxes() -> None:
    boxes = {"boxes": ops.convert_to_tensor(bb.convert_format(XYXY, "xyxy", "center_xywh")),
             "labels": LABELS}  # fmt: skip
    out = visualization.draw_bounding_boxes(
        IMAGES, boxes, "center_xywh", color=(255, 0, 40), line_thickness=2,
        data_format="channels_last",
    )  # fmt: skip
    assert isinstance(out, np.ndarray) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, _outlined(IMAGES, XYXY, LABELS, (255, 0, 40), 2))
    assert not np.shares_memory(out, IMAGES)
    # channels_first gives the same pixels, transposed; floats stay floats.
    first = visualization.draw_bounding_boxes(
        np.moveaxis(IMAGES, -1, 1).astype("float32"), {"boxes": XYXY, "labels": LABELS}, "xyxy",
        color=(255, 0, 40), data_format="channels_first",
    )  # fmt: skip
    assert first.dtype == np.float32
    np.testing.assert_array_equal(np.moveaxis(first, 1, -1), out)


def test_draw_bounding_boxes_errors() -> None:
    boxes = {"boxes": XYXY, "labels": LABELS}
    with pytest.raises(ValueError, match=r"images\.shape"):
        visualization.draw_bounding_boxes(IMAGES[0], boxes, "xyxy")
    with pytest.raises(ValueError, match="`color`"):
        visualization.draw_bounding_boxes(IMAGES, boxes, "xyxy", color=(1, 2))
    with pytest.raises(ValueError, match="`bounding_boxes`"):
        visualization.draw_bounding_boxes(IMAGES, XYXY, "xyxy")


def test_draw_segmentation_masks() -> None:
    masks = RNG.integers(-1, 3, (2, 10, 12, 1))
    colours = {0: (255, 0, 0), 1: (0, 255, 0), 2: (0, 0, 255)}
    out = visualization.draw_segmentation_masks(IMAGES, masks, color_mapping=colours, alpha=0.25,
                                                data_format="channels_last")  # fmt: skip
    table = np.array([colours[0], colours[1], colours[2]], "float64")
    m = masks[..., 0]
    blended = 0.75 * IMAGES + 0.25 * table[np.clip(m, 0, 2)]
    expected = np.where((m >= 0)[..., None], blended, IMAGES).astype("uint8")  # truncated
    np.testing.assert_array_equal(out, expected)
    painted = visualization.draw_segmentation_masks(IMAGES, m, blend=False, ignore_index=0,
                                                    data_format="channels_last")  # fmt: skip
    np.testing.assert_array_equal(painted[m <= 0], IMAGES[m <= 0])
    colour_of_2 = painted[m == 2]
    assert len(np.unique(colour_of_2, axis=0)) == 1
    assert not np.array_equal(colour_of_2[0], painted[m == 1][0])
    with pytest.raises(ValueError, match=r"segmentation_masks\.shape"):
        visualization.draw_segmentation_masks(IMAGES, m[:, :5], data_format="channels_last")
    with pytest.raises(ValueError, match="alpha"):
        visualization.draw_segmentation_masks(IMAGES, m, alpha=2.0, data_format="channels_last")
