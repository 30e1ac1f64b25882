"""Epochs: steps_per_epoch across passes, steps_per_execution, generators, helpers."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from lamina.trainers.data_adapters import (
    EpochIterator,
    GeneratorDataAdapter,
    pack_x_y_sample_weight,
    train_validation_split,
    unpack_x_y_sample_weight,
)


def _firsts(iterator: EpochIterator) -> list[list[int]]:
    """The first x value of every batch, grouped as the iterator hands them over."""
    return [[int(np.ravel(b[0])[0]) for b in group] for _, group in iterator.enumerate_epoch()]


def test_steps_per_execution_groups_batches() -> None:
    it = EpochIterator(np.arange(10), batch_size=2, steps_per_execution=2)
    steps = [(step, len(group)) for step, group in it.enumerate_epoch()]
    assert steps == [(1, 2), (3, 2), (4, 1)]
    assert it.num_batches == 5


def test_steps_per_execution_larger_than_epoch() -> None:
    it = EpochIterator(np.arange(6), batch_size=2, steps_per_execution=8)
    steps = [(step, len(group)) for step, group in it.enumerate_epoch()]
    assert steps == [(2, 3)]


def test_steps_per_epoch_continues_across_passes() -> None:
    it = EpochIterator(np.arange(10), batch_size=4, steps_per_epoch=4)
    assert it.num_batches == 4
    assert _firsts(it) == [[0], [4], [8], [0]]  # a new pass starts mid-epoch
    assert _firsts(it) == [[4], [8], [0], [4]]  # and the position carries over


def test_steps_per_epoch_shorter_than_data() -> None:
    it = EpochIterator(np.arange(12), batch_size=2, steps_per_epoch=2, steps_per_execution=2)
    assert [(s, len(g)) for s, g in it.enumerate_epoch()] == [(1, 2)]
    assert _firsts(it) == [[4, 6]]


def test_steps_per_epoch_with_shuffle_reshuffles_each_pass() -> None:
    it = EpochIterator(np.arange(6), batch_size=6, steps_per_epoch=3, shuffle=True)
    orders = [b[0].tolist() for _, g in it.enumerate_epoch() for b in g]
    assert len(orders) == 3
    assert all(sorted(o) == list(range(6)) for o in orders)
    assert len({tuple(o) for o in orders}) > 1


def _gen(n: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    for i in range(n):
        yield np.full((2, 1), i, "float32"), np.full((2,), i)


def test_generator_one_pass() -> None:
    it = EpochIterator(_gen(5))
    assert isinstance(it.data_adapter, GeneratorDataAdapter)
    assert it.num_batches is None
    assert _firsts(it) == [[0], [1], [2], [3], [4]]


def test_generator_bounded_by_steps_per_epoch_and_continues() -> None:
    def infinite() -> Iterator[np.ndarray]:
        i = 0
        while True:
            yield np.full((3,), i)
            i += 1

    it = EpochIterator(infinite(), steps_per_epoch=3, steps_per_execution=2)
    assert _firsts(it) == [[0, 1], [2]]
    assert _firsts(it) == [[3, 4], [5]]
    assert not it.ran_out_of_data


def test_generator_running_out_warns_and_stops() -> None:
    it = EpochIterator(_gen(5), steps_per_epoch=3)
    assert _firsts(it) == [[0], [1], [2]]
    with pytest.warns(UserWarning, match="ran out of data"):
        assert _firsts(it) == [[3], [4]]
    assert it.ran_out_of_data
    assert _firsts(it) == []  # no further batches (and no repeated warning)


def test_generator_exhausted_by_first_epoch() -> None:
    it = EpochIterator(_gen(2))
    assert len(_firsts(it)) == 2
    with pytest.warns(UserWarning, match="ran out of data"):
        assert _firsts(it) == []
    assert it.ran_out_of_data


def test_generator_batch_forms() -> None:
    def forms() -> Iterator[object]:
        yield np.ones((2, 1))
        yield (np.ones((2, 1)),)
        yield [np.ones((2, 1)), np.zeros(2)]
        yield np.ones((2, 1)), np.zeros(2), np.ones(2)
        yield {"a": [[1.0], [2.0]]}, np.zeros(2)

    lengths = [len(b) for _, g in EpochIterator(forms()).enumerate_epoch() for b in g]
    assert lengths == [1, 1, 2, 3, 2]
    last = list(EpochIterator(forms()).enumerate_epoch())[-1][1][0]
    assert isinstance(last[0]["a"], np.ndarray) and last[0]["a"].shape == (2, 1)


def test_generator_bad_batch() -> None:
    def bad() -> Iterator[tuple]:
        yield (np.ones(2),) * 4

    with pytest.raises(ValueError, match=r"Received a tuple of 4 elements"):
        list(EpochIterator(bad()).enumerate_epoch())


def test_y_with_generator_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"`y` must not be given when `x` is a generator"):
        EpochIterator(_gen(2), y=np.zeros(4))


def test_unsupported_type() -> None:
    with pytest.raises(TypeError, match=r"`x` must be array data.*Received: x of type int"):
        EpochIterator(3)


def test_unpack_and_pack() -> None:
    x, y, sw = np.ones(2), np.zeros(2), np.ones(2)
    assert unpack_x_y_sample_weight(x)[1:] == (None, None)
    assert unpack_x_y_sample_weight((x,))[0] is x
    assert unpack_x_y_sample_weight([x, y])[1] is y
    assert unpack_x_y_sample_weight((x, y, sw))[2] is sw
    with pytest.raises(ValueError, match="4 elements"):
        unpack_x_y_sample_weight((x, y, sw, sw))
    assert pack_x_y_sample_weight(x) is x
    assert pack_x_y_sample_weight([x, x]) == ([x, x],)
    assert pack_x_y_sample_weight(x, y) == (x, y)
    assert pack_x_y_sample_weight(x, y, sw) == (x, y, sw)
    packed = pack_x_y_sample_weight((x, x), y)
    assert unpack_x_y_sample_weight(packed)[0] == (x, x)
    assert unpack_x_y_sample_weight(pack_x_y_sample_weight([x, x]))[0] == [x, x]


def test_validation_split_takes_the_last_fraction() -> None:
    x = np.arange(10).reshape(10, 1)
    y = np.arange(10) * 2
    train, val = train_validation_split((x, y, None), validation_split=0.2)
    tx, tsw = train[0], train[2]
    vy, vsw = val[1], val[2]
    np.testing.assert_array_equal(tx[:, 0], np.arange(8))
    np.testing.assert_array_equal(vy, [16, 18])
    assert tsw is None and vsw is None


def test_validation_split_nested() -> None:
    x = {"a": np.arange(5), "b": [np.ones((5, 2))]}
    (tx, _, _), (vx, vy, _) = train_validation_split((x, np.arange(5), None), 0.4)
    assert tx["a"].tolist() == [0, 1, 2] and vx["a"].tolist() == [3, 4]
    assert vx["b"][0].shape == (2, 2) and vy.tolist() == [3, 4]


@pytest.mark.parametrize("split", [0.0, 1.0, -0.1, "0.2", True])
def test_validation_split_out_of_range(split: object) -> None:
    with pytest.raises(ValueError, match=r"`validation_split` must be a float in \(0, 1\)"):
        train_validation_split((np.zeros(4), None, None), split)  # type: ignore[arg-type]


def test_validation_split_rejects_generators_and_empty_sides() -> None:
    with pytest.raises(ValueError, match=r"only supported for array data.*x of type generator"):
        train_validation_split((_gen(3), None, None), 0.5)
    with pytest.raises(ValueError, match=r"leaves no samples for training out of 3"):
        train_validation_split((np.zeros(3), None, None), 0.9)
