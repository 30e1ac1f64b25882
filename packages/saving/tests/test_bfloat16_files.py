"""bfloat16 weights (2-byte opaque data in HDF5, marked as Keras 3 marks it) round-trip."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina_saving import LaminaFileError


def _model():
    return lamina.Sequential([lamina.Input((4,)), layers.Dense(3, dtype="bfloat16", name="d")])


X = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)


def _same(a, b):
    as_float = [np.asarray(ops.convert_to_numpy(v), "float32") for v in (a, b)]
    np.testing.assert_array_equal(*as_float)


@pytest.mark.parametrize("suffix", [".weights.h5", ".lamina", ".keras"])
def test_bfloat16_weights_round_trip(tmp_path, suffix):
    model = _model()
    path = tmp_path / f"bf16{suffix}"
    if suffix == ".weights.h5":
        model.save_weights(path)
        loaded = _model()
        loaded.load_weights(path)
    else:
        model.save(path)
        loaded = lamina.saving.load_model(path)
    assert loaded.layers[-1].kernel.dtype == "bfloat16"
    _same(loaded.layers[-1].kernel.value, model.layers[-1].kernel.value)
    _same(loaded(X), model(X))


def test_opaque_data_not_marked_bfloat16_is_refused(tmp_path):
    path = tmp_path / "opaque.weights.h5"
    _model().save_weights(path)
    with h5py.File(path, "r+") as f:
        del f["layers/dense/vars/0"].attrs["dtype"]  # Keras' layout names groups by class
    with pytest.raises(LaminaFileError, match="non-numeric dtype"):
        _model().load_weights(path)
