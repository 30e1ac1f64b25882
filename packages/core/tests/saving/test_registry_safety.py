"""What a config may name: the explicit built-in table and the caller's objects, nothing else.

Every config here is written by hand, as an attacker would, and loaded with the defaults
(safe mode on). Each test failed before the table replaced the walk over the public
namespaces.
"""

from __future__ import annotations

import builtins
import inspect
import json
import types

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import Dense, Lambda
from lamina.ops.base import Op
from lamina.saving import registry
from lamina.saving import serialization as ser
from lamina.testing import assert_allclose

# Functions that read or write files, load or save models, change global settings,
# deserialize further objects, or run code: none may be reachable from a file.
DANGEROUS = [
    "__builtins__",
    "__import__",
    "exec",
    "eval",
    "open",
    "getattr",
    "load_model",
    "save_model",
    "model_from_json",
    "model_from_config",
    "load_weights",
    "save_weights",
    "clone_model",
    "set_dtype_policy",
    "set_floatx",
    "set_backend",
    "enable_unsafe_deserialization",
    "deserialize",
    "deserialize_lamina_object",
    "deserialize_keras_object",
    "serialize",
    "get",
    "get_custom_objects",
    "register_serializable",
    "custom_object_scope",
    "CustomObjectScope",
    "__class__",
    "__init__",
    "_deserialize",
]
MODULES = [
    None, "keras", "lamina", "keras.models", "lamina.saving", "keras.src.saving.saving_api",
    "lamina.dtype_policies", "lamina.config", "builtins", "keras.src.models.model",
]


@pytest.mark.parametrize("name", DANGEROUS)
@pytest.mark.parametrize("kind", ["function", "__class__"])
def test_dangerous_names_never_resolve(name, kind):
    for module in MODULES:
        config = {"module": module, "class_name": kind, "config": name, "registered_name": name}
        with pytest.raises(ValueError, match="Could not locate"):
            ser.deserialize_lamina_object(config)


@pytest.mark.parametrize("name", ["load_model", "set_dtype_policy", "model_from_json", "exec"])
def test_dangerous_names_are_not_classes_either(name):
    config = {"module": "keras.models", "class_name": name, "config": {}}
    with pytest.raises(ValueError, match="Could not locate"):
        ser.deserialize_lamina_object(config)


def test_the_builtin_table_holds_only_modeling_objects():
    table = registry.builtin_table()
    bases = (
        lamina.layers.Layer, lamina.Model, lamina.losses.Loss, lamina.metrics.Metric,
        lamina.optimizers.Optimizer, lamina.optimizers.OptimizerMap,
        lamina.optimizers.schedules.LearningRateSchedule, lamina.initializers.Initializer,
        lamina.regularizers.Regularizer, lamina.constraints.Constraint,
        lamina.dtype_policies.DTypePolicy, lamina.random.SeedGenerator,
    )
    forbidden = {
        id(obj) for obj in (
            lamina.saving.load_model, lamina.saving.save_model, lamina.models.load_model,
            lamina.models.model_from_json, lamina.models.clone_model,
            lamina.dtype_policies.set_dtype_policy, lamina.saving.deserialize_lamina_object,
            lamina.activations.get, lamina.activations.deserialize, lamina.losses.get,
            exec, eval, open,
        )
    }
    assert len(table.names()) > 300  # every built-in layer, loss, metric... is there
    for namespace, entries in table.entries.items():
        for name, obj in entries.items():
            assert not name.startswith("_"), (namespace, name)
            assert id(obj) not in forbidden, (namespace, name)
            if namespace == "ops":
                assert issubclass(obj, Op) and obj.__module__.startswith("lamina.ops."), name
                assert not obj.__module__.startswith("lamina.ops.core.control_flow"), name
            elif inspect.isclass(obj):
                assert issubclass(obj, bases) and hasattr(obj, "from_config"), (namespace, name)
            else:
                assert isinstance(obj, types.FunctionType), (namespace, name)
                assert obj.__module__.startswith(
                    ("lamina.activations.", "lamina.losses.", "lamina.metrics.")
                ), (namespace, name, obj.__module__)
    for name in DANGEROUS:
        assert table.find(name) is None, name


def test_keras_module_paths_choose_a_namespace_of_the_table():
    cases = {
        ("keras.src.layers.core.dense", "Dense"): lamina.layers.Dense,
        ("keras.layers", "Dense"): lamina.layers.Dense,
        ("keras.metrics", "MeanSquaredError"): lamina.metrics.MeanSquaredError,
        ("keras.losses", "MeanSquaredError"): lamina.losses.MeanSquaredError,
        ("keras.src.losses.losses", "MeanSquaredError"): lamina.losses.MeanSquaredError,
        ("keras.src.optimizers.schedules.learning_rate_schedule", "ExponentialDecay"):
            lamina.optimizers.schedules.ExponentialDecay,
        ("keras", "DTypePolicy"): lamina.dtype_policies.DTypePolicy,
    }
    for (module, name), expected in cases.items():
        assert registry.builtin_table().find(name, module, "class") is expected, module
    relu = {"module": "keras.src.activations.activations", "class_name": "function",
            "config": "relu", "registered_name": "relu"}
    assert ser.deserialize_lamina_object(relu) is lamina.activations.relu


def _functional(layers, inputs=("in", 0, 0), outputs=("out", 0, 0)):
    return {
        "module": "keras.src.models.functional",
        "class_name": "Functional",
        "config": {
            "name": "model",
            "trainable": True,
            "layers": layers,
            "input_layers": [list(inputs)],
            "output_layers": [list(outputs)],
        },
        "registered_name": "Functional",
    }


def _input(name="in", shape=(None, 2), dtype="float32"):
    return {
        "module": "keras.layers", "class_name": "InputLayer", "name": name,
        "config": {"name": name, "batch_shape": list(shape), "dtype": dtype},
        "inbound_nodes": [],
    }


def _ref(layer, node=0, index=0, shape=(None, 2)):
    return {"class_name": "__lamina_tensor__",
            "config": {"shape": list(shape), "dtype": "float32", "history": [layer, node, index]}}


def _lambda(name, function, args, arguments=None):
    return {
        "module": "keras.layers", "class_name": "Lambda", "name": name,
        "config": {
            "name": name,
            "function": {"module": "keras.models", "class_name": "function",
                         "config": function, "registered_name": function},
            "arguments": arguments or {},
        },
        "inbound_nodes": [{"args": args, "kwargs": {}}],
    }


def _entry_points(config, **kwargs):
    """Load `config` through every loading entry point, each with the same result."""
    text = json.dumps(config)
    yield lambda: ser.deserialize_lamina_object(json.loads(text), **kwargs)
    yield lambda: lamina.models.model_from_json(text, **kwargs)
    yield lambda: lamina.Model.from_config(json.loads(text)["config"], **kwargs)


def test_the_model_from_json_then_exec_attack_runs_nothing():
    payload = "import builtins; builtins.LAMINA_PWNED = True"
    inner = _functional([_input(), _lambda("out", "exec", [payload, _ref("in")])])
    outer = _functional([
        _input(),
        _lambda("out", "model_from_json", [json.dumps(inner), _ref("in")],
                arguments={"custom_objects": {"exec": "exec"}}),
    ])
    outer_plain = _functional([
        _input(),
        {**_lambda("out", "model_from_json", [_ref("in")]),
         "inbound_nodes": [{"args": [json.dumps(inner)], "kwargs": {}}]},
    ])
    for config in (outer, outer_plain, inner):
        for load in _entry_points(config):
            with pytest.raises(ValueError):
                load()
    with ser.SafeModeScope(False):  # even a caller who trusts bytecode: names stay closed
        for config in (outer_plain, inner):
            for load in _entry_points(config):
                with pytest.raises(ValueError, match=r"Could not locate|no tensor"):
                    load()
    with pytest.raises(ValueError, match="Could not locate"):
        ser.deserialize_lamina_object({"class_name": "function", "config": "exec"}, safe_mode=False)
    assert not hasattr(builtins, "LAMINA_PWNED")


def test_a_file_cannot_switch_safe_mode_off():
    config = _functional([
        _input(),
        _lambda("out", "load_model", [_ref("in")], arguments={"safe_mode": False}),
    ])
    for load in _entry_points(config):
        with pytest.raises(ValueError, match="safe_mode"):
            load()
    # Not even with the caller's permission for bytecode: the key is the caller's alone.
    with pytest.raises(ValueError, match="only the caller"):
        ser.deserialize_lamina_object(config, safe_mode=False)
    nested = {"class_name": "Dense", "config": {"units": 2, "extra": {"custom_objects": {}}}}
    with pytest.raises(ValueError, match="custom_objects"):
        ser.deserialize_lamina_object(nested)


def test_side_effect_functions_cannot_be_reached(tmp_path):
    before = lamina.dtype_policies.dtype_policy().name
    target = tmp_path / "written" / "m.lamina"
    for function, arguments in [
        ("set_dtype_policy", {}),
        ("save_model", {"filepath": str(target)}),
        ("load_model", {}),
    ]:
        config = _functional([_input(), _lambda("out", function, [_ref("in")], arguments)])
        for load in _entry_points(config):
            with pytest.raises(ValueError):
                load()
        with pytest.raises(ValueError, match="Could not locate"):
            ser.deserialize_lamina_object(config, safe_mode=False)
    assert lamina.dtype_policies.dtype_policy().name == before
    assert not target.parent.exists()


def double(x):
    return x * 2.0


def test_safe_mode_lambda_runs_only_functions_the_caller_registered():
    layer = Lambda(lamina.activations.relu, name="lam")
    config = json.loads(json.dumps(layer.get_config()))
    x = np.array([[-1.0, 2.0]], dtype="float32")
    # A built-in, pure as it is, is named by the file: refused like bytecode.
    with pytest.raises(ValueError, match="caller registered"):
        Lambda.from_config(config)
    wrapped = json.loads(json.dumps(ser.serialize_lamina_object(layer)))
    with pytest.raises(ValueError, match="caller registered"):
        ser.deserialize_lamina_object(wrapped)
    # Registered by the caller, in any of the three ways: accepted.
    by_argument = Lambda.from_config(config, custom_objects={"relu": ops.relu})
    assert_allclose(by_argument(x), [[0.0, 2.0]])
    with lamina.saving.custom_object_scope({"relu": lamina.activations.relu}):
        assert_allclose(ser.deserialize_lamina_object(wrapped)(x), [[0.0, 2.0]])
    # A caller who trusts the file may use the built-in table.
    assert_allclose(Lambda.from_config(config, safe_mode=False)(x), [[0.0, 2.0]])


def test_registered_functions_load_in_safe_mode_through_every_entry_point():
    registered = lamina.saving.register_serializable(package="safety_tests")(double)
    inputs = lamina.Input((2,))
    model = lamina.Model(inputs, Lambda(registered, name="out")(inputs))
    x = np.array([[1.0, -3.0]], dtype="float32")
    for load in _entry_points(json.loads(model.to_json())):
        assert_allclose(load()(x), 2 * x)


def test_clone_model_decides_as_loading_does():
    inputs = lamina.Input((2,))
    named = lamina.Model(inputs, Lambda(ops.relu, name="out")(Dense(2)(inputs)))
    clone = lamina.models.clone_model(named)  # the model's own functions: the caller's
    assert clone.get_layer("out").function is ops.relu
    anonymous = lamina.Model(inputs, Lambda(lambda t: t + 1.0, name="out")(inputs))
    with pytest.raises(ValueError, match="bytecode"):
        lamina.models.clone_model(anonymous)
    # The clone's own functions do not leak into later loads.
    with pytest.raises(ValueError, match="caller registered"):
        Lambda.from_config(named.get_layer("out").get_config())


def test_a_call_recorded_in_a_config_must_take_a_tensor():
    calls = []

    @lamina.saving.register_serializable(package="safety_tests")
    class Probe(lamina.layers.Layer):
        def call(self, x, extra=None):
            calls.append(extra)
            return x

    probe = {"module": "x", "class_name": "safety_tests>Probe", "name": "out",
             "config": {"name": "out"}, "inbound_nodes": []}
    constant = _functional([
        _input(), {**probe, "inbound_nodes": [{"args": ["a constant"], "kwargs": {}}]},
    ])
    with pytest.raises(ValueError, match="takes no tensor"):
        lamina.Model.from_config(constant["config"])
    assert calls == []
    # JSON values beside tensors reach the layer as they are: no object is built from them.
    described = {"class_name": "Dense", "config": {"units": 1}}
    with_kwargs = _functional([
        _input(),
        {**probe, "inbound_nodes": [{"args": [_ref("in")], "kwargs": {"extra": described}}]},
    ])
    model = lamina.Model.from_config(with_kwargs["config"])
    assert calls and all(c == described for c in calls)
    assert isinstance(model, lamina.Model)


def test_custom_objects_that_shadow_a_builtin_warn_and_win():
    class Dense(lamina.layers.Dense):  # the point is the shared name
        pass

    config = json.loads(json.dumps(ser.serialize_lamina_object(lamina.layers.Dense(3))))
    with pytest.warns(UserWarning, match="'Dense' replaces the built-in"):
        layer = ser.deserialize_lamina_object(config, custom_objects={"Dense": Dense})
    assert type(layer) is Dense
    # The same object under its own name is no shadowing: silent.
    same = ser.deserialize_lamina_object(config, custom_objects={"Dense": lamina.layers.Dense})
    assert type(same) is lamina.layers.Dense


@pytest.mark.parametrize("name", ["Cond", "Map", "Scan", "ForiLoop", "WhileLoop", "Switch"])
def test_ops_that_take_functions_cannot_be_named(name):
    config = {"module": "keras.src.ops.core", "class_name": name, "config": {}}
    with pytest.raises(ValueError, match="Could not locate"):
        ser.deserialize_lamina_object(config)


def test_an_op_is_found_only_where_the_module_names_ops():
    # "Relu" without a module is no layer or other modeling object, and not the op either.
    with pytest.raises(ValueError, match="Could not locate"):
        ser.deserialize_lamina_object({"class_name": "Relu", "config": {}})
    op = ser.deserialize_lamina_object(
        {"module": "keras.src.ops.nn", "class_name": "Relu", "config": {"name": "r"}}
    )
    assert isinstance(op, Op) and op.name == "r"

