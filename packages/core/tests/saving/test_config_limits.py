"""Bad configs end in a ValueError or TypeError that names the entry, never a foreign one.

Each config is a forged dict, as a damaged or hostile file would hold. Before the limits
and the entry checks, these ended in RecursionError, KeyError, IndexError, AttributeError
or raw Python messages.
"""

from __future__ import annotations

import copy
import json

import pytest

import lamina
from lamina.saving import limits
from lamina.saving import serialization as ser

FOREIGN = ("vars() argument", "object has no attribute", "list index out of range",
           "maximum recursion depth", "unhashable type")


def _refused(load, match=None):
    """`load()` fails with a ValueError/TypeError whose message is no raw Python one."""
    with pytest.raises((ValueError, TypeError)) as info:
        load()
    assert type(info.value) not in (KeyError, IndexError, AttributeError, RecursionError)
    text = str(info.value)
    assert not any(raw in text for raw in FOREIGN), text
    if match is not None:
        assert match in text, text
    return info.value


def _nested(depth):
    config = []
    for _ in range(depth):
        config = [config]
    return config


def test_deep_nesting_is_refused_without_recursion():
    _refused(lambda: ser.deserialize_lamina_object(_nested(100_000)), "nesting deeper")
    deep_dense = {"class_name": "Dense", "config": {"units": 1, "name": _nested(5_000)}}
    _refused(lambda: ser.deserialize_lamina_object(deep_dense), "nesting deeper")
    assert ser.deserialize_lamina_object(_nested(limits.MAX_DEPTH - 1)) == _nested(
        limits.MAX_DEPTH - 1
    )


def test_long_strings_many_layers_and_caller_only_keys_are_refused():
    name = "n" * (limits.MAX_STRING + 1)
    huge_name = {"class_name": "Dense", "config": {"units": 1, "name": name}}
    _refused(lambda: ser.deserialize_lamina_object(huge_name), "characters")
    many = {"class_name": "Sequential", "config": {"layers": [{}] * (limits.MAX_LAYERS + 1)}}
    _refused(lambda: ser.deserialize_lamina_object(many), "layers")
    for key in ("safe_mode", "custom_objects"):
        hidden = {"class_name": "Dense", "config": {"units": 1, "kernel_initializer": {
            "class_name": "Zeros", "config": {key: False}}}}
        error = _refused(lambda h=hidden: ser.deserialize_lamina_object(h), key)
        assert "['kernel_initializer']" in str(error)


BAD_OBJECTS = [
    {"class_name": 5, "config": {}},
    {"class_name": ["Dense"], "config": {}},
    {"class_name": "__tuple__", "config": 3},
    {"class_name": "__tuple__", "config": {"value": 3}},
    {"class_name": "__numpy__", "config": [1, 2]},
    {"class_name": "__numpy__", "config": {"value": [[1], [1, 2]], "dtype": "float32"}},
    {"class_name": "__numpy__", "config": {"value": 1, "dtype": "no such dtype"}},
    {"class_name": "__numpy__", "config": {"value": 1, "dtype": ["float32"]}},
    {"class_name": "__numpy__", "config": {"value": 1, "dtype": "(3,)i4"}},
    {"class_name": "function", "config": ["relu"]},
    {"class_name": "function", "config": {"name": "relu"}},
    {"class_name": "Dense", "config": []},
    {"class_name": "Dense", "config": "units"},
    {"class_name": "Dense", "config": {"units": 2, "bogus": 1}},
    {"class_name": "Dense", "config": {"units": "many"}},
    {"class_name": "Dense", "config": {"units": 2, "activation": {"class_name": "x"}}},
    {"class_name": "Sequential", "config": {"layers": 5}},
    {"class_name": "Sequential", "config": {"layers": [5]}},
    {"class_name": "Sequential", "config": {"layers": [{"class_name": "Dense"}]}},
    {"class_name": "Lambda", "config": {"name": "lam"}},
    {"class_name": "Lambda", "config": {"function": None, "output_shape": 3}},
]


@pytest.mark.parametrize("config", BAD_OBJECTS, ids=lambda c: json.dumps(c)[:60])
def test_malformed_objects_name_the_entry(config):
    _refused(lambda: ser.deserialize_lamina_object(copy.deepcopy(config)))


def test_bytecode_entries_are_checked_before_use():
    for inner in ("x", {"code": 5}, {"code": "@@not base64@@"}, {"code": "AAAA"},
                  {"code": "AAAA", "defaults": {"a": 1}}):
        bad = {"class_name": "__lambda__", "config": inner}
        _refused(lambda b=bad: ser.deserialize_lamina_object(b, safe_mode=False))


def test_errors_from_inside_a_constructor_name_the_entry():
    bogus = {"class_name": "Dense", "config": {"name": "d7", "units": 2, "bogus": 1}}
    error = _refused(lambda: ser.deserialize_lamina_object(bogus), "Dense 'd7'")
    assert isinstance(error, ValueError) and isinstance(error, TypeError)
    nested = {"class_name": "Sequential", "config": {"name": "outer", "layers": [bogus]}}
    _refused(lambda: ser.deserialize_lamina_object(nested), "Dense 'd7'")


def _input(name="in"):
    return {"class_name": "InputLayer", "name": name, "inbound_nodes": [],
            "config": {"name": name, "batch_shape": [None, 2], "dtype": "float32"}}


def _dense(name, *calls):
    return {"class_name": "Dense", "name": name, "config": {"name": name, "units": 2},
            "inbound_nodes": [{"args": list(args), "kwargs": {}} for args in calls]}


def _ref(history):
    return {"class_name": "__lamina_tensor__", "config": {"history": history}}


def _graph(layers, outputs=("d", 0, 0), inputs=("in", 0, 0)):
    return {"name": "m", "layers": layers, "input_layers": [list(inputs)],
            "output_layers": [list(outputs)]}


GOOD = _graph([_input(), _dense("d", [_ref(["in", 0, 0])])])
BAD_GRAPHS = {
    "not a dict": [],
    "no layers": {"input_layers": [], "output_layers": []},
    "layers not a list": {**GOOD, "layers": {"d": 1}},
    "entry not a dict": {**GOOD, "layers": [_input(), 3]},
    "entry without name": {**GOOD, "layers": [_input(), {"class_name": "Dense", "config": {}}]},
    "duplicate names": _graph([_input(), _dense("d", [_ref(["in", 0, 0])]), _dense("d")]),
    "inbound_nodes not a list": _graph([_input(), {**_dense("d"), "inbound_nodes": 4}]),
    "call not a dict": _graph([_input(), {**_dense("d"), "inbound_nodes": [[["in", 0, 0]]]}]),
    "args not a list": _graph([_input(), {**_dense("d"), "inbound_nodes": [{"args": 1}]}]),
    "history too short": _graph([_input(), _dense("d", [_ref(["in"])])]),
    "history of numbers": _graph([_input(), _dense("d", [_ref([1, 2, 3])])]),
    "negative node": _graph([_input(), _dense("d", [_ref(["in", -1, 0])])]),
    "history missing": _graph([_input(), _dense("d", [{"class_name": "__lamina_tensor__",
                                                      "config": 7}])]),
    "unknown layer": _graph([_input(), _dense("d", [_ref(["ghost", 0, 0])])]),
    "unknown node": _graph([_input(), _dense("d", [_ref(["in", 4, 0])])]),
    "tensor index out of range": _graph([_input(), _dense("d", [_ref(["in", 0, 9])])]),
    "no tensor in call": _graph([_input(), _dense("d", [[1.0, 2.0]])]),
    "cycle": _graph([_input(), _dense("a", [_ref(["b", 0, 0])]), _dense("b", [_ref(["a", 0, 0])]),
                     _dense("d", [_ref(["b", 0, 0])])]),
    "calls itself": _graph([_input(), _dense("d", [_ref(["d", 0, 0])])]),
    "bad output endpoint": _graph([_input(), _dense("d", [_ref(["in", 0, 0])])], ("d", 3, 0)),
    "output endpoint not a triple": {**GOOD, "output_layers": ["d"]},
    "name not a string": {**GOOD, "name": ["m"]},
    "layer call fails": _graph([_input(), {"class_name": "Add", "name": "d", "config": {
        "name": "d"}, "inbound_nodes": [{"args": [_ref(["in", 0, 0])], "kwargs": {}}]}]),
}


@pytest.mark.parametrize("case", sorted(BAD_GRAPHS))
def test_malformed_functional_configs_are_refused(case):
    config = copy.deepcopy(BAD_GRAPHS[case])
    _refused(lambda: lamina.Model.from_config(config))
    wrapped = {"class_name": "Functional", "config": copy.deepcopy(BAD_GRAPHS[case])}
    _refused(lambda: ser.deserialize_lamina_object(wrapped))


def test_the_well_formed_graph_of_these_cases_loads():
    model = lamina.Model.from_config(copy.deepcopy(GOOD))
    assert model.get_layer("d").units == 2 and tuple(model.outputs[0].shape) == (None, 2)
