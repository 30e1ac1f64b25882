"""`class_weight`: turned into per-sample weights from the targets."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from lamina.trainers.data_adapters import EpochIterator, class_weight_to_sample_weights

WEIGHTS = {0: 0.5, 1: 2.0, 2: 3.0}


@pytest.mark.parametrize(
    "y",
    [
        np.array([0, 1, 2, 1]),
        np.array([[0], [1], [2], [1]]),
        np.eye(3)[[0, 1, 2, 1]],
        np.array([0.0, 1.0, 2.0, 1.0]),
    ],
    ids=["indices", "column", "one_hot", "float_labels"],
)
def test_label_forms(y: np.ndarray) -> None:
    np.testing.assert_allclose(class_weight_to_sample_weights(y, WEIGHTS), [0.5, 2, 3, 2])


def test_missing_classes_weigh_one() -> None:
    out = class_weight_to_sample_weights(np.array([0, 4]), {0: 2.0})
    np.testing.assert_allclose(out, [2.0, 1.0])
    assert out.dtype == np.float32


def test_array_fit_data_gets_sample_weights() -> None:
    y = np.array([0, 1, 2, 1, 0])
    it = EpochIterator(np.zeros((5, 2)), y, batch_size=2, class_weight=WEIGHTS)
    batches = [b for _, g in it.enumerate_epoch() for b in g]
    assert all(len(b) == 3 for b in batches)
    np.testing.assert_allclose(np.concatenate([b[2] for b in batches]), [0.5, 2, 3, 2, 0.5])


def test_generator_batches_get_sample_weights() -> None:
    def gen() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        yield np.zeros((2, 1)), np.array([1, 2])
        yield np.zeros((1, 1)), np.array([0])

    it = EpochIterator(gen(), class_weight=WEIGHTS)
    weights = [b[2].tolist() for _, g in it.enumerate_epoch() for b in g]
    assert weights == [[2.0, 3.0], [0.5]]


def test_rank_3_targets_rejected() -> None:
    with pytest.raises(ValueError, match=r"`class_weight`.*\(N,\), \(N, 1\).*\(4, 2, 2\)"):
        EpochIterator(np.zeros((4, 1)), np.zeros((4, 2, 2)), class_weight=WEIGHTS)


def test_multi_output_targets_rejected() -> None:
    with pytest.raises(ValueError, match=r"`class_weight`.*exactly one model output"):
        class_weight_to_sample_weights({"a": np.zeros(3), "b": np.zeros(3)}, WEIGHTS)


def test_bad_class_weight_and_combinations() -> None:
    with pytest.raises(ValueError, match=r"`class_weight` must be a dict"):
        EpochIterator(np.zeros((2, 1)), np.zeros(2), class_weight=[1.0, 2.0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"non-negative int keys.*'a'"):
        class_weight_to_sample_weights(np.zeros(2), {"a": 1.0})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"`class_weight` and `sample_weight`"):
        EpochIterator(np.zeros((2, 1)), np.zeros(2), np.ones(2), class_weight={0: 1.0})
    with pytest.raises(ValueError, match=r"`class_weight` needs targets `y`"):
        EpochIterator(np.zeros((2, 1)), class_weight={0: 1.0})
    with pytest.raises(ValueError, match=r"integer class labels"):
        class_weight_to_sample_weights(np.array([0.5, 1.0]), {0: 1.0})
    with pytest.raises(ValueError, match=r"non-negative class labels"):
        class_weight_to_sample_weights(np.array([-1, 1]), {0: 1.0})
