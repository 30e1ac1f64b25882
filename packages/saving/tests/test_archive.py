"""Model archives (``.lamina`` / ``.keras``): round trips, training resumption, safety."""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np
import pytest

import lamina
import lamina.losses
import lamina.optimizers
from lamina.backend import Capability
from lamina.layers.core import Dense
from lamina.layers.core.lambda_layer import Lambda
from lamina.layers.merging import Add, Concatenate
from lamina_saving import LaminaFileError


def _np(x):
    return lamina.ops.convert_to_numpy(x)


def _data(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype("float32")


def _assert_same(a, b, tol=1e-6):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


@lamina.saving.register_serializable(package="LaminaSavingTests")
class Residual(lamina.Model):
    """A subclassed model with constructor arguments, nested layers and a list of layers."""

    def __init__(self, units=4, depth=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.depth = depth
        self.stem = Dense(units, name="stem")
        self.blocks = [Dense(units, activation="relu", name=f"b{i}") for i in range(depth)]
        self.head = Dense(2, name="head")

    def call(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = h + block(h)
        return self.head(h)

    def get_config(self):
        return {**super().get_config(), "units": self.units, "depth": self.depth}


class Scale(lamina.layers.Layer):
    """Deliberately not registered: loading it needs custom objects."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _sequential():
    return lamina.Sequential([lamina.Input((4,)), Dense(8, activation="relu"), Dense(3)])


def _functional():
    a, b = lamina.Input((4,), name="a"), lamina.Input((4,), name="b")
    shared = Dense(5, name="shared")
    ha, hb = shared(a), shared(b)  # one layer, two call sites: one set of weights
    merged = Concatenate()([ha, hb])
    out_sum = Dense(2, name="sum_head")(Add()([ha, hb]))
    out_cat = Dense(3, name="cat_head")(merged)
    return lamina.Model([a, b], [out_sum, out_cat])


def test_sequential_round_trip(tmp_path):
    model = _sequential()
    x = _data((6, 4))
    path = tmp_path / "seq.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert isinstance(loaded, lamina.Sequential)
    assert [type(layer) for layer in loaded.layers] == [type(layer) for layer in model.layers]
    _assert_same(loaded(x), model(x))


@lamina.saving.register_serializable(package="LaminaSavingTests")
class CountingInitializer(lamina.initializers.Initializer):
    """Ones, counting its calls: loading should never need it."""

    calls = 0

    def __call__(self, shape, dtype=None):
        CountingInitializer.calls += 1
        return np.ones(shape, dtype or "float32")


def test_load_model_assigns_saved_weights_without_running_initializers(tmp_path):
    model = lamina.Sequential(
        [lamina.Input((4,)), Dense(3, kernel_initializer=CountingInitializer()), Dense(2)]
    )
    model.layers[0].kernel.assign(_data((4, 3)))
    path = tmp_path / "counted.lamina"
    model.save(path)
    CountingInitializer.calls = 0
    loaded = lamina.saving.load_model(path)
    assert CountingInitializer.calls == 0
    x = _data((5, 4), seed=1)
    _assert_same(loaded(x), model(x))
    # Outside the loader, initializers run as usual.
    Dense(3, kernel_initializer=CountingInitializer()).build((None, 4))
    assert CountingInitializer.calls == 1


def test_functional_multi_io_shared_layer_round_trip(tmp_path):
    model = _functional()
    xa, xb = _data((6, 4), 1), _data((6, 4), 2)
    path = tmp_path / "fn.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    expected, actual = model([xa, xb]), loaded([xa, xb])
    assert len(actual) == 2
    for got, want in zip(actual, expected):
        _assert_same(got, want)
    # The shared layer stays one layer with one kernel after loading.
    shared = loaded.get_layer("shared")
    assert len(shared.weights) == 2
    assert len(loaded.weights) == len(model.weights)


def test_subclassed_registered_model_round_trip(tmp_path):
    model = Residual(units=6, depth=3)
    x = _data((5, 4))
    expected = model(x)
    path = tmp_path / "sub.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert type(loaded) is Residual
    assert loaded.units == 6 and len(loaded.blocks) == 3
    _assert_same(loaded(x), expected)


def test_keras_suffix_accepted_other_suffix_refused(tmp_path):
    model = _sequential()
    x = _data((3, 4))
    model.save(tmp_path / "m.keras")
    _assert_same(lamina.saving.load_model(tmp_path / "m.keras")(x), model(x))
    with pytest.raises(ValueError, match=r"\.lamina.*filepath='.*m\.h5'"):
        model.save(tmp_path / "m.h5")
    assert not (tmp_path / "m.h5").exists()
    (tmp_path / "m.zip").write_bytes((tmp_path / "m.keras").read_bytes())
    with pytest.raises(ValueError, match=r"filepath="):
        lamina.saving.load_model(tmp_path / "m.zip")
    with pytest.raises(TypeError, match="filepath"):
        lamina.saving.load_model(42)


def _compiled(seed_weights=None):
    model = lamina.Sequential(
        [lamina.Input((4,)), Dense(8, activation="tanh"), Dense(2)]
    )
    if seed_weights is not None:
        model.set_weights(seed_weights)
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.05), loss="mse")
    return model


@pytest.mark.requires(Capability.TRAINING)
def test_save_mid_training_then_resume_equals_uninterrupted(tmp_path):
    x, y = _data((32, 4), 3), _data((32, 2), 4)
    straight = _compiled()
    start = straight.get_weights()
    resumed = _compiled(start)
    fit = {"batch_size": 8, "verbose": 0, "shuffle": False}
    straight.fit(x, y, epochs=3, **fit)
    resumed.fit(x, y, epochs=2, **fit)
    path = tmp_path / "ckpt.lamina"
    resumed.save(path)
    loaded = lamina.saving.load_model(path)
    assert isinstance(loaded.optimizer, lamina.optimizers.Adam)
    assert int(_np(loaded.optimizer.iterations)) == 8  # 2 epochs x 4 batches
    loaded.fit(x, y, epochs=1, **fit)
    for got, want in zip(loaded.get_weights(), straight.get_weights(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # Adam's moments came back too, not just the weights.
    for got, want in zip(loaded.optimizer.variables, straight.optimizer.variables, strict=True):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6, atol=1e-6)


@pytest.mark.requires(Capability.TRAINING)
def test_compile_false_loads_weights_without_optimizer(tmp_path):
    x, y = _data((16, 4), 5), _data((16, 2), 6)
    model = _compiled()
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    path = tmp_path / "m.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path, compile=False)
    assert getattr(loaded, "optimizer", None) is None
    assert not getattr(loaded, "compiled", False)
    _assert_same(loaded(x), model(x))
    compiled = lamina.saving.load_model(path)
    assert compiled.compiled and compiled.optimizer is not None


def test_compile_config_survives_without_training(tmp_path):
    model = _compiled()
    path = tmp_path / "m.lamina"
    model.save(path)
    loaded = lamina.saving.load_model(path)
    assert isinstance(loaded.optimizer, lamina.optimizers.Adam)
    assert float(_np(loaded.optimizer.learning_rate)) == pytest.approx(0.05)
    assert getattr(lamina.saving.load_model(path, compile=False), "optimizer", None) is None


def test_custom_objects_by_scope_and_argument(tmp_path):
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, Scale(3.0, name="scale")(Dense(2)(inputs)))
    x = _data((4, 3))
    path = tmp_path / "custom.lamina"
    model.save(path)
    with pytest.raises(ValueError, match=r"Scale.*register_serializable"):
        lamina.saving.load_model(path)
    with lamina.saving.custom_object_scope({"Scale": Scale}):
        in_scope = lamina.saving.load_model(path)
    assert in_scope.get_layer("scale").factor == 3.0
    _assert_same(in_scope(x), model(x))
    by_argument = lamina.saving.load_model(path, custom_objects={"Scale": Scale})
    _assert_same(by_argument(x), model(x))


def test_lambda_refused_in_safe_mode_loaded_when_unsafe(tmp_path):
    inputs = lamina.Input((4,))
    outputs = Lambda(lambda t: t * 2.0 + 1.0, name="affine")(Dense(3)(inputs))
    model = lamina.Model(inputs, outputs)
    x = _data((2, 4))
    path = tmp_path / "lambda.lamina"
    model.save(path)
    with pytest.raises(ValueError, match="safe_mode=False"):
        lamina.saving.load_model(path)
    loaded = lamina.saving.load_model(path, safe_mode=False)
    _assert_same(loaded(x), model(x))
    # The opt-out does not leak into the next load.
    with pytest.raises(ValueError, match="safe_mode=False"):
        lamina.saving.load_model(path)


def _rewrite_zip(src, dst, extra_name, extra_bytes=b"x"):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, zin.read(info.filename))
        info = zipfile.ZipInfo("placeholder")
        info.filename = extra_name  # ZipInfo would normalise the name; set it raw
        zout.writestr(info, extra_bytes)


@pytest.mark.parametrize(
    "entry", ["../escape.txt", "assets/../../escape.txt", "/abs/escape.txt", "C:/escape.txt"]
)
def test_entries_escaping_the_folder_are_refused(tmp_path, entry):
    model = _sequential()
    good = tmp_path / "inner" / "good.lamina"
    model.save(good)
    bad = tmp_path / "inner" / "bad.lamina"
    _rewrite_zip(good, bad, entry)
    with zipfile.ZipFile(bad) as z:
        assert entry in z.namelist()
    with pytest.raises(LaminaFileError, match="outside the target folder") as info:
        lamina.saving.load_model(bad)
    assert "bad.lamina" in str(info.value)
    with pytest.raises(LaminaFileError, match="outside the target folder"):
        model.load_weights(bad)
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / "inner" / "escape.txt").exists()


def test_truncated_archive_raises_library_error_naming_the_file(tmp_path):
    model = _sequential()
    path = tmp_path / "whole.lamina"
    model.save(path)
    data = path.read_bytes()
    cut = tmp_path / "half.lamina"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(LaminaFileError, match=r"half\.lamina") as info:
        lamina.saving.load_model(cut)
    assert info.value.path.endswith("half.lamina")
    empty = tmp_path / "empty.lamina"
    empty.write_bytes(b"")
    with pytest.raises(LaminaFileError, match=r"empty\.lamina"):
        lamina.saving.load_model(empty)
    with pytest.raises(FileNotFoundError):
        lamina.saving.load_model(tmp_path / "missing.lamina")


def test_archive_missing_its_weights_is_refused(tmp_path):
    model = _sequential()
    good = tmp_path / "good.lamina"
    model.save(good)
    partial = tmp_path / "partial.lamina"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(partial, "w") as zout:
        for info in zin.infolist():
            if info.filename != "model.weights.h5":
                zout.writestr(info, zin.read(info.filename))
    with pytest.raises(LaminaFileError, match=r"model\.weights\.h5"):
        lamina.saving.load_model(partial)


def test_failed_save_leaves_previous_archive_byte_identical(tmp_path, monkeypatch):
    model = _sequential()
    path = tmp_path / "m.lamina"
    model.save(path)
    before = path.read_bytes()
    model.layers[-1].kernel.assign(np.zeros((8, 3), "float32"))  # a save would differ

    def fail(store):
        store["0"] = np.ones((8, 3), "float32")
        raise RuntimeError("disk vanished mid-save")

    monkeypatch.setattr(model.layers[-1], "save_own_variables", fail)
    with pytest.raises(RuntimeError, match="disk vanished"):
        model.save(path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["m.lamina"]  # no temporary file left behind
    with pytest.raises(RuntimeError, match="disk vanished"):
        model.save(tmp_path / "new.lamina")
    assert not (tmp_path / "new.lamina").exists()


def test_overwrite_false_refuses_existing_file(tmp_path):
    model = _sequential()
    path = tmp_path / "m.lamina"
    model.save(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        model.save(path, overwrite=False)
    assert path.read_bytes() == before


def test_archive_layout_and_metadata(tmp_path):
    model = _sequential()
    path = tmp_path / "m.lamina"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        assert {"config.json", "metadata.json", "model.weights.h5"} <= names
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
        meta = json.loads(z.read("metadata.json"))
    assert meta["backend"] == lamina.backend.backend()
    assert "lamina_version" in meta and "date_saved" in meta
