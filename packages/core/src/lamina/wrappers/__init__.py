"""Wrappers (``lamina.wrappers``): Lamina models as scikit-learn estimators.

scikit-learn is optional: the estimator classes are defined on first access, and without
scikit-learn that access is an `ImportError` naming the package to install.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lamina.wrappers.sklearn_wrapper import SKLearnClassifier as SKLearnClassifier
    from lamina.wrappers.sklearn_wrapper import SKLearnRegressor as SKLearnRegressor
    from lamina.wrappers.sklearn_wrapper import SKLearnTransformer as SKLearnTransformer

_LAZY = ("SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer")


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'lamina.wrappers' has no attribute {name!r}")
    try:
        import sklearn
    except ImportError as error:
        raise ImportError(
            f"`lamina.wrappers.{name}` wraps a model as a scikit-learn estimator and needs "
            "scikit-learn: `pip install scikit-learn`."
        ) from error
    return getattr(importlib.import_module("lamina.wrappers.sklearn_wrapper"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]
