"""The serialization registry: names resolve through registries only, never imports."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

import lamina
from lamina.saving import serialization as ser


class Scale(lamina.layers.Layer):
    def __init__(self, factor: float = 2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_basic_values_round_trip():
    value = {"a": 1, "b": [1.5, "x", None], "t": (1, 2), "arr": np.arange(3, dtype="int16")}
    config = json.loads(json.dumps(ser.serialize_lamina_object(value)))
    back = ser.deserialize_lamina_object(config)
    assert back["a"] == 1 and back["b"] == [1.5, "x", None] and back["t"] == (1, 2)
    assert back["arr"].dtype == np.int16
    np.testing.assert_array_equal(back["arr"], [0, 1, 2])


def test_unregistered_class_is_refused_with_a_hint():
    config = ser.serialize_lamina_object(Scale(3.0, name="s"))
    assert config["class_name"] == "Scale"
    with pytest.raises(ValueError, match="register_serializable"):
        ser.deserialize_lamina_object(config)


def test_custom_objects_and_scopes_resolve_a_class():
    config = ser.serialize_lamina_object(Scale(3.0, name="s"))
    layer = ser.deserialize_lamina_object(config, custom_objects={"Scale": Scale})
    assert isinstance(layer, Scale) and layer.factor == 3.0 and layer.name == "s"
    with lamina.saving.custom_object_scope({"Scale": Scale}):
        assert ser.deserialize_lamina_object(config).factor == 3.0


def test_registered_class_round_trips_by_registered_name():
    @lamina.saving.register_serializable(package="tests")
    class Doubler(Scale):
        pass

    assert lamina.saving.get_registered_name(Doubler) == "tests>Doubler"
    assert lamina.saving.get_registered_object("tests>Doubler") is Doubler
    config = ser.serialize_lamina_object(Doubler(name="d"))
    assert config["registered_name"] == "tests>Doubler"
    assert isinstance(ser.deserialize_lamina_object(config), Doubler)


def test_registering_a_different_object_under_a_taken_name_fails():
    @lamina.saving.register_serializable(package="tests", name="Taken")
    def first(x):
        return x

    def second(x):
        return x

    with pytest.raises(ValueError, match="already registered"):
        lamina.saving.register_serializable(package="tests", name="Taken")(second)
    with pytest.raises(ValueError, match="package"):
        lamina.saving.register_serializable(package="a>b")


def test_module_named_in_a_file_is_never_imported(monkeypatch):
    imported = []
    real_import = __import__

    def spy(name, *args, **kwargs):
        imported.append(name)
        return real_import(name, *args, **kwargs)

    real_import_module = importlib.import_module

    def spy_module(name, *args, **kwargs):
        imported.append(name)
        return real_import_module(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", spy)
    monkeypatch.setattr(importlib, "import_module", spy_module)
    config = {
        "module": "xml.dom.minidom",
        "class_name": "parseString",
        "config": {},
        "registered_name": None,
    }
    with pytest.raises(ValueError, match="Could not locate"):
        ser.deserialize_lamina_object(config)
    assert not any(name.startswith("xml") for name in imported)


def test_lambda_bytecode_refused_in_safe_mode_and_allowed_when_asked():
    config = json.loads(json.dumps(ser.serialize_lamina_object(lambda x, k=3: x * k)))
    assert config["class_name"] == "__lambda__"
    with pytest.raises(ValueError, match="safe_mode=False"):
        ser.deserialize_lamina_object(config)
    fn = ser.deserialize_lamina_object(config, safe_mode=False)
    assert fn(2) == 6
    with ser.SafeModeScope(False):
        assert ser.in_safe_mode() is False
    assert ser.in_safe_mode() is True


def test_keras_module_names_map_to_lamina_namespaces():
    config = {"module": "keras.src.models.sequential", "class_name": "Sequential",
              "config": {"name": "seq", "layers": []}, "registered_name": None}
    model = ser.deserialize_lamina_object(config)
    assert isinstance(model, lamina.Sequential) and model.name == "seq"


def test_non_numeric_arrays_are_refused():
    bad = {"class_name": "__numpy__", "config": {"value": ["a"], "dtype": "object"}}
    with pytest.raises(ValueError, match="non-numeric"):
        ser.deserialize_lamina_object(bad)


def test_bad_custom_objects_type():
    with pytest.raises(TypeError, match="custom_objects"):
        lamina.saving.CustomObjectScope(["Scale"])  # type: ignore[arg-type]
