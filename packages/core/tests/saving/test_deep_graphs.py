"""Long graphs: mapping is iterative and replaying a config is linear in its calls.

A 1,500-layer chain hit Python's recursion limit in the graph mapping, and replaying a
functional config rescanned every pending call per step (quadratic).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import Dense
from lamina.ops.function import GraphError, map_graph
from lamina.testing import assert_allclose


def _json(config):
    return json.loads(json.dumps(config))


def _chain(length, units=1):
    inputs = lamina.Input((2,))
    x = inputs
    for _ in range(length - 1):
        x = Dense(units)(x)
    return lamina.Model(inputs, Dense(2)(x))


def test_a_1500_layer_chain_builds_and_round_trips():
    model = _chain(1_500)
    assert len(model.layers) >= 1_500
    x = np.ones((3, 2), dtype="float32")
    rebuilt = lamina.Model.from_config(_json(model.get_config()))
    rebuilt.set_weights(model.get_weights())
    assert_allclose(rebuilt(x), ops.convert_to_numpy(model(x)))


def test_a_10000_layer_chain_builds_saves_loads_and_runs(deep_chain):
    # 10,000 layers on NumPy; 2,000 under a lowered recursion limit elsewhere.
    model = _chain(deep_chain)
    config = _json(model.get_config())
    assert len(config["layers"]) == deep_chain + 1  # the InputLayer too
    rebuilt = lamina.Model.from_config(config)
    assert len(rebuilt.layers) == len(model.layers)
    rebuilt.set_weights(model.get_weights())
    x = np.array([[0.5, -1.0]], dtype="float32")
    assert_allclose(rebuilt(x), ops.convert_to_numpy(model(x)))
    lines = []
    model.summary(print_fn=lambda line, **kwargs: lines.append(line))
    assert len(lines) > deep_chain


def test_replay_follows_dependencies_not_the_order_of_the_config():
    inputs = lamina.Input((2,))
    shared = Dense(2, name="shared")
    a = shared(inputs)
    b = Dense(2, name="b")(a)
    c = shared(b)  # the shared layer's second call needs its first
    outputs = lamina.layers.Add(name="add")([Dense(2, name="d")(c), a])
    model = lamina.Model(inputs, outputs)
    config = _json(model.get_config())
    x = np.array([[1.0, -2.0]], dtype="float32")
    for seed in range(3):
        shuffled = dict(config, layers=list(config["layers"]))
        random.Random(seed).shuffle(shuffled["layers"])
        rebuilt = lamina.Model.from_config(shuffled)
        assert _json(rebuilt.get_config()) == config
        rebuilt.set_weights(model.get_weights())
        assert_allclose(rebuilt(x), ops.convert_to_numpy(model(x)))
    reversed_chain = _chain(300).get_config()
    reversed_chain["layers"].reverse()
    assert len(lamina.Model.from_config(reversed_chain).layers) >= 300


def test_map_graph_still_finds_cycles_and_disconnections_without_recursion():
    inputs = lamina.Input((2,))
    x = inputs
    for _ in range(3_000):
        x = lamina.ops.relu(x)
    nodes, by_depth, operations = map_graph([inputs], [x])
    assert len(nodes) == len(operations) == 3_000 and len(by_depth) == 3_000
    other = lamina.Input((2,))
    with pytest.raises(GraphError, match="disconnected"):
        map_graph([other], [x])


def test_sequential_from_config_is_linear_in_its_layers():
    # It rebuilt the whole graph at every `add`: 2,000 layers took minutes.
    model = lamina.Sequential([lamina.Input((2,)), *(Dense(1) for _ in range(2_000))])
    rebuilt = lamina.Sequential.from_config(_json(model.get_config()))
    assert len(rebuilt.layers) == 2_000
    rebuilt.set_weights(model.get_weights())
    x = np.array([[0.5, -1.0]], dtype="float32")
    assert_allclose(rebuilt(x), ops.convert_to_numpy(model(x)))


@pytest.mark.parametrize("layers", [5, "x", None, {"a": 1}])
def test_sequential_config_layers_must_be_a_list(layers):
    with pytest.raises(ValueError, match="'layers', a list"):
        lamina.Sequential.from_config({"name": "s", "layers": layers})


def test_model_from_json_refuses_json_nested_too_deep_for_the_parser():
    with pytest.raises(ValueError, match="json_string"):
        lamina.models.model_from_json("[" * 100_000 + "]" * 100_000)
