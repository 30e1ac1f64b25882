"""The later image and audio preprocessing layers in a saved model: each resolves by name
through `lamina.layers`' exports, keeps its config and gives the same inference output
after a `.keras` save and load."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops

CASES = [
    (layers.RandomShear, {"x_factor": 0.2, "y_factor": 0.1, "seed": 1}, (8, 8, 3)),
    (layers.RandomErasing, {"factor": 0.5, "fill_value": 0.0, "seed": 1}, (8, 8, 3)),
    (layers.RandomColorJitter, {"brightness_factor": 0.1, "hue_factor": 0.1}, (8, 8, 3)),
    (layers.RandomColorDegeneration, {"factor": 0.5, "seed": 1}, (8, 8, 3)),
    (layers.Equalization, {"bins": 64}, (8, 8, 3)),
    (layers.RandomPerspective, {"scale": 0.3, "seed": 1}, (8, 8, 3)),
    (layers.MelSpectrogram, {"fft_length": 64, "sequence_stride": 32, "num_mel_bins": 8}, (256,)),
    (layers.STFTSpectrogram, {"mode": "psd", "frame_length": 16}, (64, 2)),
    (layers.RandomElasticTransform, {"scale": 0.5, "seed": 1}, (8, 8, 3)),
    (layers.RandAugment, {"num_ops": 1, "seed": 1}, (8, 8, 3)),
    (layers.AugMix, {"num_chains": 1, "seed": 1}, (8, 8, 3)),
    (layers.MaxNumBoundingBoxes, {"max_number": 3}, (8, 8, 3)),
    (layers.ContrastLimitedAdaptiveHistogramEqualization, {"tile_grid_size": (2, 2)}, (8, 8, 3)),
    (layers.Pipeline, {"layers": [layers.RandomFlip(), layers.Resizing(4, 4)]}, (8, 8, 3)),
]


@pytest.mark.parametrize("cls,kwargs,shape", CASES, ids=[c[0].__name__ for c in CASES])
def test_keras_archive_round_trip(cls: type, kwargs: dict, shape: tuple, tmp_path) -> None:
    inputs = lamina.Input(shape)
    model = lamina.Model(inputs, cls(**kwargs)(inputs))
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert type(loaded.layers[-1]) is cls
    assert loaded.layers[-1].get_config() == model.layers[-1].get_config()
    x = np.random.default_rng(0).uniform(0, 1, size=(2, *shape)).astype("float32")
    np.testing.assert_allclose(
        ops.convert_to_numpy(loaded.predict(x, verbose=0)),
        ops.convert_to_numpy(model.predict(x, verbose=0)), rtol=1e-5, atol=1e-4,
    )  # fmt: skip
