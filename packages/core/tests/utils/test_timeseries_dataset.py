"""timeseries_dataset_from_array: windows, targets, strides, indices, shuffling, fit."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers, utils
from lamina.backend import Capability

from .conftest import batches_of, check_kind


def _windows(n: int, length: int, stride: int, rate: int, start: int = 0) -> np.ndarray:
    """The NumPy reference: every window start that fits, stepping by `stride`."""
    starts = range(start, n - (length - 1) * rate, stride)
    return np.stack([np.arange(s, s + length * rate, rate) for s in starts])


def test_windows_and_targets(output: str) -> None:
    data = np.arange(20)
    ds = utils.timeseries_dataset_from_array(
        data, data * 10, sequence_length=4, sequence_stride=2, sampling_rate=2, batch_size=3
    )
    check_kind(ds, output)
    xs, ys = zip(*batches_of(ds))
    assert [len(x) for x in xs] == [3, 3, 1]
    expected = _windows(20, 4, 2, 2)
    np.testing.assert_array_equal(np.concatenate(xs), expected)
    np.testing.assert_array_equal(np.concatenate(ys), expected[:, 0] * 10)


def test_start_end_index_and_no_targets(output: str) -> None:
    data = np.arange(30, dtype="float32").reshape(15, 2)
    ds = utils.timeseries_dataset_from_array(
        data, None, sequence_length=3, start_index=2, end_index=10, batch_size=None
    )
    windows = list(batches_of(ds))
    assert len(windows) == 6
    np.testing.assert_array_equal(windows[0], data[2:5])
    np.testing.assert_array_equal(windows[-1], data[7:10])
    assert windows[0].dtype == np.float32


def test_targets_limit_the_windows(output: str) -> None:
    ds = utils.timeseries_dataset_from_array(
        np.arange(10), np.arange(4), sequence_length=2, batch_size=10
    )
    ((x, y),) = list(batches_of(ds))
    np.testing.assert_array_equal(y, [0, 1, 2, 3])
    assert x.shape == (4, 2)


def test_shuffle_is_seeded_and_complete(output: str) -> None:
    def run() -> np.ndarray:
        ds = utils.timeseries_dataset_from_array(
            np.arange(40), np.arange(40), 5, shuffle=True, seed=3, batch_size=8
        )
        return np.concatenate([x[:, 0] for x, _ in batches_of(ds)])

    first, second = run(), run()
    np.testing.assert_array_equal(first, second)
    assert sorted(first.tolist()) == list(range(36))
    assert first.tolist() != list(range(36))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="sequence_length"):
        utils.timeseries_dataset_from_array(np.arange(5), None, 0)
    with pytest.raises(ValueError, match="sampling_rate"):
        utils.timeseries_dataset_from_array(np.arange(5), None, 2, sampling_rate=0)
    with pytest.raises(ValueError, match="start_index"):
        utils.timeseries_dataset_from_array(np.arange(5), None, 2, start_index=7)
    with pytest.raises(ValueError, match="end_index"):
        utils.timeseries_dataset_from_array(np.arange(5), None, 2, start_index=3, end_index=2)
    with pytest.raises(ValueError, match="format"):
        utils.timeseries_dataset_from_array(np.arange(5), None, 2, format="grain")
    with pytest.raises(ValueError, match="batch_size"):
        utils.timeseries_dataset_from_array(np.arange(5), None, 2, batch_size=0)


@pytest.mark.requires(Capability.TRAINING)
def test_fit_on_the_dataset(output: str) -> None:
    rng = np.random.default_rng(0)
    data = rng.normal(size=(40, 2)).astype("float32")
    ds = utils.timeseries_dataset_from_array(data, data[:, 0], sequence_length=4, batch_size=8)
    model = lamina.Sequential([lamina.Input((4, 2)), layers.Flatten(), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(ds, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert np.isfinite(history.history["loss"]).all()
