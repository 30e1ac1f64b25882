"""Merging layers (combine a list of tensors) and their functional forms."""

from lamina.layers.merging.base_merge import Merge as Merge
from lamina.layers.merging.concatenate import Concatenate as Concatenate
from lamina.layers.merging.concatenate import concatenate as concatenate
from lamina.layers.merging.dot import Dot as Dot
from lamina.layers.merging.dot import dot as dot
from lamina.layers.merging.elementwise import Add as Add
from lamina.layers.merging.elementwise import Average as Average
from lamina.layers.merging.elementwise import Maximum as Maximum
from lamina.layers.merging.elementwise import Minimum as Minimum
from lamina.layers.merging.elementwise import Multiply as Multiply
from lamina.layers.merging.elementwise import Subtract as Subtract
from lamina.layers.merging.elementwise import add as add
from lamina.layers.merging.elementwise import average as average
from lamina.layers.merging.elementwise import maximum as maximum
from lamina.layers.merging.elementwise import minimum as minimum
from lamina.layers.merging.elementwise import multiply as multiply
from lamina.layers.merging.elementwise import subtract as subtract

__all__ = [
    "Add",
    "Average",
    "Concatenate",
    "Dot",
    "Maximum",
    "Merge",
    "Minimum",
    "Multiply",
    "Subtract",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]
