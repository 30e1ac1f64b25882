"""Lamina: write a model once, run it on JAX, PyTorch, TensorFlow or NumPy.

The public API follows Keras 3, so ``import lamina as keras`` runs Keras 3 code.
Importing lamina loads the selected backend; its namespaces load on first use (PEP 562), so
a backend package may be imported before `lamina` (its modules import `lamina.backend.kit`
while the package is still incomplete).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lamina._version import __version__ as __version__
from lamina.backend.registry import load_on_import as _load_on_import

if TYPE_CHECKING:
    from lamina import activations as activations
    from lamina import backend as backend
    from lamina import callbacks as callbacks
    from lamina import config as config
    from lamina import constraints as constraints
    from lamina import datasets as datasets
    from lamina import distribution as distribution
    from lamina import dtype_policies as dtype_policies
    from lamina import export as export
    from lamina import initializers as initializers
    from lamina import layers as layers
    from lamina import losses as losses
    from lamina import metrics as metrics
    from lamina import mixed_precision as mixed_precision
    from lamina import models as models
    from lamina import ops as ops
    from lamina import optimizers as optimizers
    from lamina import preprocessing as preprocessing
    from lamina import random as random
    from lamina import regularizers as regularizers
    from lamina import saving as saving
    from lamina import tree as tree
    from lamina import utils as utils
    from lamina import visualization as visualization
    from lamina import wrappers as wrappers
    from lamina.backend.config import name_scope as name_scope
    from lamina.device import device as device
    from lamina.dtype_policies import DTypePolicy as DTypePolicy
    from lamina.dtype_policies import FloatDTypePolicy as FloatDTypePolicy
    from lamina.initializers import Initializer as Initializer
    from lamina.layers import Input as Input
    from lamina.layers import InputSpec as InputSpec
    from lamina.layers import Layer as Layer
    from lamina.losses import Loss as Loss
    from lamina.metrics import Metric as Metric
    from lamina.models import Model as Model
    from lamina.models import Sequential as Sequential
    from lamina.ops.function import Function as Function
    from lamina.ops.operation import Operation as Operation
    from lamina.ops.symbolic import SymbolicTensor as KerasTensor
    from lamina.ops.symbolic import SymbolicTensor as SymbolicTensor
    from lamina.optimizers import Optimizer as Optimizer
    from lamina.regularizers import Regularizer as Regularizer
    from lamina.variables import StatelessScope as StatelessScope
    from lamina.variables import SymbolicScope as SymbolicScope
    from lamina.variables import Variable as Variable

_NAMESPACES = frozenset(
    {
        "activations", "backend", "callbacks", "config", "constraints", "datasets",
        "distribution", "dtype_policies", "export", "initializers", "layers", "losses",
        "metrics", "mixed_precision", "models", "ops", "optimizers", "preprocessing",
        "random", "regularizers", "saving", "tree", "utils", "visualization", "wrappers",
    }
)  # fmt: skip
# A top-level name → (the module that defines it, its name there).
_NAMES: dict[str, tuple[str, str]] = {
    "name_scope": ("lamina.backend.config", "name_scope"),
    "device": ("lamina.device", "device"),
    "DTypePolicy": ("lamina.dtype_policies", "DTypePolicy"),
    "FloatDTypePolicy": ("lamina.dtype_policies", "FloatDTypePolicy"),
    "Initializer": ("lamina.initializers", "Initializer"),
    "Input": ("lamina.layers", "Input"),
    "InputSpec": ("lamina.layers", "InputSpec"),
    "Layer": ("lamina.layers", "Layer"),
    "Loss": ("lamina.losses", "Loss"),
    "Metric": ("lamina.metrics", "Metric"),
    "Model": ("lamina.models", "Model"),
    "Sequential": ("lamina.models", "Sequential"),
    "Function": ("lamina.ops.function", "Function"),
    "Operation": ("lamina.ops.operation", "Operation"),
    "KerasTensor": ("lamina.ops.symbolic", "SymbolicTensor"),
    "SymbolicTensor": ("lamina.ops.symbolic", "SymbolicTensor"),
    "Optimizer": ("lamina.optimizers", "Optimizer"),
    "Regularizer": ("lamina.regularizers", "Regularizer"),
    "StatelessScope": ("lamina.variables", "StatelessScope"),
    "SymbolicScope": ("lamina.variables", "SymbolicScope"),
    "Variable": ("lamina.variables", "Variable"),
}


_load_on_import()


def __getattr__(name: str) -> Any:
    if name in _NAMESPACES:
        value = importlib.import_module(f"lamina.{name}")
    elif name in _NAMES:
        module, attribute = _NAMES[name]
        value = getattr(importlib.import_module(module), attribute)
    else:
        raise AttributeError(f"module 'lamina' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


def version() -> str:
    """The version of the `lamina` package."""
    return __version__


__all__ = sorted([*_NAMESPACES, *_NAMES, "__version__", "version"])
