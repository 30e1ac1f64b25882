"""Image layers inside ``tf.data.Dataset.map`` on every backend, as Keras 3 users write
them on JAX and PyTorch: per batch and per image, the pipeline gives what an eager call of
the same seeded layer gives on the same inputs in the same order (the random layers are
active, as they are in Keras 3, and draw afresh for each batch or image)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from lamina import layers, ops, tree

tf = pytest.importorskip("tensorflow")

# Same backend, same math: the pipeline and the eager call differ only by float32 rounding
# (TensorFlow's graph rewrites on the tensorflow backend; torch's threads summing in another
# order in the host node): 1e-5 absolute, or 1e-6 relative (about 8 float32 ulps).
ATOL = 1e-5
RTOL = 1e-6


def _images() -> np.ndarray:
    return np.random.default_rng(0).uniform(0, 255, (4, 8, 10, 3)).astype("float32")


def _boxes_input() -> dict[str, Any]:
    boxes = np.array([[[1, 1, 4, 5], [2, 0, 9, 3]]] * 4, "float32")
    labels = np.array([[1, 2]] * 4, "int32")
    masks = (_images()[..., :1] > 128).astype("int32")
    return {
        "images": _images(),
        "labels": np.arange(4, dtype="int32"),
        "bounding_boxes": {"boxes": boxes, "labels": labels},
        "segmentation_masks": masks,
    }


def _policy_input() -> dict[str, Any]:
    """A dict for RandAugment and AugMix, batched by 2 to the shape of their contract test
    (2, 6, 6, 3), whose compiled ops JAX then reuses."""
    data = _boxes_input()
    data["images"] = data["images"][:, 1:7, 2:8]
    data["segmentation_masks"] = data["segmentation_masks"][:, 1:7, 2:8]
    data["bounding_boxes"]["boxes"] = np.array([[[1, 1, 4, 5], [0, 0, 0.05, 3]]] * 4, "float32")
    return data


CASES: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "resizing": (lambda: layers.Resizing(5, 6), _images),
    "center_crop": (lambda: layers.CenterCrop(6, 6), _images),
    "random_flip": (lambda: layers.RandomFlip(seed=3), _images),
    "random_rotation": (lambda: layers.RandomRotation(0.2, seed=4), _images),
    "random_zoom": (lambda: layers.RandomZoom(0.3, seed=5), _images),
    "random_contrast": (lambda: layers.RandomContrast(0.5, seed=6), _images),
    "pipeline": (
        lambda: layers.Pipeline([layers.RandomFlip(seed=1), layers.RandomRotation(0.1, seed=2)]),
        _images,
    ),
    "boxes_dict": (
        lambda: layers.RandomFlip(seed=7, bounding_box_format="xyxy"),
        _boxes_input,
    ),
    "randaugment_dict": (
        lambda: layers.RandAugment(num_ops=1, factor=1.0, seed=8, bounding_box_format="xyxy"),
        _policy_input,
    ),
    "augmix_dict": (lambda: layers.AugMix(num_chains=1, chain_depth=1, seed=9), _policy_input),
}


BATCHED_ONLY = ("pipeline", "boxes_dict", "randaugment_dict", "augmix_dict")


def _numpy(x: Any) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _slice(data: Any, start: int, stop: int | None = None) -> Any:
    if stop is None:
        return tree.map_structure(lambda a: a[start], data)
    return tree.map_structure(lambda a: a[start:stop], data)


def _join(parts: list[Any], batched: bool) -> Any:
    join = np.concatenate if batched else np.stack
    return tree.map_structure(lambda *xs: join([_numpy(x) for x in xs]), *parts)


def _assert_same(got: Any, expected: Any) -> None:
    for g, e in zip(tree.flatten(got), tree.flatten(expected), strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case", sorted(CASES))
def test_image_layer_in_dataset_map_matches_the_eager_layer(case: str) -> None:
    make, data_fn = CASES[case]
    data = data_fn()
    dataset = tf.data.Dataset.from_tensor_slices(data)
    # Batches of 2, then one image at a time, each against a fresh layer of the same seed
    # (the composite cases batched only: each new shape costs compile time on JAX).
    modes = [(True, [(0, 2), (2, 4)]), (False, [(i, None) for i in range(4)])]
    for batched, chunks in modes[: 1 if case in BATCHED_ONLY else 2]:
        eager_layer = make()
        expected = _join([eager_layer(_slice(data, *c)) for c in chunks], batched)
        mapped = dataset.batch(2) if batched else dataset
        got = _join(list(mapped.map(make()).as_numpy_iterator()), batched)
        _assert_same(got, expected)


def test_random_layer_draws_afresh_for_each_batch_and_each_run_of_a_seed() -> None:
    same = np.repeat(_images()[:1], 4, axis=0)
    dataset = tf.data.Dataset.from_tensor_slices(same).batch(1)
    runs = [list(dataset.map(layers.RandomRotation(0.4, seed=9)).as_numpy_iterator())
            for _ in range(2)]  # fmt: skip
    first, second = (np.concatenate(run) for run in runs)
    # Four identical images, rotated by four different angles; a second run repeats them.
    assert len({round(float(np.abs(img - same[0]).sum()), 1) for img in first}) == 4
    np.testing.assert_allclose(first, second, rtol=0, atol=ATOL)


def test_max_num_bounding_boxes_in_dataset_map() -> None:
    data = _boxes_input()
    layer = layers.MaxNumBoundingBoxes(3)
    expected = _join([layer(data)], True)
    got = _join(list(tf.data.Dataset.from_tensor_slices(data).batch(4).map(layer)), True)
    _assert_same(got, expected)
