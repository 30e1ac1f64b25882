"""A functional model that calls ops directly saves its op nodes in the config.

Keras 3 users write ``ops.add(x, 1.0)`` or ``ops.reshape(x, ...)`` between layers; the
model's config records each such call with the op's arguments, and loading rebuilds the
same graph (ops are resolved through `lamina.ops.catalog` only).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.testing import assert_allclose

X = np.random.default_rng(0).normal(size=(4, 6, 2)).astype("float32")


def op_model() -> lamina.Model:
    inputs = lamina.Input((6, 2))
    x = layers.Dense(3)(inputs)
    x = ops.clip(ops.add(ops.relu(x), 1.0), 0.5, 2.0)
    x = ops.reshape(ops.transpose(x, (0, 2, 1)), (-1, 18))
    stats = ops.concatenate([ops.mean(x, axis=-1, keepdims=True), ops.max(x, axis=1)[:, None]],
                            axis=-1)
    return lamina.Model(inputs, ops.softmax(layers.Dense(4)(ops.concatenate([x, stats], -1))))


def test_op_nodes_round_trip_through_config() -> None:
    model = op_model()
    config = json.loads(json.dumps(model.get_config()))
    modules = {e["class_name"]: e["module"] for e in config["layers"]}
    assert modules["Relu"] == "lamina.ops.nn" and modules["Reshape"] == "lamina.ops.numpy"
    reshape = next(e for e in config["layers"] if e["class_name"] == "Reshape")
    assert reshape["config"]["newshape"] == [-1, 18]
    clone = lamina.Model.from_config(config)
    clone.set_weights(model.get_weights())
    assert_allclose(clone.predict(X, verbose=0), model.predict(X, verbose=0), dtype="float32")


def test_op_nodes_round_trip_through_an_archive(tmp_path) -> None:
    model = op_model()
    model.save(tmp_path / "m.lamina")
    loaded = lamina.saving.load_model(tmp_path / "m.lamina")
    assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0), dtype="float32")


def test_an_op_holding_a_function_is_refused_by_name() -> None:
    inputs = lamina.Input((3,))
    outputs = ops.map(lambda row: row * 2.0, inputs)
    with pytest.raises(ValueError, match="map"):
        lamina.Model(inputs, outputs).get_config()
