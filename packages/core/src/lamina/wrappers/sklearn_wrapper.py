"""scikit-learn estimators around Lamina models, with Keras 3's `keras.wrappers` semantics.

An estimator holds a `model`: a compiled `lamina.Model`, or a callable
``model(X=..., y=..., **model_kwargs)`` that builds and compiles one from the training data
(so the input width and number of classes come from the data). `fit` builds a new model
each time (unless `warm_start`), trains it with ``model.fit(X, y, **fit_kwargs)`` and keeps
it as ``model_``; `predict` / `transform` run ``model_.predict``.

Training starts from random weights, so two fits differ unless the seeds are fixed
(`lamina.utils.set_random_seed`); the estimators carry scikit-learn's
``non_deterministic`` tag for that reason.
"""

from __future__ import annotations

import copy
import os
import tempfile
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from lamina.callbacks.history import History
from lamina.models.cloning import clone_model
from lamina.models.model import Model

__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]


def _validate(estimator: Any, X: Any, y: Any = "no_validation", reset: bool = True) -> Any:
    """scikit-learn's input checks (and `n_features_in_` bookkeeping) on any version.

    ``y=None`` is checked too: estimators that need targets refuse it with
    scikit-learn's own message.
    """
    multi_output = estimator._multi_output
    try:
        from sklearn.utils.validation import validate_data  # scikit-learn >= 1.6
    except ImportError:
        return estimator._validate_data(X, y, reset=reset, multi_output=multi_output)
    if isinstance(y, str) and y == "no_validation":
        return validate_data(estimator, X, reset=reset)
    return validate_data(estimator, X, y, reset=reset, multi_output=multi_output)


def _check_compiled(model: Any) -> None:
    if not isinstance(model, Model):
        raise TypeError(
            "Argument `model` must be a `lamina.Model` or a callable returning one. "
            f"Received (or the callable returned): {model!r}"
        )
    if not model.compiled or model.loss is None or model.optimizer is None:
        raise RuntimeError(
            f"The model {model.name!r} given to the scikit-learn wrapper must be compiled "
            "with a loss and an optimizer (`model.compile(optimizer=..., loss=...)`)."
        )


class _ArchivedModel:
    """A model in pickled state: its `.lamina` archive bytes (models do not pickle)."""

    def __init__(self, model: Model) -> None:
        from lamina.models import save_model

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.lamina")
            save_model(model, path)
            with open(path, "rb") as f:
                self.data = f.read()

    def restore(self) -> Model:
        from lamina.models import load_model

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.lamina")
            with open(path, "wb") as f:
                f.write(self.data)
            model: Model = load_model(path)
        return model


class _SKLBase(BaseEstimator):
    """What the three estimators share: building, fitting, predicting and pickling.

    Args:
        model: a compiled `lamina.Model` (cloned, with its compile settings, at each fit
            unless `warm_start`), or a callable taking at least the keyword arguments `X`
            and `y` (plus `model_kwargs`) and returning a compiled model.
        warm_start: reuse the model of the previous fit (or the given `Model` itself)
            instead of building a new one, so training continues from its weights.
        model_kwargs: keyword arguments for `model` when it is a callable.
        fit_kwargs: keyword arguments for ``model.fit`` (``epochs``, ``batch_size``...);
            those given to `fit` itself take precedence.

    Attributes:
        model_: the fitted `lamina.Model`.
        history_: the `History` that ``model.fit`` returned.
        n_features_in_: the number of input features seen in `fit`.
    """

    _multi_output = True
    """Whether `y` may have several columns (one per model output unit)."""

    def __init__(
        self,
        model: Any,
        warm_start: bool = False,
        model_kwargs: dict[str, Any] | None = None,
        fit_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    # --- scikit-learn protocol -----------------------------------------------------------
    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6 reads tags here
        return {"non_deterministic": True}

    def __sklearn_clone__(self) -> Any:
        """A fresh estimator with the same parameters.

        A `Model` given as `model` is passed on as is (deep-copying a model is not
        possible, and `fit` clones it anyway); the dicts are copied.
        """
        return type(self)(
            model=self.model,
            warm_start=self.warm_start,
            model_kwargs=copy.deepcopy(self.model_kwargs),
            fit_kwargs=copy.deepcopy(self.fit_kwargs),
        )

    def set_fit_request(self, **kwargs: Any) -> Any:
        """Ask scikit-learn's metadata routing to pass these parameters to `fit`.

        Args:
            **kwargs: ``param=alias`` pairs; an alias is True, False, None or a string.

        Raises:
            RuntimeError: metadata routing is off
                (``sklearn.set_config(enable_metadata_routing=True)`` turns it on).
        """
        import sklearn
        from sklearn.utils.metadata_routing import MetadataRequest

        if not sklearn.get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                "`set_fit_request` needs scikit-learn's metadata routing: enable it with "
                "`sklearn.set_config(enable_metadata_routing=True)`."
            )
        request = MetadataRequest(owner=type(self).__name__)
        for param, alias in kwargs.items():
            request.fit.add_request(param=param, alias=alias)
        self._metadata_request = request
        return self

    @property
    def epoch_(self) -> int:
        """How many epochs the last `fit` ran (0 before any)."""
        history = self.__dict__.get("history_")
        return len(history.epoch) if history is not None else 0

    # --- fitting and predicting ----------------------------------------------------------
    def _get_model(self, X: Any, y: Any) -> Model:
        previous = self.__dict__.get("model_")
        if self.warm_start and previous is not None:
            return previous
        if isinstance(self.model, Model):
            if self.warm_start:
                return self.model
            clone = clone_model(self.model)
            config = self.model.get_compile_config()
            if config:
                clone.compile_from_config(config)
            return clone
        if not callable(self.model):
            raise TypeError(
                "Argument `model` must be a `lamina.Model` or a callable returning one. "
                f"Received: model={self.model!r}"
            )
        built: Model = self.model(X=X, y=y, **(self.model_kwargs or {}))
        return built

    def _fit(self, X: Any, y: Any, kwargs: dict[str, Any]) -> Any:
        if y is None:
            X = _validate(self, X, None, reset=True)  # refused where targets are required
            target = None
        else:
            X, y = _validate(self, X, y, reset=True)
            target = self._encode_target(y, reset=True)
        model = self._get_model(X, target)
        _check_compiled(model)
        fit_kwargs = {**(self.fit_kwargs or {}), **kwargs}
        self.history_ = model.fit(X, target, **fit_kwargs)
        self.model_ = model
        return self

    def fit(self, X: Any, y: Any, **kwargs: Any) -> Any:
        """Build (or reuse, with `warm_start`) the model and train it on `X`, `y`.

        Args:
            X: array-like of shape ``(n_samples, n_features)``.
            y: array-like of shape ``(n_samples,)`` or ``(n_samples, n_outputs)``.
            **kwargs: passed to ``model.fit``, over `fit_kwargs`.

        Returns:
            The estimator.
        """
        return self._fit(X, y, kwargs)

    def _raw_predict(self, X: Any) -> np.ndarray[Any, Any]:
        check_is_fitted(self)
        X = _validate(self, X, reset=False)
        return np.asarray(self.model_.predict(X, verbose=0))

    def _encode_target(self, y: Any, reset: bool = False) -> Any:
        """The target as the model trains on it: 2-D, one column per output."""
        type_of_target(y, raise_unknown=True)  # the error scikit-learn expects for bad y
        y = np.asarray(y)
        if reset:
            self._target_ndim = y.ndim
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def _decode_target(self, raw: np.ndarray[Any, Any]) -> Any:
        """The model's output in the shape `y` had (1-D targets come back 1-D)."""
        if self._target_ndim == 1 and raw.ndim == 2 and raw.shape[1] == 1:
            return raw[:, 0]
        return raw

    # --- pickling --------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = super().__getstate__()
        state = dict(state)
        for key in ("model", "model_"):
            if isinstance(state.get(key), Model):
                state[key] = _ArchivedModel(state[key])
        history = state.get("history_")
        if isinstance(history, History):
            state["history_"] = {"history": history.history, "epoch": history.epoch}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        for key in ("model", "model_"):
            if isinstance(state.get(key), _ArchivedModel):
                state[key] = state[key].restore()
        saved = state.get("history_")
        if isinstance(saved, dict):
            history = History()
            history.history, history.epoch = saved["history"], saved["epoch"]
            if isinstance(state.get("model_"), Model):
                history.set_model(state["model_"])
            state["history_"] = history
        super().__setstate__(state)


class SKLearnClassifier(ClassifierMixin, _SKLBase):
    """A Lamina model as a scikit-learn classifier.

    Labels (any type: ints, strings...) are one-hot encoded for training, so the model
    should end with one unit per class (softmax); `predict` returns the label of the
    largest output. A model with a single (sigmoid) output is read as the probability of
    the second class of a binary problem.

    Args:
        model, warm_start, model_kwargs, fit_kwargs: see `SKLearnRegressor`.

    Attributes:
        model_, history_, n_features_in_: as for every wrapper.
        classes_: the sorted class labels seen in `fit`.

    Example:
        >>> X = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
        >>> y = np.where(X[:, 0] > 0, "up", "down")  # any labels
        >>> def build(X, y, hidden=16):  # y arrives one-hot encoded
        ...     inputs = lamina.Input((X.shape[1],))
        ...     x = lamina.layers.Dense(hidden, activation="relu")(inputs)
        ...     outputs = lamina.layers.Dense(y.shape[1], activation="softmax")(x)
        ...     model = lamina.Model(inputs, outputs)
        ...     model.compile(optimizer="adam", loss="categorical_crossentropy")
        ...     return model
        >>> clf = SKLearnClassifier(build, model_kwargs={"hidden": 32},
        ...                         fit_kwargs={"epochs": 20, "verbose": 0})
        >>> clf.fit(X, y).predict(X[:3])  # three of "down"/"up"
    """

    def _encode_target(self, y: Any, reset: bool = False) -> Any:
        kind = type_of_target(y, raise_unknown=True)
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                "SKLearnClassifier supports binary and multiclass targets only. Received "
                f"a target of type {kind!r}."
            )
        y = np.asarray(y)
        if reset:
            self.classes_ = np.unique(y)
            if len(self.classes_) < 2:
                raise ValueError(
                    "SKLearnClassifier needs at least two classes in `y` to train. Received "
                    f"only one class: {self.classes_.tolist()}."
                )
        indices = np.searchsorted(self.classes_, y)
        return np.eye(len(self.classes_), dtype="float32")[indices]

    _multi_output = False

    def _decode_target(self, raw: np.ndarray[Any, Any]) -> Any:
        if raw.ndim == 2 and raw.shape[1] == 1 and len(self.classes_) == 2:
            return self.classes_[(raw[:, 0] > 0.5).astype(int)]
        return self.classes_[np.argmax(raw, axis=-1)]

    def predict(self, X: Any) -> Any:
        """The predicted class label of each sample in `X`."""
        return self._decode_target(self._raw_predict(X))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "poor_score": True}


class SKLearnRegressor(RegressorMixin, _SKLBase):
    """A Lamina model as a scikit-learn regressor.

    A 1-D target trains as one column and `predict` returns it 1-D again; a 2-D target
    (several outputs) trains and comes back as is. Predictions are float64 arrays.

    Args:
        model: a compiled `lamina.Model` (cloned, with its compile settings, at each fit
            unless `warm_start`), or a callable taking at least the keyword arguments `X`
            and `y` (plus `model_kwargs`) and returning a compiled model.
        warm_start: reuse the model of the previous fit (or the given `Model` itself)
            instead of building a new one, so training continues from its weights.
        model_kwargs: keyword arguments for `model` when it is a callable.
        fit_kwargs: keyword arguments for ``model.fit``; those given to `fit` win.

    Attributes:
        model_: the fitted `lamina.Model`.
        history_: the `History` that ``model.fit`` returned.
        n_features_in_: the number of input features seen in `fit`.

    Example:
        >>> X = np.random.default_rng(0).normal(size=(64, 3)).astype("float32")
        >>> y = X @ np.array([1.0, -2.0, 0.5], "float32")
        >>> def build_regressor(X, y):
        ...     model = lamina.Sequential([lamina.Input((X.shape[1],)), lamina.layers.Dense(1)])
        ...     model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
        ...     return model
        >>> reg = SKLearnRegressor(build_regressor, fit_kwargs={"epochs": 50, "verbose": 0})
        >>> reg.fit(X, y).score(X, y)  # R^2, close to 1
    """

    def predict(self, X: Any) -> Any:
        """The model's prediction for each sample in `X`, as float64 (scikit-learn's
        convention for regressors, which its multi-output checks require)."""
        return self._decode_target(self._raw_predict(X)).astype(np.float64)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        tags.target_tags.multi_output = True
        return tags

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "poor_score": True, "multioutput": True}


class SKLearnTransformer(TransformerMixin, _SKLBase):
    """A Lamina model as a scikit-learn transformer: `transform` is ``model_.predict``.

    A pipeline step that maps samples to features, e.g. the embedding a trained model
    computes. `y` may be omitted in `fit` for a model whose loss needs no targets.

    Args:
        model, warm_start, model_kwargs, fit_kwargs: see `SKLearnRegressor`.

    Example:
        >>> X = np.random.default_rng(0).normal(size=(64, 6)).astype("float32")
        >>> def build_encoder(X, y):  # an autoencoder's bottleneck would do the same
        ...     model = lamina.Sequential([lamina.Input((X.shape[1],)), lamina.layers.Dense(2)])
        ...     model.compile(optimizer="adam", loss="mse")
        ...     return model
        >>> step = SKLearnTransformer(build_encoder, fit_kwargs={"epochs": 5, "verbose": 0})
        >>> features = step.fit(X, X[:, :2]).transform(X)
        >>> features.shape
        (64, 2)
    """

    def fit(self, X: Any, y: Any = None, **kwargs: Any) -> Any:
        """Build the model and train it on `X` (and `y` when given).

        Returns:
            The estimator.
        """
        return self._fit(X, y, kwargs)

    def transform(self, X: Any) -> Any:
        """The model's output for `X`, shape ``(n_samples, n_features_out)``."""
        return self._raw_predict(X)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []
        return tags

    def _more_tags(self) -> dict[str, Any]:
        return {**super()._more_tags(), "preserves_dtype": []}
