"""MaxNumBoundingBoxes: the layer contract on every backend (images pass through), and
boxes/labels cut or padded to the set number, batched or not (exact)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops
from lamina.testing import check_layer

RNG = np.random.default_rng(13)
BOXES = RNG.uniform(0, 50, size=(2, 3, 4)).astype("float32")
LABELS = np.array([[1, 2, 3], [4, 5, 6]], "float32")


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _data(boxes: np.ndarray, labels: np.ndarray) -> dict:
    images = np.zeros((*boxes.shape[:-2], 4, 4, 3), "float32")
    return {"images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}}


def test_contract() -> None:
    check_layer(
        layers.MaxNumBoundingBoxes, {"max_number": 4}, input_shape=(2, 6, 6, 3),
        expected_output_shape=(2, 6, 6, 3), expected_num_trainable_weights=0,
    )  # fmt: skip


def test_pads_and_cuts() -> None:
    out = layers.MaxNumBoundingBoxes(5, fill_value=-2)(_data(BOXES, LABELS))
    boxes, labels = _np(out["bounding_boxes"]["boxes"]), _np(out["bounding_boxes"]["labels"])
    np.testing.assert_array_equal(boxes[:, :3], BOXES)
    assert boxes.shape == (2, 5, 4) and np.all(boxes[:, 3:] == -2)
    np.testing.assert_array_equal(labels, np.pad(LABELS, [(0, 0), (0, 2)], constant_values=-2))
    np.testing.assert_array_equal(_np(out["images"]), np.zeros((2, 4, 4, 3)))
    cut = layers.MaxNumBoundingBoxes(2)(_data(BOXES, LABELS))
    np.testing.assert_array_equal(_np(cut["bounding_boxes"]["boxes"]), BOXES[:, :2])
    single = layers.MaxNumBoundingBoxes(4)(_data(BOXES[0], LABELS[0]))
    np.testing.assert_array_equal(_np(single["bounding_boxes"]["labels"]), [1, 2, 3, -1])
    assert layers.MaxNumBoundingBoxes(4).compute_output_shape(
        {"images": (2, 4, 4, 3), "bounding_boxes": {"boxes": (2, 3, 4), "labels": (2, 3)}}
    )["bounding_boxes"] == {"boxes": (2, 4, 4), "labels": (2, 4)}


def test_config_and_errors() -> None:
    config = layers.MaxNumBoundingBoxes(7, fill_value=0).get_config()
    assert layers.MaxNumBoundingBoxes.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="`max_number`"):
        layers.MaxNumBoundingBoxes(0)
    with pytest.raises(ValueError, match="`fill_value`"):
        layers.MaxNumBoundingBoxes(3, fill_value="none")
    with pytest.raises(ValueError, match="bounding_boxes"):
        layers.MaxNumBoundingBoxes(3)({"images": np.zeros((1, 2, 2, 3), "float32")})
