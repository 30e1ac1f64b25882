"""The model lifecycle of DESIGN.md, stage by stage, with weights loaded before build."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.backend import Capability


class Net(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = lamina.layers.Dense(8, activation="relu")
        self.out = lamina.layers.Dense(1)

    def call(self, x):
        return self.out(self.hidden(x))


@pytest.mark.requires(Capability.TRAINING)
def test_lifecycle_with_load_before_build(tmp_path):
    x = np.random.default_rng(0).normal(size=(32, 4)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    source = Net()
    expected = lamina.ops.convert_to_numpy(source(x))
    path = tmp_path / "net.weights.h5"
    source.save_weights(path)

    model = Net()  # __init__: nothing built, nothing compiled
    assert (model.built, model.variables, model.optimizer, model.compiled) == (
        False, [], None, False,
    )
    assert model.train_function is None

    status = model.load_weights(path)  # before build: values held
    assert model.variables == [] and not model.built
    assert sorted(status.pending) == ["model/hidden", "model/out"]

    model.compile(optimizer="sgd", loss="mse")  # compile: optimizer set, nothing made yet
    assert model.compiled and model.optimizer is not None and not model.optimizer.built
    assert model.variables == [] and model.train_function is None

    np.testing.assert_allclose(  # first call: variables created, held values applied
        lamina.ops.convert_to_numpy(model(x)), expected, rtol=1e-6, atol=1e-6
    )
    assert model.built and len(model.variables) == 4 and status.pending == []

    model.fit(x, y, epochs=1, batch_size=16, verbose=0)  # first fit: optimizer builds
    assert model.optimizer.built and int(model.optimizer.iterations.numpy()) == 2
    assert model.train_function is not None
