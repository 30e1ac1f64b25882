"""End to end on scikit-learn's digits: accuracy targets, determinism, resumed training."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability

sklearn_datasets = pytest.importorskip("sklearn.datasets")

pytestmark = pytest.mark.requires(Capability.TRAINING)


def _digits(image: bool = False):
    x, y = sklearn_datasets.load_digits(return_X_y=True)
    x = (x / 16.0).astype("float32")
    if image:
        x = x.reshape(-1, 8, 8, 1)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(x))
    x, y = x[order], y[order].astype("int32")
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def _mlp():
    return lamina.Sequential(
        [
            layers.Input((64,)),
            layers.Dense(128, activation="relu"),
            layers.Dense(64, activation="relu"),
            layers.Dense(10, activation="softmax"),
        ]
    )


def test_mlp_reaches_95_percent():
    lamina.utils.set_random_seed(1)
    (x, y), (xt, yt) = _digits()
    model = _mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=15, batch_size=32, validation_split=0.1, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert "val_accuracy" in history.history
    _, accuracy = model.evaluate(xt, yt, verbose=0)
    assert accuracy >= 0.95


def test_cnn_reaches_97_percent():
    lamina.utils.set_random_seed(2)
    (x, y), (xt, yt) = _digits(image=True)
    inputs = layers.Input((8, 8, 1))
    h = layers.Conv2D(32, 3, padding="same", activation="relu")(inputs)
    h = layers.Conv2D(32, 3, padding="same", activation="relu")(h)
    h = layers.MaxPooling2D(2)(h)
    h = layers.Flatten()(h)
    h = layers.Dense(64, activation="relu")(h)
    outputs = layers.Dense(10)(h)
    model = lamina.Model(inputs, outputs)
    model.compile(
        optimizer=lamina.optimizers.Adam(2e-3),
        loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["sparse_categorical_accuracy"],
    )
    model.fit(x, y, epochs=12, batch_size=32, verbose=0)
    logs = model.evaluate(xt, yt, verbose=0, return_dict=True)
    assert logs["sparse_categorical_accuracy"] >= 0.97
    predictions = model.predict(xt, batch_size=50, verbose=0)
    assert predictions.shape == (len(xt), 10)
    assert np.mean(np.argmax(predictions, -1) == yt) >= 0.97


def _train_once(seed: int, epochs: int = 2):
    lamina.utils.set_random_seed(seed)
    (x, y), _ = _digits()
    model = _mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x[:512], y[:512], epochs=epochs, batch_size=64, shuffle=True, verbose=0)
    return [w.copy() for w in model.get_weights()]


def test_same_seed_same_weights():
    first, second = _train_once(7), _train_once(7)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    other = _train_once(8)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other))


def test_train_on_batch_and_predict_on_batch_agree_with_fit_api():
    lamina.utils.set_random_seed(3)
    (x, y), _ = _digits()
    model = _mlp()
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    before = model.test_on_batch(x[:64], y[:64], return_dict=True)
    for _ in range(20):
        model.train_on_batch(x[:64], y[:64])
    after = model.test_on_batch(x[:64], y[:64], return_dict=True)
    assert after["loss"] < before["loss"]
    np.testing.assert_allclose(
        model.predict_on_batch(x[:8]), model.predict(x[:8], verbose=0), rtol=1e-5, atol=1e-6
    )


def test_fit_rejects_mismatched_lengths_before_training():
    model = _mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    x = np.zeros((10, 64), "float32")
    with pytest.raises(ValueError, match="10"):
        model.fit(x, np.zeros((9,), "int32"), verbose=0)
    with pytest.raises(ValueError, match="sample_weight"):
        model.fit(x, np.zeros((10,), "int32"), sample_weight=np.ones((3,)), verbose=0)
