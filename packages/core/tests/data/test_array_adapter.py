"""Array data: batching, nesting, shuffling and the checks made before training."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import ops
from lamina.trainers.data_adapters import ArrayDataAdapter, EpochIterator
from lamina.utils import set_random_seed


def _all_batches(iterator: EpochIterator) -> list[tuple]:
    return [b for _, group in iterator.enumerate_epoch() for b in group]


def test_batch_count_and_partial_last_batch() -> None:
    x = np.arange(10, dtype="float32").reshape(10, 1)
    y = np.arange(10)
    it = EpochIterator(x, y, batch_size=4)
    assert it.num_batches == 3
    batches = _all_batches(it)
    assert [b[0].shape[0] for b in batches] == [4, 4, 2]
    assert all(len(b) == 2 for b in batches)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), y)
    adapter = it.data_adapter
    assert isinstance(adapter, ArrayDataAdapter)
    assert adapter.has_partial_batch and adapter.batch_size == 4


def test_exact_multiple_has_no_partial_batch() -> None:
    it = EpochIterator(np.zeros((8, 2)), batch_size=4)
    assert it.num_batches == 2
    assert not it.data_adapter.has_partial_batch
    assert [b[0].shape for b in _all_batches(it)] == [(4, 2), (4, 2)]


def test_default_batch_size_is_32() -> None:
    it = EpochIterator(np.zeros((70, 3)))
    assert it.num_batches == 3
    assert [b[0].shape[0] for b in _all_batches(it)] == [32, 32, 6]


def test_x_only_batches_are_one_tuples() -> None:
    batches = _all_batches(EpochIterator(np.ones((5, 2)), batch_size=2))
    assert all(isinstance(b, tuple) and len(b) == 1 for b in batches)


def test_sample_weight_makes_three_tuples() -> None:
    sw = np.linspace(0, 1, 6)
    batches = _all_batches(EpochIterator(np.ones((6, 2)), np.zeros(6), sw, batch_size=4))
    assert [len(b) for b in batches] == [3, 3]
    np.testing.assert_allclose(np.concatenate([b[2] for b in batches]), sw)


def test_nested_dicts_and_lists() -> None:
    x = {"a": np.arange(6).reshape(6, 1), "b": [np.ones((6, 2)), np.zeros((6,))]}
    y = {"out": np.arange(6)}
    batches = _all_batches(EpochIterator(x, y, batch_size=4))
    first_x = batches[0][0]
    assert set(first_x) == {"a", "b"}
    assert first_x["a"].shape == (4, 1)
    assert isinstance(first_x["b"], list) and first_x["b"][0].shape == (4, 2)
    assert first_x["b"][1].shape == (4,)
    np.testing.assert_array_equal(batches[1][1]["out"], [4, 5])


def test_list_of_numbers_is_one_array() -> None:
    batches = _all_batches(EpochIterator([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [0, 1, 0],
                                         batch_size=2))
    np.testing.assert_array_equal(batches[0][0], [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(batches[1][1], [0])


def test_backend_tensors_are_accepted() -> None:
    x = ops.convert_to_tensor(np.arange(12, dtype="float32").reshape(6, 2))
    y = ops.convert_to_tensor(np.arange(6, dtype="int32"))
    batches = _all_batches(EpochIterator(x, y, batch_size=4))
    np.testing.assert_array_equal(batches[1][0], [[8, 9], [10, 11]])
    assert isinstance(batches[0][1], np.ndarray)


def _epoch_order(seed: int, shuffle: bool | str, n: int = 20, batch_size: int = 6) -> list[int]:
    set_random_seed(seed)
    it = EpochIterator(np.arange(n), batch_size=batch_size, shuffle=shuffle)
    return np.concatenate([b[0] for b in _all_batches(it)]).tolist()


def test_shuffle_true_is_a_seeded_permutation() -> None:
    first = _epoch_order(1, True)
    assert sorted(first) == list(range(20))
    assert first != list(range(20))
    assert _epoch_order(1, True) == first
    assert _epoch_order(2, True) != first


def test_shuffle_changes_between_epochs() -> None:
    set_random_seed(3)
    it = EpochIterator(np.arange(20), batch_size=5, shuffle=True)
    one = np.concatenate([b[0] for b in _all_batches(it)]).tolist()
    two = np.concatenate([b[0] for b in _all_batches(it)]).tolist()
    assert sorted(one) == sorted(two) == list(range(20))
    assert one != two


def test_shuffle_false_keeps_order() -> None:
    assert _epoch_order(0, False) == list(range(20))


def test_shuffle_batch_keeps_contiguous_blocks() -> None:
    order = _epoch_order(5, "batch", n=20, batch_size=6)
    assert sorted(order) == list(range(20))
    blocks = [sorted(order[i:i + 6]) for i in range(0, 20, 6)]
    for block in blocks:
        assert block == list(range(block[0], block[0] + len(block)))
    assert blocks[-1] == [18, 19]  # the partial batch stays last
    assert order != list(range(20))
    assert _epoch_order(5, "batch", n=20, batch_size=6) == order


def test_shuffle_keeps_x_and_y_aligned() -> None:
    set_random_seed(0)
    x = np.arange(30)
    it = EpochIterator(x, x * 10, x * 100, batch_size=7, shuffle=True)
    for bx, by, bw in _all_batches(it):
        np.testing.assert_array_equal(by, bx * 10)
        np.testing.assert_array_equal(bw, bx * 100)


def test_x_y_length_mismatch() -> None:
    with pytest.raises(ValueError, match=r"`x` and `y`.*x with 10 samples, y with 9"):
        EpochIterator(np.zeros((10, 2)), np.zeros(9))


def test_inputs_of_different_lengths() -> None:
    with pytest.raises(ValueError, match=r"`x`.*same number of samples"):
        EpochIterator({"a": np.zeros((4, 1)), "b": np.zeros((5, 1))})


def test_sample_weight_length_mismatch() -> None:
    with pytest.raises(ValueError, match=r"`sample_weight`.*3 entries, x with 4 samples"):
        EpochIterator(np.zeros((4, 1)), np.zeros(4), np.ones(3))


@pytest.mark.parametrize("batch_size", [0, -2, 2.5, "8", True])
def test_bad_batch_size(batch_size: object) -> None:
    with pytest.raises(ValueError, match=r"`batch_size` must be a positive int.*batch_size="):
        EpochIterator(np.zeros((4, 1)), batch_size=batch_size)  # type: ignore[arg-type]


@pytest.mark.parametrize("shuffle", ["yes", 1, None])
def test_bad_shuffle(shuffle: object) -> None:
    with pytest.raises(ValueError, match=r"`shuffle` must be True, False or \"batch\""):
        EpochIterator(np.zeros((4, 1)), shuffle=shuffle)  # type: ignore[arg-type]


def test_scalar_and_unsupported_inputs() -> None:
    with pytest.raises(ValueError, match=r"`x` must have a samples dimension"):
        EpochIterator(np.float32(3.0))
    with pytest.raises(TypeError, match=r"`x\[1\]` must be array data.*object"):
        EpochIterator([np.zeros((2, 1)), object()])
    with pytest.raises(ValueError, match=r"`x` must be given"):
        EpochIterator(None)
    with pytest.raises(ValueError, match=r"at least one sample"):
        EpochIterator(np.zeros((0, 3)))


@pytest.mark.parametrize(
    ("name", "value"), [("steps_per_epoch", 0), ("steps_per_execution", 0),
                        ("steps_per_epoch", 1.5)]
)
def test_bad_step_counts(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"`{name}` must be a positive int"):
        EpochIterator(np.zeros((4, 1)), **{name: value})  # type: ignore[arg-type]
