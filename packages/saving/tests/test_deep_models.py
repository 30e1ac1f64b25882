"""A 10,000-layer chain saves and loads: no step of saving or loading recurses per layer
or repeats work per layer (the issue's bar for the graph mapping, the walks and restore).
10,000 layers on NumPy; 2,000 under a lowered recursion limit elsewhere (`deep_chain`)."""

from __future__ import annotations

import numpy as np

import lamina
from lamina import ops
from lamina.layers import Dense


def test_a_10000_layer_chain_saves_and_loads(tmp_path, deep_chain):
    model = lamina.Sequential([lamina.Input((2,)), *(Dense(2) for _ in range(deep_chain))])
    path = tmp_path / "deep.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    x = np.array([[0.5, -1.0]], dtype="float32")
    np.testing.assert_allclose(
        ops.convert_to_numpy(loaded(x)), ops.convert_to_numpy(model(x)), rtol=1e-5, atol=1e-6
    )
