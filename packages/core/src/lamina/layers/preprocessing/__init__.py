"""Preprocessing layers: numeric, text and categorical (image ones live in `image/`)."""

from lamina.layers.preprocessing.category_encoding import CategoryEncoding as CategoryEncoding
from lamina.layers.preprocessing.discretization import Discretization as Discretization
from lamina.layers.preprocessing.hashed_crossing import HashedCrossing as HashedCrossing
from lamina.layers.preprocessing.hashing import Hashing as Hashing
from lamina.layers.preprocessing.integer_lookup import IntegerLookup as IntegerLookup
from lamina.layers.preprocessing.normalization import Normalization as Normalization
from lamina.layers.preprocessing.rescaling import Rescaling as Rescaling
from lamina.layers.preprocessing.string_lookup import StringLookup as StringLookup
from lamina.layers.preprocessing.text_vectorization import TextVectorization as TextVectorization

__all__ = [
    "CategoryEncoding",
    "Discretization",
    "HashedCrossing",
    "Hashing",
    "IntegerLookup",
    "Normalization",
    "Rescaling",
    "StringLookup",
    "TextVectorization",
]
