"""Non-numeric training data is refused by argument name before any backend sees it.

Without the check each backend failed its own way (JAX "Error interpreting argument to
stage", torch "can't convert np.ndarray of type numpy.str_", a TensorFlow graph error);
now every backend raises the same `TypeError`, naming `x`, `y` or `sample_weight`, the
dtype received and what was expected.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.trainers.data_adapters.data_adapter_utils import non_numeric_dtype

X = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
Y = np.array([0, 1] * 4, "int32")
LABELS = np.array(["cat", "dog"] * 4)


def _model():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    return model


@pytest.mark.parametrize("method", ["fit", "evaluate"])
def test_string_labels_name_y_its_dtype_and_the_fix(method):
    with pytest.raises(TypeError, match=r"Argument `y` must hold numbers") as info:
        getattr(_model(), method)(X, LABELS, verbose=0)
    message = str(info.value)
    assert re.search(r"dtype <U3 \(strings\), such as '(cat|dog)'", message)  # fit shuffles
    assert "np.unique(y, return_inverse=True)" in message


def test_string_inputs_and_sample_weights_are_named():
    model = _model()
    with pytest.raises(TypeError, match=r"Argument `x` .* Received: x with dtype <U1"):
        model.evaluate(np.full((8, 3), "a"), Y, verbose=0)
    with pytest.raises(TypeError, match=r"Received: x with dtype <U1"):
        model.predict(np.full((8, 3), "a"), verbose=0)
    with pytest.raises(TypeError, match=r"Argument `sample_weight` .* dtype <U1"):
        model.evaluate(X, Y, sample_weight=np.array(["w"] * 8), verbose=0)


def test_object_arrays_and_nested_structures_name_the_path():
    inputs = {"a": lamina.Input((3,), name="a"), "b": lamina.Input((3,), name="b")}
    model = lamina.Model(inputs, layers.Dense(1)(layers.Concatenate()([inputs["a"],
                                                                        inputs["b"]])))
    model.compile(optimizer="sgd", loss="mse")
    mixed = np.array([[1.0, "x", None]] * 8, dtype=object)
    with pytest.raises(TypeError, match=r"x\['b'\] with dtype object \(Python objects\)"):
        model.evaluate({"a": X, "b": mixed}, Y, verbose=0)


def test_the_on_batch_methods_check_too():
    model = _model()
    with pytest.raises(TypeError, match="Argument `y`"):
        model.test_on_batch(X, LABELS)
    with pytest.raises(TypeError, match="Argument `y`"):  # before class weights read y
        model.train_on_batch(X, LABELS, class_weight={0: 1.0, 1: 2.0})
    with pytest.raises(TypeError, match="Argument `x`"):
        model.predict_on_batch(np.full((8, 3), "a"))


def test_labels_from_a_generator_are_checked_on_the_first_batch():
    def batches():
        for _ in range(2):
            yield X, LABELS

    with pytest.raises(TypeError, match="Argument `y`"):
        _model().evaluate(batches(), verbose=0)


def test_numeric_data_of_every_kind_passes():
    model = _model()
    # bool, int and float labels, int inputs: all numeric, none refused
    model.evaluate(X.astype("int32"), Y.astype(bool), verbose=0)
    model.evaluate(X, Y.astype("float32"), sample_weight=np.ones(8, "int64"), verbose=0)
    assert non_numeric_dtype(np.zeros(2, ml_dtypes.bfloat16)) is None
    assert non_numeric_dtype(np.zeros(2, "complex64")) is None
    assert non_numeric_dtype(np.array(["2024-01-01"], "datetime64[D]")).endswith("(dates)")
    assert non_numeric_dtype([1, 2]) is None  # no dtype: nothing to judge


@pytest.mark.requires(lamina.backend.Capability.TRAINING)
def test_numpy_default_dtypes_train_like_the_narrow_ones():
    # float64 inputs and int64 labels and weights (what NumPy makes by default) go in as
    # floatx and int32 would, silently: no backend warns about a 64-bit dtype it lacks.
    def fitted(x, y, weights):
        lamina.utils.set_random_seed(0)
        model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])  # metrics read the labels eagerly too
        history = model.fit(x, y, sample_weight=weights, batch_size=3, shuffle=False, verbose=0)
        return history.history["loss"][0], model.evaluate(x, y, verbose=0), model.predict(x)

    wide = fitted(X.astype("float64"), Y.astype("int64"), np.ones(8, "int64"))
    narrow = fitted(X, Y, np.ones(8, "int32"))
    np.testing.assert_allclose(wide[0], narrow[0], rtol=1e-6)
    np.testing.assert_allclose(wide[1], narrow[1], rtol=1e-6)
    np.testing.assert_allclose(wide[2], narrow[2], rtol=1e-6)
