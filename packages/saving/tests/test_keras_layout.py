"""`.keras` and `.weights.h5` in Keras 3's schema and layout, checked without Keras.

The expected group paths and config entries below are what Keras 3.15 itself writes for
the same models (the `keras` nox session checks the files against real Keras). Files
"written by Keras" are made here by removing what only Lamina adds, or by hand.
"""

from __future__ import annotations

import json
import zipfile

import h5py
import numpy as np
import pytest

import lamina
from lamina.backend import Capability
from lamina.saving.serialization import serialize_lamina_object
from lamina.testing import assert_allclose
from lamina_saving import LaminaFileError
from lamina_saving.h5_store import write_entries
from lamina_saving.keras3.config import from_keras, to_keras
from lamina_saving.keras3.files import LAMINA_PATH
from lamina_saving.keras3.layout import keras_order, snake_case
from lamina_saving.weights import model_entries

X = np.random.default_rng(0).normal(size=(5, 4)).astype("float32")


def _np(x):
    return lamina.ops.convert_to_numpy(x)


def _functional():
    a = lamina.Input((4,), name="a")
    left = lamina.layers.Dense(3, name="left")(a)
    right = lamina.layers.Dense(3, activation="relu", name="right")(a)
    out = lamina.layers.BatchNormalization()(lamina.layers.Add()([left, right]))
    model = lamina.Model(a, out, name="branches")
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    return model


class Block(lamina.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d = lamina.layers.Dense(3)
        self.items = [lamina.layers.Dense(3), lamina.layers.Dense(3)]
        self._priv = lamina.layers.Dense(3)

    def call(self, x):
        return self._priv(self.items[1](self.items[0](self.d(x))))


class Net(lamina.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.block = Block()
        self.head = lamina.layers.Dense(2)
        self.norm = lamina.layers.BatchNormalization()

    def call(self, x):
        return self.head(self.norm(self.block(x)))


def _groups(path):
    found = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: found.append(n) if n.endswith("vars") else None)
    return set(found)


def _as_keras_wrote_it(path):
    """Remove what only Lamina adds to a Keras-layout file (Keras writes neither)."""
    with h5py.File(path, "r+") as f:
        for name in list(f.attrs):
            del f.attrs[name]

        def strip(_, obj):
            for attr in (LAMINA_PATH, "crc32"):
                if attr in obj.attrs:
                    del obj.attrs[attr]

        f.visititems(strip)


def _modules(config):
    if isinstance(config, dict):
        found = [config["module"]] if isinstance(config.get("module"), str) else []
        return found + [m for v in config.values() for m in _modules(v)]
    if isinstance(config, list):
        return [m for v in config for m in _modules(v)]
    return []


# --- what Lamina writes -------------------------------------------------------------------
def test_keras_archive_is_in_keras_schema_and_layout(tmp_path):
    model = _functional()
    expected = _np(model.predict(X, verbose=0))
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        metadata = json.loads(z.read("metadata.json"))
        config = json.loads(z.read("config.json"))
        z.extract("model.weights.h5", tmp_path)
    assert metadata["keras_version"].startswith("3.")
    assert (config["module"], config["class_name"], config["registered_name"]) == (
        "keras.src.models.functional", "Functional", "Functional",
    )
    layer = config["config"]["layers"][1]
    assert (layer["module"], layer["class_name"], layer["registered_name"]) == (
        "keras.layers", "Dense", None,
    )
    tensor = layer["inbound_nodes"][0]["args"][0]
    assert tensor["class_name"] == "__keras_tensor__"
    assert tensor["config"]["keras_history"] == ["a", 0, 0]
    assert layer["build_config"] == {"input_shape": [None, 4]}  # lists, as Keras writes
    assert "lora_rank" not in layer["config"]
    assert all(m == "keras" or m.startswith("keras.") for m in _modules(config))
    assert config["compile_config"]["optimizer"]["module"] == "keras.optimizers"
    with h5py.File(tmp_path / "model.weights.h5", "r") as f:
        assert "format" not in f.attrs
        assert f["layers/dense/vars/0"].shape == (4, 3)  # named after the class, not "left"
        assert f["layers/dense/vars"].attrs["name"] == "left"
        assert f["layers/dense_1/vars"].attrs["name"] == "right"
        assert len(f["layers/batch_normalization/vars"]) == 4
        assert len(f["layers/add/vars"]) == 0 and "vars" in f
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert_allclose(loaded.predict(X, verbose=0), expected)


def test_weights_follow_keras_walk_of_a_subclassed_model(tmp_path):
    model = Net()
    model(X)
    model.save_weights(tmp_path / "n.weights.h5")
    # Keras 3.15 writes exactly these for the same model: a list's items by class name,
    # private attributes under their own name, and `norm` under the model's `layers`
    # property, which its walk visits before the `norm` attribute.
    assert _groups(tmp_path / "n.weights.h5") == {
        "vars", "block/vars", "block/d/vars", "block/items/dense/vars",
        "block/items/dense_1/vars", "block/_priv/vars", "head/vars",
        "layers/batch_normalization/vars",
    }


def test_nested_models_and_sequential_paths(tmp_path):
    inner = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3),
                               lamina.layers.Dropout(0.1)], name="inner")
    x = lamina.Input((4,))
    middle = lamina.Model(x, lamina.layers.Dense(2)(inner(x)))
    outer = lamina.Sequential([lamina.Input((4,)), middle, lamina.layers.Dense(1)])
    outer.save_weights(tmp_path / "o.weights.h5")
    assert _groups(tmp_path / "o.weights.h5") == {
        "vars", "layers/functional/vars", "layers/dense/vars",
        "layers/functional/layers/input_layer/vars",
        "layers/functional/layers/sequential/vars",
        "layers/functional/layers/sequential/layers/dense/vars",
        "layers/functional/layers/sequential/layers/dropout/vars",
        "layers/functional/layers/dense/vars",
    }


def test_optimizer_slots_are_written_variable_by_variable(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3, name="d")])
    model.compile(optimizer=lamina.optimizers.Adam(amsgrad=True), loss="mse")
    model.optimizer.build(model.trainable_variables)
    for i, v in enumerate(model.optimizer.variables):
        v.assign(np.full(tuple(v.shape), i + 1, dtype=v.dtype))
    names = [v.name for v in model.optimizer.variables]
    model.save_weights(tmp_path / "w.weights.h5")
    with h5py.File(tmp_path / "w.weights.h5", "r") as f:
        saved = [int(np.ravel(f[f"optimizer/vars/{i}"][()])[0]) for i in range(len(names))]
    by_value = [names[v - 1] for v in saved]
    assert by_value == [
        "iteration", "learning_rate", "d_kernel_momentum", "d_kernel_velocity",
        "d_bias_momentum", "d_bias_velocity", "d_kernel_velocity_hat", "d_bias_velocity_hat",
    ]
    assert sorted(keras_order(model.optimizer)) == list(range(len(names)))


def test_snake_case_matches_keras_names():
    assert [snake_case(n) for n in ("Conv2DTranspose", "BatchNormalization",
                                    "GlobalAveragePooling2D", "EinsumDense", "Functional")] == [
        "conv2d_transpose", "batch_normalization", "global_average_pooling2d",
        "einsum_dense", "functional",
    ]


# --- reading files Keras wrote ----------------------------------------------------------
@pytest.mark.parametrize("make", [_functional, Net], ids=["functional", "subclassed"])
def test_keras_written_weights_load_into_built_models(tmp_path, make):
    source, target = make(), make()
    source(X)
    target(X)
    path = tmp_path / "k.weights.h5"
    source.save_weights(path)
    _as_keras_wrote_it(path)
    status = target.load_weights(path)
    assert status.pending == []
    assert_allclose(target(X), _np(source(X)))


def _keras_archive(path, config, weights):
    """A `.keras` zip as Keras 3 writes it, from a config dict and ``{group: arrays}``."""
    h5 = path.with_suffix(".h5")
    with h5py.File(h5, "w") as f:
        for group, arrays in weights.items():
            g = f.create_group(f"{group}/vars" if group else "vars")
            for i, a in enumerate(arrays):
                g[str(i)] = a
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "3.15.1"}))
        z.writestr("config.json", json.dumps(config))
        z.write(h5, "model.weights.h5")


def _keras_dense_config():
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
              "registered_name": None, "shared_object_id": 1}
    init = {"module": "keras.initializers", "class_name": "GlorotUniform",
            "config": {"seed": None, "input_axes": None, "output_axes": None},
            "registered_name": None}
    return {
        "module": "keras", "class_name": "Sequential", "registered_name": None,
        "config": {
            "name": "sequential", "trainable": True, "dtype": policy,
            "layers": [
                {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None,
                 "config": {"batch_shape": [None, 4], "dtype": "float32", "sparse": False,
                            "ragged": False, "name": "input_layer", "optional": False}},
                {"module": "keras.src.layers.core.dense", "class_name": "Dense",
                 "registered_name": None, "build_config": {"input_shape": [None, 4]},
                 "config": {"name": "dense", "trainable": True, "dtype": policy, "units": 3,
                            "activation": "relu", "use_bias": True,
                            "kernel_initializer": init, "bias_initializer": "zeros",
                            "kernel_regularizer": None, "bias_regularizer": None,
                            "kernel_constraint": None, "bias_constraint": None,
                            "quantization_config": None}},
            ],
            "build_input_shape": [None, 4],
        },
        "build_config": {"input_shape": [None, 4]},
        "compile_config": {
            "optimizer": {"module": "keras.optimizers", "class_name": "SGD",
                          "config": {"name": "SGD", "learning_rate": 0.5}, "registered_name": None},
            "loss": "mse", "loss_weights": None, "metrics": ["mae"], "weighted_metrics": None,
            "run_eagerly": False, "steps_per_execution": 1, "jit_compile": True,
        },
    }


def test_hand_made_keras_archive_loads(tmp_path):
    rng = np.random.default_rng(3)
    kernel, bias = rng.normal(size=(4, 3)).astype("float32"), rng.normal(size=3).astype("float32")
    path = tmp_path / "k.keras"
    _keras_archive(path, _keras_dense_config(), {"": [], "layers/dense": [kernel, bias]})
    model = lamina.saving.load_model(path)
    assert_allclose(model.predict(X, verbose=0), np.maximum(X @ kernel + bias, 0.0))
    assert model.get_compile_config()["loss"] == "mse"
    assert type(model.optimizer).__name__ == "SGD"


def test_keras_sharded_weights_with_a_split_group_load(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3)])
    kernel, bias = (np.full((4, 3), 0.5, "float32"), np.arange(3, dtype="float32"))
    for shard, (index, value) in enumerate([(0, kernel), (1, bias)]):
        with h5py.File(tmp_path / f"w_{shard:05d}.weights.h5", "w") as f:
            f[f"layers/dense/vars/{index}"] = value  # Keras splits a group over shards
    index = {"metadata": {"total_size": 60},
             "weight_map": {"/layers/dense/vars": ["w_00000.weights.h5", "w_00001.weights.h5"]}}
    (tmp_path / "w.weights.json").write_text(json.dumps(index))
    model.load_weights(tmp_path / "w.weights.json")
    assert_allclose(model.layers[0].kernel, kernel)
    assert_allclose(model.layers[0].bias, bias)


@pytest.mark.parametrize("case", ["outside", "twice", "gap"])
def test_bad_keras_shard_index_is_refused(tmp_path, case):
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3)])
    with h5py.File(tmp_path / "w_00000.weights.h5", "w") as f:
        f["layers/dense/vars/0"] = np.zeros((4, 3), "float32")
        f["layers/dense/vars/1" if case != "gap" else "layers/dense/vars/2"] = np.zeros(3, "f4")
    names = {"outside": ["../w_00000.weights.h5"], "twice": ["w_00000.weights.h5"] * 2,
             "gap": ["w_00000.weights.h5"]}[case]
    if case == "twice":  # the same group's values in two shards
        copy = (tmp_path / "w_00000.weights.h5").read_bytes()
        (tmp_path / "v_00000.weights.h5").write_bytes(copy)
        names = ["w_00000.weights.h5", "v_00000.weights.h5"]
    index = {"metadata": {}, "weight_map": {"/layers/dense/vars": names}}
    (tmp_path / "w.weights.json").write_text(json.dumps(index))
    with pytest.raises(LaminaFileError, match=r"w\.weights\.json"):
        model.load_weights(tmp_path / "w.weights.json")


def test_forged_keras_layout_is_refused(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3)])
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    _as_keras_wrote_it(path)
    for edit, pattern in [
        (lambda f: f.__setitem__("layers/x/vars/0", h5py.SoftLink("/layers")), "SoftLink"),
        (lambda f: f.create_dataset("layers/dense/vars/kernel", data=[1.0]), "not a variable"),
        (lambda f: f.create_dataset("layers/stray", data=[1.0]), "outside vars"),
    ]:
        forged = tmp_path / "forged.weights.h5"
        forged.write_bytes(path.read_bytes())
        with h5py.File(forged, "r+") as f:
            edit(f)
        with pytest.raises(LaminaFileError, match=pattern):
            model.load_weights(forged)


# --- Lamina's own earlier layout ------------------------------------------------------------
def test_lamina_layout_weights_and_keras_archives_still_load(tmp_path):
    source = _functional()
    source(X)
    expected = _np(source(X))
    old_weights = tmp_path / "old.weights.h5"
    write_entries(str(old_weights), model_entries(source))
    target = _functional()
    target(X)
    target.load_weights(old_weights)
    assert_allclose(target(X), expected)
    old_archive = tmp_path / "old.keras"  # what Lamina wrote as .keras before
    with zipfile.ZipFile(old_archive, "w") as z:
        z.writestr("metadata.json", json.dumps({"lamina_version": "0.1.0"}))
        z.writestr("config.json", json.dumps(serialize_lamina_object(source)))
        z.write(old_weights, "model.weights.h5")
    assert_allclose(lamina.saving.load_model(old_archive)(X), expected)


def test_lamina_archives_keep_lamina_layout(tmp_path):
    model = _functional()
    model(X)
    model.save(tmp_path / "m.lamina")
    with zipfile.ZipFile(tmp_path / "m.lamina") as z:
        config = json.loads(z.read("config.json"))
        z.extract("model.weights.h5", tmp_path)
    assert config["module"] == "lamina.models"
    with h5py.File(tmp_path / "model.weights.h5", "r") as f:
        assert f.attrs["format"] == "lamina-weights"


# --- deferred restore of Keras-layout files --------------------------------------------------
@pytest.mark.requires(Capability.TRAINING)
def test_optimizer_state_waits_for_an_unbuilt_model(tmp_path):
    def make(built):
        layers = [lamina.layers.Dense(3, activation="tanh"), lamina.layers.Dense(2)]
        model = lamina.Sequential(([lamina.Input((4,))] if built else []) + layers)
        model.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.1), loss="mse")
        return model

    y = np.ones((5, 2), "float32")
    source = make(built=True)
    source.fit(X, y, epochs=3, verbose=0)
    source.save_weights(tmp_path / "w.weights.h5")
    target = make(built=False)
    status = target.load_weights(tmp_path / "w.weights.h5")
    assert "optimizer" in status.pending
    target.train_on_batch(X, y)  # builds the model, then the optimizer, then restores
    source.train_on_batch(X, y)
    assert status.pending == []
    for got, want in zip(target.get_weights(), source.get_weights()):
        assert_allclose(got, _np(want))


# --- config translation ---------------------------------------------------------------------
def test_config_translation_round_trips_and_refuses_what_it_cannot_keep():
    lamina_config = serialize_lamina_object(_functional())
    assert from_keras(lamina_config) == lamina_config  # idempotent on Lamina's schema
    assert from_keras(to_keras(lamina_config))["config"]["layers"][1]["config"]["units"] == 3
    with pytest.raises(ValueError, match="renorm"):
        from_keras({"module": "keras.layers", "class_name": "BatchNormalization",
                    "config": {"renorm": True}, "registered_name": None})
    plain = to_keras(serialize_lamina_object(lamina.layers.Dense(3)))["config"]
    lora = to_keras(serialize_lamina_object(lamina.layers.Dense(3, lora_rank=2)))["config"]
    assert "lora_rank" not in plain and lora["lora_rank"] == 2  # Keras writes it only if set


def test_keras_graph_ops_feeding_masks_are_dropped_others_kept():
    tensor = {"class_name": "__keras_tensor__",
              "config": {"shape": [None, 5], "dtype": "bool", "keras_history": ["not_equal", 0, 0]}}
    op = {"module": "keras.src.ops.numpy", "class_name": "NotEqual", "config": {},
          "name": "not_equal", "inbound_nodes": []}
    pool = {"module": "keras.layers", "class_name": "GlobalAveragePooling1D", "config": {},
            "name": "pool", "inbound_nodes": [{"args": [], "kwargs": {"mask": tensor}}]}
    graph = {"module": "keras.src.models.functional", "class_name": "Functional",
             "config": {"layers": [op, pool], "input_layers": [], "output_layers": ["pool", 0, 0]}}
    out = from_keras(graph)["config"]["layers"]
    assert [e["name"] for e in out] == ["pool"] and out[0]["inbound_nodes"][0]["kwargs"] == {}
    graph["config"]["output_layers"] = ["not_equal", 0, 0]  # an output: the op stays
    kept = from_keras(graph)["config"]["layers"]
    assert [(e["name"], e["module"]) for e in kept] == [
        ("not_equal", "lamina.ops.numpy"), ("pool", "lamina.layers")
    ]


def test_keras_op_arguments_map_both_ways():
    """Keras names `crop_images`' arguments differently and gives `clip` its bounds when
    the op is made; Lamina takes them when it is called."""
    tensor = {"class_name": "__keras_tensor__",
              "config": {"shape": [None, 3], "dtype": "float32", "keras_history": ["x", 0, 0]}}
    clip = {"module": "keras.src.ops.numpy", "class_name": "Clip", "registered_name": "Clip",
            "config": {"name": "clip", "x_min": 0.0, "x_max": 2.0}, "name": "clip",
            "inbound_nodes": [{"args": [tensor], "kwargs": {}}]}
    ours = from_keras(clip)
    assert ours["config"] == {"name": "clip"}
    assert ours["inbound_nodes"][0]["args"][1:] == [0.0, 2.0]
    assert to_keras(ours) == clip
    crop = {"module": "keras.src.ops.image", "class_name": "CropImages",
            "registered_name": "CropImages",
            "config": {"name": "c", "top_cropping": 1, "target_width": 2}}
    assert from_keras(crop)["config"] == {"name": "c", "top": 1, "width": 2}
    assert to_keras(from_keras(crop)) == crop
    tensor_bound = {**ours, "inbound_nodes": [{"args": [tensor, 0.0, tensor], "kwargs": {}}]}
    with pytest.raises(ValueError, match="numbers, not tensors"):
        to_keras(tensor_bound)
