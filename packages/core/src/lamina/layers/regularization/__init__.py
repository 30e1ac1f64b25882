"""Regularization layers: dropout variants, training-time noise, activity penalties."""

from lamina.layers.regularization.activity_regularization import (
    ActivityRegularization as ActivityRegularization,
)
from lamina.layers.regularization.dropout import Dropout as Dropout
from lamina.layers.regularization.dropout import SpatialDropout1D as SpatialDropout1D
from lamina.layers.regularization.dropout import SpatialDropout2D as SpatialDropout2D
from lamina.layers.regularization.dropout import SpatialDropout3D as SpatialDropout3D
from lamina.layers.regularization.noise import AlphaDropout as AlphaDropout
from lamina.layers.regularization.noise import GaussianDropout as GaussianDropout
from lamina.layers.regularization.noise import GaussianNoise as GaussianNoise

__all__ = [
    "ActivityRegularization",
    "AlphaDropout",
    "Dropout",
    "GaussianDropout",
    "GaussianNoise",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
]
