"""A functional model whose inputs are intermediate tensors starts there, as in Keras 3.

``h = Dense(4)(Input(...)); Model(h, Dense(2)(h))``: the graph before `h` is cut off, `h`
is replaced by a new `Input` of its shape and dtype, and the layers after it are shared
with the original graph (same weights). The model calls, trains, summarizes, round-trips
its config and archive like any other.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability
from lamina.layers.input_layer import InputLayer
from lamina.testing import assert_allclose

H = np.random.default_rng(0).normal(size=(5, 4)).astype("float32")


def _head() -> tuple[lamina.Model, layers.Dense, layers.Dense]:
    x = lamina.Input((3,))
    first = layers.Dense(4, name="first")
    second = layers.Dense(2, name="second")
    h = first(x)
    return lamina.Model(h, second(ops.relu(h))), first, second


def _reference(second: layers.Dense, h: np.ndarray) -> np.ndarray:
    kernel, bias = (np.asarray(ops.convert_to_numpy(w)) for w in second.get_weights())
    return np.maximum(h, 0.0) @ kernel + bias


def test_the_model_starts_at_the_given_tensor() -> None:
    model, first, second = _head()
    (given,) = model.inputs
    assert given.history is not None and isinstance(given.history.operation, InputLayer)
    assert given.shape == (None, 4) and given.dtype == "float32"
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "Dense"]
    assert model.layers[1] is second and first not in model.layers
    assert_allclose(model(H), _reference(second, H))
    assert model.count_params() == 4 * 2 + 2


def test_mixed_and_dict_inputs() -> None:
    a = lamina.Input((2,), name="a")
    b = layers.Dense(3)(lamina.Input((2,)))
    joined = layers.Concatenate()([a, b])
    model = lamina.Model({"a": a, "b": b}, layers.Dense(1)(joined))
    assert model.inputs[0] is a and model.input_names == ["a", "b"]
    rng = np.random.default_rng(1)
    data = {"a": rng.normal(size=(3, 2)), "b": rng.normal(size=(3, 3))}
    kernel, bias = (np.asarray(ops.convert_to_numpy(w)) for w in model.layers[-1].get_weights())
    expected = np.concatenate([data["a"], data["b"]], axis=1) @ kernel + bias
    assert_allclose(model({k: v.astype("float32") for k, v in data.items()}), expected)


def test_an_output_not_computed_from_the_inputs_is_refused() -> None:
    x = lamina.Input((3,))
    h = layers.Dense(4)(x)
    with pytest.raises(ValueError, match="disconnected"):
        lamina.Model(h, layers.Dense(2)(x))
    with pytest.raises(ValueError, match="symbolic tensors"):
        lamina.Model([h, np.ones((1, 4))], h)


def test_summary_lists_only_the_model_part(capsys: pytest.CaptureFixture[str]) -> None:
    model, _, _ = _head()
    model.summary()
    printed = capsys.readouterr().out
    assert "second" in printed and "first" not in printed
    assert "10" in printed  # the head's parameters


def test_config_round_trip() -> None:
    model, _, second = _head()
    config = json.loads(json.dumps(model.get_config()))
    assert [e["class_name"] for e in config["layers"]] == ["InputLayer", "Relu", "Dense"]
    clone = lamina.Model.from_config(config)
    clone.set_weights(model.get_weights())
    assert_allclose(clone(H), _reference(second, H))


def test_archive_round_trip(tmp_path: Path) -> None:
    pytest.importorskip("lamina_saving")
    model, _, second = _head()
    path = tmp_path / "head.keras"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert loaded.inputs[0].shape == (None, 4)
    assert_allclose(loaded(H), _reference(second, H))


@pytest.mark.requires(Capability.TRAINING)
def test_fit_trains_the_shared_layers() -> None:
    model, first, second = _head()
    before = [np.array(ops.convert_to_numpy(w)) for w in first.get_weights()]
    model.compile(optimizer="sgd", loss="mse")
    targets = np.ones((5, 2), "float32")
    history = model.fit(H, targets, epochs=3, batch_size=5, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]
    # The layer before the given input is not part of the model: it does not train.
    for old, new in zip(before, first.get_weights()):
        np.testing.assert_array_equal(old, ops.convert_to_numpy(new))
    assert_allclose(model.predict(H, verbose=0), _reference(second, H))
