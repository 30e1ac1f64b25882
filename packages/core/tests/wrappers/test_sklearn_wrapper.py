"""`lamina.wrappers`: Lamina models as scikit-learn estimators (Keras 3's semantics)."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability

sklearn = pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from lamina.wrappers import SKLearnClassifier, SKLearnRegressor, SKLearnTransformer  # noqa: E402

training = pytest.mark.requires(Capability.TRAINING)


def mlp(X, y, loss="mse", hidden=8, activation=None, learning_rate=0.01, run_eagerly=False):
    """A small MLP sized from the data: X's width in, y's width out.

    Seeded, so that fits are reproducible as several scikit-learn checks assume.
    """
    lamina.utils.set_random_seed(0)
    inputs = lamina.Input((X.shape[1],))
    x = layers.Dense(hidden, activation="relu")(inputs)
    outputs = layers.Dense(y.shape[1] if y is not None else 2, activation=activation)(x)
    model = lamina.Model(inputs, outputs)
    model.compile(
        optimizer=lamina.optimizers.Adam(learning_rate), loss=loss, run_eagerly=run_eagerly
    )
    return model


CLASSIFIER_KWARGS = {"loss": "categorical_crossentropy", "activation": "softmax"}
# The checks build a new model for almost every fit: compiling each step (jax.jit,
# tf.function) would cost far more than the tiny fits themselves.
EAGER = {"run_eagerly": True}
QUIET = {"epochs": 1, "verbose": 0}


class _Mlp:
    """`mlp` with a stable repr: the checks' test ids hold the estimator's repr, and they
    must not hold a memory address (pytest-xdist's workers must collect the same ids)."""

    def __call__(self, *args, **kwargs):
        return mlp(*args, **kwargs)

    def __repr__(self) -> str:
        return "mlp"


@training
@parametrize_with_checks(
    [
        SKLearnClassifier(_Mlp(), model_kwargs={**CLASSIFIER_KWARGS, **EAGER}, fit_kwargs=QUIET),
        SKLearnRegressor(_Mlp(), model_kwargs=EAGER, fit_kwargs=QUIET),
        SKLearnTransformer(_Mlp(), model_kwargs=EAGER, fit_kwargs=QUIET),
    ],
)
def test_scikit_learn_estimator_checks(estimator, check):
    """Every check passes, none expected to fail: Keras 3 lists the checks that assume
    reproducible fits as expected failures, which a seeded model builder makes pass."""
    check(estimator)


def _blobs(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).astype("float32")
    X[: n // 2] += 3.0
    y = np.array(["low"] * (n // 2) + ["high"] * (n - n // 2))
    return X, y


@training
def test_classifier_learns_string_labels_and_returns_them():
    lamina.utils.set_random_seed(0)
    X, y = _blobs()
    clf = SKLearnClassifier(
        mlp, model_kwargs=CLASSIFIER_KWARGS, fit_kwargs={"epochs": 30, "verbose": 0}
    )
    clf.fit(X, y)
    assert list(clf.classes_) == ["high", "low"]
    predicted = clf.predict(X)
    assert predicted.dtype == y.dtype and predicted.shape == (120,)
    assert clf.score(X, y) > 0.95
    # The model trained on one-hot targets, one unit per class.
    assert clf.model_.output_shape == (None, 2)
    assert clf.epoch_ == 30 and len(clf.history_.history["loss"]) == 30


@training
def test_regressor_predicts_one_dimensional_targets_in_one_dimension():
    lamina.utils.set_random_seed(0)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3)).astype("float32")
    y = X @ np.array([1.0, -2.0, 0.5], dtype="float32") + 0.3
    reg = SKLearnRegressor(
        mlp, model_kwargs={"hidden": 16}, fit_kwargs={"epochs": 80, "verbose": 0}
    )
    reg.fit(X, y)
    assert reg.predict(X).shape == (200,)
    assert reg.score(X, y) > 0.9
    two_columns = np.stack([y, -y], axis=1)
    assert reg.fit(X, two_columns, epochs=1).predict(X).shape == (200, 2)


@training
def test_transformer_outputs_the_models_predictions():
    X, _ = _blobs(40)
    step = SKLearnTransformer(mlp, fit_kwargs=QUIET)
    targets = np.stack([X[:, 0], X[:, 1], X.sum(axis=1)], axis=1)
    features = step.fit_transform(X, targets)
    assert features.shape == (40, 3)
    np.testing.assert_allclose(features, step.model_.predict(X, verbose=0), rtol=1e-6)


@training
def test_fit_kwargs_given_to_fit_override_the_constructors():
    X, y = _blobs(40)
    clf = SKLearnClassifier(
        mlp, model_kwargs=CLASSIFIER_KWARGS, fit_kwargs={"epochs": 3, "verbose": 0}
    )
    clf.fit(X, y, epochs=2)
    assert clf.epoch_ == 2
    assert clf.fit_kwargs == {"epochs": 3, "verbose": 0}  # not modified by fit


@training
def test_a_model_instance_is_cloned_with_its_compile_settings():
    X, y = _blobs(40)
    given = mlp(X, np.zeros((1, 2)), **CLASSIFIER_KWARGS)
    before = [w.copy() for w in given.get_weights()]
    clf = SKLearnClassifier(given, fit_kwargs=QUIET).fit(X, y)
    assert clf.model_ is not given
    assert clf.model_.get_compile_config()["loss"] == "categorical_crossentropy"
    for old, now in zip(before, given.get_weights()):
        np.testing.assert_array_equal(old, now)  # the given model never trains


@training
def test_warm_start_continues_training_the_same_model():
    X, y = _blobs(40)
    clf = SKLearnClassifier(mlp, warm_start=True, model_kwargs=CLASSIFIER_KWARGS, fit_kwargs=QUIET)
    first = clf.fit(X, y).model_
    weights = [w.copy() for w in first.get_weights()]
    assert clf.fit(X, y).model_ is first
    assert any(not np.array_equal(a, b) for a, b in zip(weights, first.get_weights()))
    cold = SKLearnClassifier(mlp, model_kwargs=CLASSIFIER_KWARGS, fit_kwargs=QUIET)
    assert cold.fit(X, y).model_ is not cold.fit(X, y).model_


@training
def test_an_uncompiled_model_is_refused():
    def uncompiled(X, y):
        inputs = lamina.Input((X.shape[1],))
        return lamina.Model(inputs, layers.Dense(y.shape[1])(inputs))

    X, y = _blobs(20)
    with pytest.raises(RuntimeError, match="must be compiled with a loss and an optimizer"):
        SKLearnClassifier(uncompiled).fit(X, y)
    with pytest.raises(TypeError, match=r"must be a `lamina\.Model` or a callable"):
        SKLearnRegressor(model="dense").fit(X, np.zeros(20))


@training
def test_a_fitted_estimator_pickles_with_its_model():
    pytest.importorskip("lamina_saving")
    X, y = _blobs(40)
    clf = SKLearnClassifier(mlp, model_kwargs=CLASSIFIER_KWARGS, fit_kwargs=QUIET).fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.predict(X), clf.predict(X))
    np.testing.assert_allclose(
        restored.model_.predict(X, verbose=0), clf.model_.predict(X, verbose=0), rtol=1e-6
    )
    assert restored.history_.history == clf.history_.history


def test_single_class_and_continuous_targets_are_refused_by_the_classifier():
    X = np.zeros((6, 2), "float32")
    clf = SKLearnClassifier(mlp, fit_kwargs=QUIET)
    with pytest.raises(ValueError, match=r"at least two classes.*only one class"):
        clf.fit(X, np.ones(6))
    with pytest.raises(ValueError, match=r"binary and multiclass targets only.*continuous"):
        clf.fit(X, np.linspace(0.0, 1.0, 6))


def test_missing_scikit_learn_is_an_import_error_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        _ = lamina.wrappers.SKLearnRegressor
