"""End to end: a folder of generated PNGs -> `image_dataset_from_directory` -> a small CNN
that starts with `Rescaling` and random augmentations -> `fit` (well above chance) -> a
`.keras` archive -> `load_model` predicts the same."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability

PIL_Image = pytest.importorskip("PIL.Image")

SIZE = 16


def _write_pngs(root: pathlib.Path, per_class: int = 20) -> None:
    """Two classes: a bright square on a dark ground ("bright") and a dark square on a
    bright ground ("dark"), at random places and with noise."""
    rng = np.random.default_rng(0)
    for label, (square, ground) in {"bright": (220, 40), "dark": (40, 220)}.items():
        folder = root / label
        folder.mkdir(parents=True)
        for i in range(per_class):
            image = np.full((SIZE, SIZE, 3), ground, "float32")
            top, left = rng.integers(0, SIZE // 2, 2)
            image[top : top + SIZE // 2, left : left + SIZE // 2] = square
            image += rng.normal(0, 15, image.shape)
            pixels = np.clip(image, 0, 255).astype("uint8")
            PIL_Image.fromarray(pixels).save(folder / f"{i}.png")


def _model() -> lamina.Model:
    return lamina.Sequential(
        [
            lamina.Input((SIZE, SIZE, 3)),
            layers.Rescaling(1.0 / 127.5, offset=-1.0),
            layers.RandomFlip(seed=1),
            layers.RandomRotation(0.1, seed=2),
            layers.RandomZoom(0.1, seed=3),
            layers.Conv2D(8, 3, activation="relu"),
            layers.GlobalAveragePooling2D(),
            layers.Dense(1, activation="sigmoid"),
        ]
    )


@pytest.mark.requires(Capability.TRAINING)
def test_cnn_with_augmentations_trains_on_a_png_folder_and_round_trips(tmp_path) -> None:
    lamina.utils.set_random_seed(0)
    _write_pngs(tmp_path / "images")
    dataset = lamina.utils.image_dataset_from_directory(
        str(tmp_path / "images"),
        label_mode="binary",
        image_size=(SIZE, SIZE),
        batch_size=8,
        seed=0,
    )
    model = _model()
    model.compile(
        optimizer=lamina.optimizers.Adam(0.05), loss="binary_crossentropy", metrics=["accuracy"]
    )
    history = model.fit(dataset, epochs=4, verbose=0)
    # 40 images: chance is 0.5.
    assert history.history["accuracy"][-1] >= 0.85
    # The dataset reshuffles on each pass: predict on one fixed pass of it. The
    # augmentations are the identity at inference.
    pairs = [(np.asarray(x), np.asarray(y)) for x, y in dataset]
    images, labels = (np.concatenate(part) for part in zip(*pairs))
    predicted = model.predict(images, batch_size=len(images), verbose=0)
    assert np.mean((predicted > 0.5) == (labels > 0.5)) >= 0.9

    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert [type(layer) for layer in loaded.layers] == [type(layer) for layer in model.layers]
    np.testing.assert_allclose(
        loaded.predict(images, batch_size=len(images), verbose=0), predicted, rtol=1e-5, atol=1e-6
    )
