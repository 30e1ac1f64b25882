"""Lamina: write a model once, run it on JAX, PyTorch, TensorFlow or NumPy.

The public API follows Keras 3, so ``import lamina as keras`` runs Keras 3 code.
Importing lamina imports the selected backend only (and none when none is installed:
symbolic models still build).
"""

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
from lamina._version import __version__ as __version__
from lamina.backend.config import name_scope as name_scope
from lamina.backend.registry import current_if_any as _load_selected_backend
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

# Import the selected backend now (and only it), after the core modules it builds on.
_load_selected_backend()


def version() -> str:
    """The version of the `lamina` package."""
    return __version__


__all__ = [
    "DTypePolicy",
    "FloatDTypePolicy",
    "Function",
    "Initializer",
    "Input",
    "InputSpec",
    "KerasTensor",
    "Layer",
    "Loss",
    "Metric",
    "Model",
    "Operation",
    "Optimizer",
    "Regularizer",
    "StatelessScope",
    "Sequential",
    "SymbolicScope",
    "SymbolicTensor",
    "Variable",
    "__version__",
    "activations",
    "backend",
    "callbacks",
    "config",
    "constraints",
    "datasets",
    "device",
    "distribution",
    "dtype_policies",
    "export",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "mixed_precision",
    "models",
    "name_scope",
    "ops",
    "optimizers",
    "preprocessing",
    "random",
    "regularizers",
    "saving",
    "tree",
    "utils",
    "visualization",
    "version",
    "wrappers",
]
