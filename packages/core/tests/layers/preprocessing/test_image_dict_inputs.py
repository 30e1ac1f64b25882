"""Dict inputs of the image layers (images, labels, bounding_boxes, segmentation_masks):
flipped boxes against a NumPy reference (1e-5), resized/padded boxes against the
window formula (1e-4), masks equal to the images they came with (exact, nearest
sampling), and boxes within 1.5 pixels of the box around the warped content.
RandAugment and AugMix are checked against their own pool layers run alone (fresh copies
with the same seed draw what the pool drew): per image, the output is one candidate's
(RandAugment, exact to 1e-5) or the blend of the image with one (AugMix, weight solved from
the images, masks blended by it to 1e-4)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import layers, ops

H, W = 16, 20
IMAGES = np.zeros((2, H, W, 1), "float32")
IMAGES[0, 3:7, 4:12] = 1.0
IMAGES[1, 8:14, 10:17] = 1.0
BOXES = np.array([[[4, 3, 12, 7]], [[10, 8, 17, 14]]], "float32")

GEOMETRIC = [
    (layers.RandomFlip, {"seed": 3}),
    (layers.RandomCrop, {"height": 12, "width": 14, "seed": 2}),
    (layers.CenterCrop, {"height": 14, "width": 18}),
    (layers.Resizing, {"height": 8, "width": 10, "interpolation": "nearest"}),
    (
        layers.Resizing,
        {"height": 10, "width": 10, "interpolation": "nearest", "pad_to_aspect_ratio": True},
    ),
    (
        layers.Resizing,
        {"height": 12, "width": 12, "interpolation": "nearest", "crop_to_aspect_ratio": True},
    ),
    (layers.RandomTranslation, {"height_factor": 0.2, "width_factor": 0.2}),
    (layers.RandomZoom, {"height_factor": 0.3}),
    (layers.RandomRotation, {"factor": 0.1}),
    (layers.RandomShear, {"x_factor": 0.2, "y_factor": 0.2}),
    (layers.RandomPerspective, {"scale": 0.3}),
]
AFFINE = (layers.RandomTranslation, layers.RandomZoom, layers.RandomRotation, layers.RandomShear)


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _data(boxes: np.ndarray = BOXES) -> dict:
    return {
        "images": IMAGES,
        "labels": np.array([0, 1], "int32"),
        "bounding_boxes": {"boxes": boxes, "labels": np.ones((2, 1), "int32")},
        "segmentation_masks": IMAGES.astype("int32"),
        "sample_id": np.array([7, 8], "int32"),
    }


def _make(cls: type, kwargs: dict, fmt: str = "xyxy") -> object:
    kwargs = dict(kwargs, bounding_box_format=fmt)
    if cls in AFFINE:
        kwargs.update(fill_mode="constant", interpolation="nearest", seed=1)
    if cls is layers.RandomPerspective:
        kwargs.update(interpolation="nearest", seed=1)
    return cls(**kwargs)


@pytest.mark.parametrize("cls,kwargs", GEOMETRIC)
def test_boxes_and_masks_follow_the_images(cls: type, kwargs: dict) -> None:
    data = _data()
    out = _make(cls, kwargs)(data, training=True)
    assert sorted(out) == sorted(data)
    np.testing.assert_array_equal(_np(out["labels"]), data["labels"])
    np.testing.assert_array_equal(_np(out["sample_id"]), data["sample_id"])
    images, masks = _np(out["images"]), _np(out["segmentation_masks"])
    # The same draw moved both: nearest sampling keeps the 0/1 pattern exact.
    assert masks.dtype == np.int32
    np.testing.assert_array_equal(np.round(images).astype("int32"), masks)
    boxes = _np(out["bounding_boxes"]["boxes"])
    for i in range(2):
        rows, cols = np.nonzero(images[i, ..., 0] > 0.5)
        around = [cols.min(), rows.min(), cols.max() + 1, rows.max() + 1]
        np.testing.assert_allclose(boxes[i, 0], around, atol=1.5)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_flipped_boxes_match_numpy(seed: int) -> None:
    layer = layers.RandomFlip(seed=seed, bounding_box_format="center_xywh")
    from lamina.utils import bounding_boxes as bb

    boxes = _np(bb.convert_format(BOXES, "xyxy", "center_xywh"))
    out = layer(_data(boxes), training=True)
    images = _np(out["images"])
    expected = []
    for i in range(2):
        # Which flips the images got, read off the images themselves.
        flips = [(fx, fy) for fx in (0, 1) for fy in (0, 1)
                 if np.array_equal(images[i], IMAGES[i][:: 1 - 2 * fy, :: 1 - 2 * fx])]  # fmt: skip
        fx, fy = flips[0]
        cx, cy, w, h = boxes[i, 0]
        expected.append([[W - cx if fx else cx, H - cy if fy else cy, w, h]])
    np.testing.assert_allclose(_np(out["bounding_boxes"]["boxes"]), expected, rtol=1e-5)


def test_resize_pad_boxes_match_the_window_formula() -> None:
    layer = layers.Resizing(10, 10, pad_to_aspect_ratio=True, bounding_box_format="rel_xyxy")
    rel = BOXES / np.array([W, H, W, H], "float32")
    out = _np(layer(_data(rel))["bounding_boxes"]["boxes"])
    # 16x20 padded to 20x20 (2 rows above), then scaled by 1/2; relative to 10x10.
    expected = (BOXES + np.array([0, 2, 0, 2])) / 2 / 10
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-6)


def test_single_image_and_clipped_boxes() -> None:
    layer = layers.CenterCrop(2, 2, bounding_box_format="xyxy")
    boxes = {"boxes": BOXES[0], "labels": np.array([4], "int32")}
    out = layer({"images": IMAGES[0], "bounding_boxes": boxes})
    assert tuple(out["images"].shape) == (2, 2, 1)
    # The 2x2 window (rows 7-8, columns 9-10) misses the box: clipped flat, label -1.
    np.testing.assert_array_equal(_np(out["bounding_boxes"]["labels"]), [-1])
    np.testing.assert_allclose(_np(out["bounding_boxes"]["boxes"]), [[0, 0, 2, 0]], atol=1e-5)


def test_inference_colour_layers_and_errors() -> None:
    data = _data()
    flip = layers.RandomFlip(seed=0, bounding_box_format="xyxy")
    same = flip(data, training=False)
    np.testing.assert_array_equal(_np(same["bounding_boxes"]["boxes"]), BOXES)
    np.testing.assert_array_equal(_np(same["images"]), IMAGES)
    bright = layers.RandomBrightness(0.5, value_range=(0, 1), seed=0)(data, training=True)
    np.testing.assert_array_equal(_np(bright["bounding_boxes"]["boxes"]), BOXES)
    np.testing.assert_array_equal(_np(bright["segmentation_masks"]), data["segmentation_masks"])
    assert not np.array_equal(_np(bright["images"]), IMAGES)
    with pytest.raises(ValueError, match="bounding_box_format"):
        layers.RandomFlip(seed=0)(data, training=True)
    with pytest.raises(ValueError, match="bounding_box_format='xxyy'"):
        layers.RandomFlip(bounding_box_format="xxyy")
    with pytest.raises(ValueError, match="bounding_boxes"):
        layers.MixUp(seed=0)(data, training=True)
    with pytest.raises(ValueError, match=r"RandAugment.*bounding_box_format"):
        layers.RandAugment(seed=0)(data, training=True)
    assert layers.RandomFlip(bounding_box_format="yxyx").get_config()["bounding_box_format"] == (
        "yxyx"
    )


def test_functional_model_on_dicts_keeps_padding_boxes() -> None:
    import lamina

    inputs = {
        "images": lamina.Input((H, W, 1)),
        "bounding_boxes": {
            "boxes": lamina.Input((2, 4)),
            "labels": lamina.Input((2,), dtype="int32"),
        },
        "segmentation_masks": lamina.Input((H, W, 1), dtype="int32"),
    }
    outputs = layers.Resizing(8, 10, bounding_box_format="xyxy")(inputs)
    assert tuple(outputs["segmentation_masks"].shape) == (None, 8, 10, 1)
    assert tuple(outputs["bounding_boxes"]["boxes"].shape) == (None, 2, 4)
    padded = np.concatenate([BOXES, -np.ones((2, 1, 4), "float32")], axis=1)
    data = _data(padded)
    data["bounding_boxes"]["labels"] = np.array([[3, -1], [5, -1]], "int32")
    del data["labels"], data["sample_id"]
    out = lamina.Model(inputs, outputs)(data)
    # Halved on both axes; the padding box (label -1) is left as it was.
    expected = np.concatenate([BOXES / 2, -np.ones((2, 1, 4), "float32")], axis=1)
    np.testing.assert_allclose(_np(out["bounding_boxes"]["boxes"]), expected, atol=1e-5)
    np.testing.assert_array_equal(_np(out["bounding_boxes"]["labels"]), [[3, -1], [5, -1]])


@pytest.mark.parametrize("cls", [layers.MixUp, layers.CutMix])
def test_mixing_layers_mix_labels_as_the_images(cls: type) -> None:
    # Image i is the constant 10 i, so its mean after mixing is the labels' weighted sum.
    values = np.arange(4, dtype="float32") * 10
    images = np.broadcast_to(values[:, None, None, None], (4, 6, 6, 1)).copy()
    labels = np.eye(4, dtype="float32")
    out = cls(seed=2)({"images": images, "labels": labels}, training=True)
    mixed = _np(out["labels"])
    np.testing.assert_allclose(mixed.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(_np(out["images"]).mean(axis=(1, 2, 3)), mixed @ values,
                               rtol=1e-4, atol=1e-3)  # fmt: skip
    assert not np.allclose(mixed, labels)


# Policies: 24 RGB images of noise, 6x6 (the shapes of test_image_policies, whose compiled
# ops JAX then reuses), so every candidate gives a different image; 0/1/2 masks; a box
# inside and a thin one along each edge (any translation pushes one out).
N, S = 24, 6
P_IMAGES = np.random.default_rng(5).uniform(0, 255, (N, S, S, 3)).astype("float32")
P_MASKS = np.random.default_rng(6).integers(0, 3, (N, S, S, 1)).astype("int32")
EDGES = [[0, 1, 0.05, 5], [5.95, 1, 6, 5], [1, 0, 5, 0.05], [1, 5.95, 5, 6]]
P_BOXES = np.broadcast_to(np.array([[1, 1, 4, 4], *EDGES], "float32"), (N, 5, 4))


def _policy_data() -> dict:
    return {
        "images": P_IMAGES,
        "labels": np.arange(N, dtype="int32"),
        "bounding_boxes": {"boxes": P_BOXES.copy(), "labels": np.full((N, 5), 3, "int32")},
        "segmentation_masks": P_MASKS,
    }


def _candidates(layer: object, data: dict) -> list[dict]:
    """Each pool layer alone on `data`: a fresh copy with the pool layer's seed."""
    fresh = [type(p).from_config(p.get_config()) for p in layer.pool]  # type: ignore[attr-defined]
    return [{k: _np(v) if k != "bounding_boxes" else {b: _np(x) for b, x in v.items()}
             for k, v in f(data, training=True).items()} for f in fresh]  # fmt: skip


def test_randaugment_moves_boxes_and_masks_with_the_layer_each_image_picked() -> None:
    data = _policy_data()
    kwargs = {"num_ops": 1, "factor": 1.0, "seed": 4, "bounding_box_format": "xyxy"}
    out = layers.RandAugment(**kwargs)(data, training=True)
    candidates = _candidates(layers.RandAugment(**kwargs), data)
    images, masks = _np(out["images"]), _np(out["segmentation_masks"])
    boxes = {k: _np(v) for k, v in out["bounding_boxes"].items()}
    np.testing.assert_array_equal(_np(out["labels"]), data["labels"])
    assert masks.dtype == np.int32 and boxes["labels"].dtype == np.int32
    picked = []
    for i in range(N):
        j = next(j for j, c in enumerate(candidates)
                 if np.allclose(images[i], c["images"][i], atol=1e-5))  # fmt: skip
        picked.append(j)
        np.testing.assert_array_equal(masks[i], candidates[j]["segmentation_masks"][i])
        np.testing.assert_allclose(boxes["boxes"][i], candidates[j]["bounding_boxes"]["boxes"][i],
                                   atol=1e-5)  # fmt: skip
        np.testing.assert_array_equal(boxes["labels"][i],
                                      candidates[j]["bounding_boxes"]["labels"][i])  # fmt: skip
    # Some images took a geometric layer (the pool's first five): their boxes moved, and
    # some edge boxes left the image (label -1).
    assert min(picked) < 5 and not np.allclose(boxes["boxes"], P_BOXES)
    assert np.any(boxes["labels"] == -1)


def test_randaugment_two_ops_single_image_and_inference() -> None:
    data = _policy_data()
    layer = layers.RandAugment(num_ops=2, factor=1.0, seed=0, bounding_box_format="rel_xywh")
    rel = P_BOXES / np.float32(S)
    rel[..., 2:] -= rel[..., :2]  # xyxy -> xywh, relative
    data["bounding_boxes"]["boxes"] = rel
    out = layer(data, training=True)
    boxes, labels = _np(out["bounding_boxes"]["boxes"]), _np(out["bounding_boxes"]["labels"])
    assert np.all((labels == 3) | (labels == -1)) and np.any(labels == -1)
    assert np.all((boxes >= -1e-6) & (boxes <= 1 + 1e-6))
    assert set(np.unique(_np(out["segmentation_masks"]))) <= {0, 1, 2}
    one = {"images": P_IMAGES[0], "segmentation_masks": P_MASKS[0, ..., 0],
           "bounding_boxes": {"boxes": rel[0], "labels": np.arange(5, dtype="int32")}}  # fmt: skip
    single = layer(one, training=True)
    assert tuple(single["images"].shape) == (S, S, 3)
    assert tuple(single["segmentation_masks"].shape) == (S, S)
    assert tuple(single["bounding_boxes"]["boxes"].shape) == (5, 4)
    same = layer(data, training=False)
    np.testing.assert_array_equal(_np(same["bounding_boxes"]["boxes"]), rel)
    np.testing.assert_array_equal(_np(same["segmentation_masks"]), P_MASKS)


def _blend_of(out: np.ndarray, x: np.ndarray, candidates: list) -> tuple[int, float]:
    """The candidate ``c`` and weight ``keep`` with ``out = keep x + (1 - keep) c``
    (``keep`` by least squares; 1e-2 absolute on a 0-255 scale)."""
    for j, c in enumerate(candidates):
        d = (x - c).ravel()
        keep = float((out - c).ravel() @ d / max(float(d @ d), 1e-12))
        if np.allclose(out, c + keep * (x - c), atol=1e-2):
            return j, keep
    raise AssertionError("the output is no blend of the image with a candidate")


def test_augmix_passes_boxes_and_blends_masks_as_the_images() -> None:
    data = _policy_data()
    kwargs = {"num_chains": 1, "chain_depth": 1, "factor": 1.0, "seed": 3}
    out = layers.AugMix(**kwargs)(data, training=True)
    no_boxes = {k: v for k, v in data.items() if k != "bounding_boxes"}
    candidates = _candidates(layers.AugMix(**kwargs), no_boxes)
    np.testing.assert_array_equal(_np(out["bounding_boxes"]["boxes"]), P_BOXES)
    np.testing.assert_array_equal(_np(out["bounding_boxes"]["labels"]), 3)
    np.testing.assert_array_equal(_np(out["labels"]), data["labels"])
    images, masks = _np(out["images"]), _np(out["segmentation_masks"])
    assert masks.dtype == np.float32
    geometric = 0
    for i in range(N):
        x, m = P_IMAGES[i], P_MASKS[i].astype("float32")
        j, keep = _blend_of(images[i], x, [c["images"][i] for c in candidates])
        cm = candidates[j]["segmentation_masks"][i].astype("float32")
        np.testing.assert_allclose(masks[i], keep * m + (1 - keep) * cm, atol=1e-4)
        geometric += j < 5
    assert geometric and not np.allclose(masks, P_MASKS)
    same = layers.AugMix(**kwargs)(data, training=False)
    assert _np(same["segmentation_masks"]).dtype == np.float32
