"""FeatureSpace: every feature type against NumPy references, crosses, concat and dict
outputs, adapt from dicts and tf.data, encoded features in a trained model, and configs
and archives that keep the adapted state."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability
from lamina.utils import FeatureSpace

DATA = {
    "f": np.array([0.5, 1.5, 2.5, 3.5], "float32"),
    "rescaled": np.array([10.0, 20.0, 30.0, 40.0], "float32"),
    "norm": np.array([1.0, 2.0, 3.0, 4.0], "float32"),
    "disc": np.array([0.0, 1.0, 2.0, 3.0], "float32"),
    "icat": np.array([7, 7, 8, 9], "int32"),
    "scat": np.array(["x", "y", "x", "z"]),
    "ihash": np.array([1, 2, 3, 4], "int32"),
    "shash": np.array(["p", "q", "r", "s"]),
}


def _np(x: object) -> np.ndarray:
    return np.asarray(ops.convert_to_numpy(x))


def _space(**kwargs: object) -> FeatureSpace:
    return FeatureSpace(
        {
            "f": "float",
            "rescaled": FeatureSpace.float_rescaled(scale=0.1, offset=1.0),
            "norm": "float_normalized",
            "disc": FeatureSpace.float_discretized(num_bins=2, bin_boundaries=[1.5]),
            "icat": "integer_categorical",
            "scat": FeatureSpace.string_categorical(num_oov_indices=1),
            "ihash": FeatureSpace.integer_hashed(num_bins=3),
            "shash": "string_hashed",
        },
        hashing_dim=4,
        **kwargs,
    )


def test_every_feature_type_matches_numpy() -> None:
    space = _space(output_mode="dict")
    space.adapt(DATA)
    out = {k: _np(v) for k, v in space(DATA).items()}
    np.testing.assert_allclose(out["f"], DATA["f"][:, None])
    np.testing.assert_allclose(out["rescaled"], DATA["rescaled"][:, None] * 0.1 + 1.0, rtol=1e-6)
    norm = (DATA["norm"] - DATA["norm"].mean()) / DATA["norm"].std()
    np.testing.assert_allclose(out["norm"], norm[:, None], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["disc"], np.eye(2)[[0, 0, 1, 1]])
    # One-hot of the index in the adapted vocabulary (most frequent first, OOV at 0).
    for key in ("icat", "scat"):
        vocabulary = space.preprocessors[key].get_vocabulary()
        assert vocabulary[1] == DATA[key][0] and len(vocabulary) == 4
        ids = [vocabulary.index(v) for v in DATA[key].tolist()]
        np.testing.assert_array_equal(out[key], np.eye(4)[ids])
    ihash = _np(layers.Hashing(3)(DATA["ihash"]))
    np.testing.assert_array_equal(out["ihash"], np.eye(3)[ihash])
    shash = _np(layers.Hashing(4)(DATA["shash"]))
    np.testing.assert_array_equal(out["shash"], np.eye(4)[shash])


def test_concat_is_the_sorted_dict_and_crosses() -> None:
    space = _space(crosses=[("icat", "scat")], crossing_dim=5)
    space.adapt(DATA)
    concat = _np(space(DATA))
    as_dict = _space(output_mode="dict", crosses=[("icat", "scat")], crossing_dim=5)
    as_dict.adapt(DATA)
    parts = {k: _np(v) for k, v in as_dict(DATA).items()}
    names = sorted(DATA) + ["icat_X_scat"]
    np.testing.assert_allclose(concat, np.concatenate([parts[n] for n in names], axis=1))
    assert concat.shape == (4, 1 + 1 + 1 + 2 + 4 + 4 + 3 + 4 + 5)
    vocab = {k: as_dict.preprocessors[k].get_vocabulary(False) for k in ("icat", "scat")}
    icat = _np(layers.IntegerLookup(vocabulary=vocab["icat"])(DATA["icat"][:, None]))
    scat = _np(layers.StringLookup(vocabulary=vocab["scat"])(DATA["scat"][:, None]))
    bins = _np(layers.HashedCrossing(5)((icat, scat)))[:, 0]
    np.testing.assert_array_equal(parts["icat_X_scat"], np.eye(5)[bins])


def test_single_sample_and_int_output_mode() -> None:
    space = FeatureSpace(
        {"c": FeatureSpace.string_categorical(output_mode="int"), "x": "float"},
        output_mode="dict",
    )
    space.adapt({"c": ["a", "b", "b"], "x": [1.0, 2.0, 3.0]})
    out = space({"c": "b", "x": 2.0})
    assert tuple(out["c"].shape) == (1,) and int(_np(out["c"])[0]) == 1
    concat = FeatureSpace({"c": "string_categorical", "x": "float"})
    concat.adapt({"c": ["a", "b", "b"], "x": [1.0, 2.0, 3.0]})
    assert tuple(concat({"c": "b", "x": 2.0}).shape) == (4,)
    with pytest.raises(ValueError, match="concatenated"):
        bad = FeatureSpace({"c": FeatureSpace.string_categorical(output_mode="int")})
        bad.adapt({"c": ["a"]})


def test_adapt_from_tf_data() -> None:
    tf = pytest.importorskip("tensorflow")
    space = FeatureSpace({"norm": "float_normalized", "scat": "string_categorical"})
    ds = tf.data.Dataset.from_tensor_slices({"norm": DATA["norm"], "scat": DATA["scat"]})
    space.adapt(ds.batch(3))
    vocabulary = space.preprocessors["scat"].get_vocabulary()
    assert vocabulary[:2] == ["[UNK]", "x"] and sorted(vocabulary[2:]) == ["y", "z"]
    np.testing.assert_allclose(_np(space.preprocessors["norm"].mean), [[2.5]])


def test_errors() -> None:
    with pytest.raises(ValueError, match="features"):
        FeatureSpace({})
    with pytest.raises(ValueError, match="output_mode"):
        FeatureSpace({"a": "float"}, output_mode="list")
    with pytest.raises(ValueError, match="must be a Feature or one of"):
        FeatureSpace({"a": "floaty"})
    with pytest.raises(ValueError, match="not in `features`"):
        FeatureSpace({"a": "float"}, crosses=[("a", "b")])
    space = FeatureSpace({"a": "float_normalized"})
    with pytest.raises(ValueError, match="adapt"):
        space({"a": [1.0]})
    with pytest.raises(ValueError, match="adapt"):
        space.get_encoded_features()
    space.adapt({"a": [1.0, 3.0]})
    with pytest.raises(ValueError, match="dict"):
        space([1.0])
    with pytest.raises(ValueError, match="lacks"):
        space({"b": [1.0]})


def test_encoded_features_are_symbolic() -> None:
    space = _space(crosses=[("icat", "scat")], crossing_dim=5)
    space.adapt(DATA)
    encoded = space.get_encoded_features()
    assert tuple(encoded.shape) == (None, 25)
    assert set(space.get_inputs()) == set(DATA)


@pytest.mark.requires(Capability.TRAINING)
def test_a_classifier_trains_on_the_encoded_features() -> None:
    rng = np.random.default_rng(0)
    n = 64
    table = {
        "age": rng.uniform(20, 60, n).astype("float32"),
        "city": rng.choice(["a", "b", "c"], n),
        "code": rng.integers(0, 4, n).astype("int32"),
    }
    labels = ((table["age"] > 40) ^ (table["city"] == "a")).astype("float32")
    space = FeatureSpace(
        {"age": "float_normalized", "city": "string_categorical", "code": "integer_hashed"},
        hashing_dim=4,
    )
    space.adapt(table)
    x = _np(space(table))
    encoded = space.get_encoded_features()
    assert tuple(encoded.shape) == (None, x.shape[1])
    inputs = lamina.Input(shape=encoded.shape[1:])
    hidden = layers.Dense(8, activation="relu")(inputs)
    model = lamina.Model(inputs, layers.Dense(1, activation="sigmoid")(hidden))
    model.compile(optimizer="adam", loss="binary_crossentropy")
    history = model.fit(x, labels, epochs=5, batch_size=16, verbose=0)
    losses = history.history["loss"]
    assert np.isfinite(losses).all() and losses[-1] < losses[0]
    assert model.predict(x, verbose=0).shape == (n, 1)


def test_config_round_trip_keeps_adapted_state() -> None:
    space = _space(crosses=[FeatureSpace.cross(("icat", "shash"), crossing_dim=3)])
    space.adapt(DATA)
    config = space.get_config()
    assert config["crosses"] == [
        {"feature_names": ["icat", "shash"], "crossing_dim": 3, "output_mode": "one_hot"}
    ]
    clone = FeatureSpace.from_config(config)
    assert clone.get_config()["features"]["scat"] == config["features"]["scat"]
    # Vocabularies and bins live in the config; a learnt mean is a weight (see the archive).
    with pytest.raises(ValueError, match="norm"):
        clone(DATA)
    clone.preprocessors["norm"].adapt(DATA["norm"][:, None])
    np.testing.assert_allclose(_np(clone(DATA)), _np(space(DATA)), rtol=1e-6)


def test_archive_round_trip(tmp_path: Path) -> None:
    pytest.importorskip("lamina_saving")
    space = _space()
    space.adapt(DATA)
    path = str(tmp_path / "space.lamina")
    space.save(path)
    loaded = lamina.saving.load_model(path)
    assert isinstance(loaded, FeatureSpace)
    np.testing.assert_allclose(_np(loaded(DATA)), _np(space(DATA)), rtol=1e-6)


def _mixed_table(n: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    table = {
        "age": rng.uniform(20, 60, n).astype("float32"),
        "city": rng.choice(["a", "b", "c"], n),
        "code": rng.integers(0, 4, n).astype("int32"),
    }
    labels = ((table["age"] > 40) ^ (table["city"] == "a")).astype("float32")
    return table, labels


@pytest.mark.requires(Capability.TRAINING)
def test_keras_pattern_model_on_encoded_features_then_raw_inputs(tmp_path: Path) -> None:
    """Keras 3's FeatureSpace recipe: a model whose input is the encoded tensor itself,
    trained on encoded data, then wrapped into a model of the raw feature inputs."""
    table, labels = _mixed_table(48)
    space = FeatureSpace(
        {"age": "float_normalized", "city": "string_categorical", "code": "integer_hashed"},
        hashing_dim=4,
    )
    space.adapt(table)
    encoded = space.get_encoded_features()
    hidden = layers.Dense(8, activation="relu")(encoded)
    model = lamina.Model(encoded, layers.Dense(1, activation="sigmoid")(hidden))
    assert model.inputs[0].shape == (None, 1 + 4 + 4)
    model.compile(optimizer="adam", loss="binary_crossentropy")
    x = _np(space(table))
    losses = model.fit(x, labels, epochs=2, batch_size=48, verbose=0).history["loss"]
    assert np.isfinite(losses).all() and losses[-1] < losses[0]

    inference = lamina.Model(space.get_inputs(), model(space.get_encoded_features()))
    raw = {key: value[:, None] for key, value in table.items()}
    expected = _np(model(x))
    np.testing.assert_allclose(_np(inference(raw)), expected, rtol=1e-5, atol=1e-6)
    if importlib.util.find_spec("lamina_saving") is not None:
        path = str(tmp_path / "inference.keras")
        inference.save(path)
        loaded = lamina.saving.load_model(path)
        np.testing.assert_allclose(_np(loaded(raw)), expected, rtol=1e-5, atol=1e-6)
