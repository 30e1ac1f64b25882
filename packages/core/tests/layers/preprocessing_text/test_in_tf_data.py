"""Lookup, hashing, discretization, encoding and text layers (and FeatureSpace) inside
``tf.data.Dataset.map`` on every backend, as Keras 3 users write them on JAX and PyTorch:
the same values as the eager call, against fixed NumPy references where they are simple,
batched and per element, with numeric and string outputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from lamina import layers, ops
from lamina.backend import Capability

tf = pytest.importorskip("tensorflow")


def _values(dataset: Any, batched: bool = True) -> Any:
    """All elements of a dataset (batches joined, elements stacked), strings decoded."""
    parts = list(dataset.as_numpy_iterator())
    join = np.concatenate if batched else np.stack
    if isinstance(parts[0], dict):
        return {k: join([p[k] for p in parts]) for k in parts[0]}
    out = join(parts)
    if out.dtype.kind in ("S", "O"):
        return np.vectorize(lambda v: v.decode())(out)
    return out


def _eager(x: Any) -> np.ndarray:
    return np.asarray(x if isinstance(x, np.ndarray) else ops.convert_to_numpy(x))


CASES: dict[str, tuple[Callable[[], Any], np.ndarray, np.ndarray | None]] = {
    "string_lookup": (
        lambda: layers.StringLookup(vocabulary=["a", "b"]),
        np.array([["a"], ["b"], ["c"]]),
        np.array([[1], [2], [0]]),
    ),
    "string_lookup_invert": (
        lambda: layers.StringLookup(vocabulary=["a", "b"], invert=True),
        np.array([[1], [2], [0]], "int32"),
        np.array([["a"], ["b"], ["[UNK]"]]),
    ),
    "integer_lookup": (
        lambda: layers.IntegerLookup(vocabulary=[7, 9]),
        np.array([[7], [9], [3]], "int32"),
        np.array([[1], [2], [0]]),
    ),
    "hashing": (lambda: layers.Hashing(num_bins=3), np.array([["x"], ["y"], ["z"]]), None),
    "hashing_salted": (
        lambda: layers.Hashing(num_bins=5, salt=7),
        np.array([[1], [2], [3]], "int32"),
        None,
    ),
    "discretization": (
        lambda: layers.Discretization(bin_boundaries=[0.0, 1.0]),
        np.array([[-1.0], [0.5], [2.0]], "float32"),
        np.array([[0], [1], [2]]),
    ),
    "category_encoding": (
        lambda: layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot"),
        np.array([[0, 2], [3, 3], [1, 1]], "int32"),
        np.array([[1, 0, 1, 0], [0, 0, 0, 1], [0, 1, 0, 0]], "float32"),
    ),
    "text_vectorization": (
        lambda: layers.TextVectorization(vocabulary=["the", "cat"], output_sequence_length=3),
        np.array(["The cat.", "a dog", "cat"]),
        np.array([[2, 3, 0], [1, 1, 0], [3, 0, 0]]),
    ),
    "text_vectorization_count": (
        lambda: layers.TextVectorization(vocabulary=["the", "cat"], output_mode="count"),
        np.array(["the cat the", "dog"]),
        np.array([[0, 2, 1], [1, 0, 0]], "float32"),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_in_dataset_map_matches_eager_and_reference(case: str) -> None:
    make, data, expected = CASES[case]
    layer = make()
    eager = _eager(layer(data))
    dataset = tf.data.Dataset.from_tensor_slices(data)
    batched = _values(dataset.batch(2).map(layer))
    per_element = _values(dataset.map(layer), batched=False)
    if expected is not None:
        assert eager.tolist() == expected.tolist() or np.allclose(eager, expected)
    # One element at a time, each output has the eager output's row shape (a scalar
    # string is vectorized as one row).
    per_element = per_element.reshape(eager.shape)
    for got in (batched, per_element):
        assert got.shape == eager.shape
        if got.dtype.kind in ("U", "O"):
            assert got.tolist() == eager.tolist()
        else:
            np.testing.assert_array_equal(got, eager)


def test_hashed_crossing_of_two_columns() -> None:
    cross = layers.HashedCrossing(num_bins=5)
    words = np.array([["a"], ["b"], ["a"]])
    ints = np.array([[1], [2], [2]], "int32")
    eager = _eager(cross((words, ints)))
    dataset = tf.data.Dataset.from_tensor_slices((words, ints)).batch(2)
    np.testing.assert_array_equal(_values(dataset.map(lambda a, b: cross((a, b)))), eager)


def test_unknown_rank_is_refused_by_name() -> None:
    lookup = layers.StringLookup(vocabulary=["a"])

    @tf.function(input_signature=[tf.TensorSpec(None, tf.string)])
    def run(x: Any) -> Any:
        return lookup(x)

    with pytest.raises(ValueError, match="known rank"):
        run(tf.constant(["a"]))


def _table() -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    table = {
        "age": rng.uniform(20, 60, 32).astype("float32"),
        "city": rng.choice(["a", "b", "c"], 32),
        "code": rng.integers(0, 4, 32).astype("int32"),
    }
    return table, ((table["age"] > 40) ^ (table["city"] == "a")).astype("float32")


@pytest.mark.parametrize("output_mode", ["concat", "dict"])
def test_feature_space_in_dataset_map(output_mode: str) -> None:
    from lamina.utils import FeatureSpace

    table, _ = _table()
    space = FeatureSpace(
        {"age": "float_normalized", "city": "string_categorical", "code": "integer_hashed"},
        hashing_dim=4,
        output_mode=output_mode,
    )
    space.adapt(table)
    eager = space(table)
    dataset = tf.data.Dataset.from_tensor_slices(table)
    batched = _values(dataset.batch(8).map(space))
    per_element = _values(dataset.map(space), batched=False)
    if output_mode == "concat":
        assert batched.shape == per_element.shape == (32, 9)
        for got in (batched, per_element):
            np.testing.assert_allclose(got, _eager(eager), rtol=1e-6, atol=1e-6)
    else:
        for key, value in eager.items():
            np.testing.assert_allclose(batched[key], _eager(value), rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(per_element[key], _eager(value), rtol=1e-6, atol=1e-6)


@pytest.mark.requires(Capability.TRAINING)
def test_model_trains_on_a_feature_space_mapped_dataset() -> None:
    import lamina
    from lamina.utils import FeatureSpace

    table, labels = _table()
    space = FeatureSpace({"age": "float_normalized", "city": "string_categorical"})
    space.adapt(table)
    dataset = tf.data.Dataset.from_tensor_slices((table, labels)).batch(16)
    encoded_ds = dataset.map(lambda x, y: (space(x), y))
    encoded = space.get_encoded_features()
    model = lamina.Model(encoded, layers.Dense(1, activation="sigmoid")(encoded))
    model.compile(optimizer="sgd", loss="binary_crossentropy")
    history = model.fit(encoded_ds, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    direct = _eager(model(space(table)))
    np.testing.assert_allclose(model.predict(encoded_ds, verbose=0), direct, rtol=1e-5, atol=1e-6)
