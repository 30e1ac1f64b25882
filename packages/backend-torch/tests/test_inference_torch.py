"""`predict_on_batch` and one-batch `predict` on torch call the model directly, under
`torch.no_grad()` (what `predict_step` runs in), with no step loop around it."""

from __future__ import annotations

import numpy as np
import torch

import lamina
from lamina import layers


class _GradState(layers.Layer):
    """Records whether autograd was on at each call."""

    def __init__(self) -> None:
        super().__init__()
        self.grad_enabled: list[bool] = []

    def call(self, x):
        self.grad_enabled.append(torch.is_grad_enabled())
        return x


def test_predict_runs_without_autograd_and_matches_numpy():
    record = _GradState()
    lamina.utils.set_random_seed(4)
    model = lamina.Sequential([layers.Input((5,)), layers.Dense(3, activation="relu"), record])
    x = np.random.default_rng(0).normal(size=(4, 5))  # float64: taken as float32
    w, b = (v.numpy() for v in model.layers[0].weights)
    expected = np.maximum(x.astype("float32") @ w + b, 0.0)
    before = len(record.grad_enabled)
    for out in (model.predict_on_batch(x), model.predict(x, verbose=0)):
        assert isinstance(out, np.ndarray) and out.dtype == np.float32
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)
    assert record.grad_enabled[before:] == [False, False]
    out = model(torch.as_tensor(x, dtype=torch.float32))  # a direct call keeps autograd
    assert out.requires_grad and record.grad_enabled[-1] is True
