"""`lamina.utils.to_categorical` and `normalize` against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.testing import assert_allclose


def test_to_categorical_matches_numpy_one_hot():
    labels = np.array([[0], [2], [1]])
    out = lamina.utils.to_categorical(labels, num_classes=4)
    np.testing.assert_array_equal(out, np.eye(4, dtype="float32")[[0, 2, 1]])
    assert lamina.utils.to_categorical([1, 0]).shape == (2, 2)


def test_to_categorical_rejects_out_of_range_labels():
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        lamina.utils.to_categorical([0, 3], num_classes=3)
    with pytest.raises(ValueError, match="from -1"):
        lamina.utils.to_categorical([-1, 1], num_classes=3)


@pytest.mark.parametrize("order", [1, 2])
def test_normalize_rows(order):
    x = np.array([[3.0, -4.0], [0.0, 0.0], [1.0, 1.0]], "float32")
    norms = np.linalg.norm(x, ord=order, axis=-1, keepdims=True)
    expected = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
    assert_allclose(lamina.utils.normalize(x, order=order), expected)


def test_serialization_names_are_the_registry():
    assert lamina.utils.get_custom_objects() is lamina.saving.get_custom_objects()
    assert lamina.utils.is_keras_tensor(lamina.Input((2,)))
    assert not lamina.utils.is_keras_tensor(np.zeros(2))


def test_config_dtype_policy_is_the_global_policy():
    before = lamina.config.dtype_policy()
    try:
        lamina.config.set_dtype_policy("mixed_float16")
        assert lamina.config.dtype_policy().name == "mixed_float16"
        assert lamina.dtype_policies.dtype_policy().name == "mixed_float16"
    finally:
        lamina.config.set_dtype_policy(before)
