"""End to end: raw strings -> TextVectorization -> Embedding -> GlobalAveragePooling1D ->
Dense learns a synthetic sentiment task (>= 95% held-out accuracy on training backends)."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability

GOOD = ["great", "lovely", "superb", "fine", "happy", "wonderful"]
BAD = ["awful", "dull", "boring", "poor", "sad", "terrible"]
FILLER = ["the", "film", "was", "a", "story", "and", "plot", "really", "quite"]


def _sentences(n: int, rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    labels = rng.integers(0, 2, n)
    texts = []
    for label in labels:
        words = list(rng.choice(FILLER, 4)) + list(rng.choice(GOOD if label else BAD, 2))
        rng.shuffle(words)
        texts.append(" ".join(words).capitalize() + "!")
    return texts, labels.astype("float32")


@pytest.mark.requires(Capability.TRAINING)
def test_sentiment_from_raw_strings() -> None:
    lamina.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    train_texts, y_train = _sentences(256, rng)
    test_texts, y_test = _sentences(128, rng)
    vectorizer = layers.TextVectorization(max_tokens=40, output_sequence_length=8)
    vectorizer.adapt(train_texts)
    x_train = ops.convert_to_numpy(vectorizer(train_texts))
    x_test = ops.convert_to_numpy(vectorizer(test_texts))
    model = lamina.Sequential(
        [
            lamina.Input((8,), dtype="int32"),
            layers.Embedding(40, 8),
            layers.GlobalAveragePooling1D(),
            layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="binary_crossentropy")
    model.fit(x_train, y_train, epochs=15, batch_size=32, verbose=0)
    predicted = np.asarray(model.predict(x_test, verbose=0))[:, 0] > 0.5
    assert np.mean(predicted == (y_test > 0.5)) >= 0.95
