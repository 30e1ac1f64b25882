"""split_dataset (arrays, tuples, dicts, tf.data, map-style) and get_source_inputs."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, utils

from .conftest import batches_of, check_kind


def test_split_arrays_sizes_and_order(output: str) -> None:
    x = np.arange(20).reshape(10, 2)
    y = np.arange(10)
    left, right = utils.split_dataset((x, y), left_size=0.7)
    check_kind(left, output)
    rows = list(batches_of(left))
    assert len(rows) == 7 and len(list(batches_of(right))) == 3
    np.testing.assert_array_equal(rows[3][0], x[3])
    assert rows[3][1] == 3
    left, right = utils.split_dataset(x, right_size=4)
    assert len(list(batches_of(left))) == 6
    np.testing.assert_array_equal(next(iter(batches_of(right))), x[6])


def test_split_dicts_and_seeded_shuffle(output: str) -> None:
    data = {"a": np.arange(12), "b": np.arange(12) * 2}
    left, right = utils.split_dataset(data, left_size=6, shuffle=True, seed=5)
    seen = [int(row["a"]) for row in batches_of(left)] + [
        int(row["a"]) for row in batches_of(right)
    ]
    assert sorted(seen) == list(range(12)) and seen != list(range(12))
    assert all(int(r["b"]) == 2 * int(r["a"]) for r in batches_of(left))
    again, _ = utils.split_dataset(data, left_size=6, shuffle=True, seed=5)
    assert [int(r["a"]) for r in batches_of(again)] == seen[:6]


def test_split_tf_dataset_keeps_batching() -> None:
    tf = pytest.importorskip("tensorflow")
    ds = tf.data.Dataset.from_tensor_slices((np.arange(10), np.arange(10) * 3)).batch(4)
    left, right = utils.split_dataset(ds, left_size=0.8)
    assert isinstance(left, tf.data.Dataset)
    batches = [(a.numpy(), b.numpy()) for a, b in left]
    assert [len(a) for a, _ in batches] == [4, 4]
    np.testing.assert_array_equal(next(iter(right))[1].numpy(), [24, 27])


def test_split_map_style_dataset() -> None:
    class Squares:
        def __len__(self) -> int:
            return 5

        def __getitem__(self, i: int) -> tuple[int, int]:
            return i, i * i

    left, right = utils.split_dataset(Squares(), left_size=3)
    assert len(left) == 3 and len(right) == 2 and right[1] == (4, 16)
    left, _ = utils.split_dataset(np.arange(5), left_size=2, preferred_backend="torch")
    assert len(left) == 2 and int(left[1]) == 1


def test_split_bad_sizes() -> None:
    x = np.arange(10)
    with pytest.raises(ValueError, match="at least one"):
        utils.split_dataset(x)
    with pytest.raises(ValueError, match="left_size"):
        utils.split_dataset(x, left_size=1.5)
    with pytest.raises(ValueError, match="right_size"):
        utils.split_dataset(x, right_size=10)
    with pytest.raises(TypeError, match="left_size"):
        utils.split_dataset(x, left_size="half")
    with pytest.raises(ValueError, match="more than 1"):
        utils.split_dataset(x, left_size=0.6, right_size=0.6)
    with pytest.raises(ValueError, match="same length"):
        utils.split_dataset((np.arange(3), np.arange(4)), left_size=1)
    with pytest.raises(TypeError, match="dataset"):
        utils.split_dataset(42, left_size=1)


def test_get_source_inputs() -> None:
    a, b = lamina.Input((3,)), lamina.Input((3,))
    merged = layers.Add()([layers.Dense(3)(a), b])
    out = layers.Dense(1)(layers.Dense(2)(merged))
    sources = utils.get_source_inputs(out)
    assert len(sources) == 2 and sources[0] is a and sources[1] is b
    assert utils.get_source_inputs(a) == [a]
