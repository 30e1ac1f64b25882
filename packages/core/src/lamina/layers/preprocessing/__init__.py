"""Preprocessing layers: Rescaling and Normalization (with `adapt`)."""

from lamina.layers.preprocessing.category_encoding import CategoryEncoding as CategoryEncoding
from lamina.layers.preprocessing.discretization import Discretization as Discretization
from lamina.layers.preprocessing.normalization import Normalization as Normalization
from lamina.layers.preprocessing.rescaling import Rescaling as Rescaling

__all__ = ["CategoryEncoding", "Discretization", "Normalization", "Rescaling"]
