"""The logs a callback reads after each training batch are that batch's running results.

PyTorch's trainer computes a step's logs only when something reads them, so these pin what
the reader must see: after batch ``k``, the mean loss and metric over batches ``0..k``
(weighted by batch size), and a custom `compute_metrics`'s own keys.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability

pytestmark = pytest.mark.requires(Capability.TRAINING)

X = np.random.default_rng(0).normal(size=(10, 3)).astype("float32")
Y = np.random.default_rng(1).normal(size=(10, 2)).astype("float32")
W = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], dtype="float32")


class _Recorder(lamina.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = []

    def on_train_batch_end(self, batch, logs=None):
        self.batches.append(dict(logs))


def _model(model_class=lamina.Sequential):
    # lr=0: the weights never move, so every batch's loss is known in NumPy
    dense = layers.Dense(2, kernel_initializer=lamina.initializers.Constant(W))
    model = model_class([lamina.Input((3,)), dense])
    model.compile(optimizer=lamina.optimizers.SGD(0.0), loss="mse", metrics=["mae"])
    return model


def _running_means(batch_size):
    """NumPy: the batch-size-weighted running mean of each batch's loss and MAE."""
    err = X @ W - Y
    out, sums, seen = [], np.zeros(2), 0
    for start in range(0, len(X), batch_size):
        e = err[start : start + batch_size]
        sums += len(e) * np.array([np.mean(e**2), np.mean(np.abs(e))])
        seen += len(e)
        out.append(sums / seen)
    return np.array(out)


def test_each_batch_logs_the_running_means():
    recorder = _Recorder()
    # 4 batches, the last partial; 2 epochs: the means restart with each epoch
    _model().fit(X, Y, batch_size=3, epochs=2, verbose=0, shuffle=False, callbacks=[recorder])
    got = np.array([[b["loss"], b["mae"]] for b in recorder.batches])
    expected = np.concatenate([_running_means(3)] * 2)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


class _WithStepCount(lamina.Sequential):
    """A `compute_metrics` that adds a key of its own to Lamina's results."""

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        logs = dict(super().compute_metrics(x, y, y_pred, sample_weight))
        logs["batch_rows"] = ops.sum(ops.ones_like(x[:, 0]))  # traced: the batch may be None
        return logs


def test_custom_compute_metrics_keys_reach_the_callbacks():
    recorder = _Recorder()
    model = _model(_WithStepCount)
    model.fit(X, Y, batch_size=4, epochs=1, verbose=0, shuffle=False, callbacks=[recorder])
    assert [b["batch_rows"] for b in recorder.batches] == [4.0, 4.0, 2.0]
    np.testing.assert_allclose(recorder.batches[-1]["loss"], _running_means(4)[-1][0], rtol=1e-5)


def test_train_on_batch_returns_that_batch_logs():
    model = _model()
    first = model.train_on_batch(X[:4], Y[:4], return_dict=True)
    np.testing.assert_allclose(
        [first["loss"], first["mae"]], _running_means(4)[0], rtol=1e-5, atol=1e-6
    )
