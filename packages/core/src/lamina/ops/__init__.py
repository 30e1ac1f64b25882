"""`lamina.ops`: every op, eager on the active backend and symbolic on `SymbolicTensor`s.

The namespace flattens the numpy, nn, linalg, math and core ops as Keras 3 does; image
ops stay under `lamina.ops.image`.
"""

# Star imports name the leaf modules (whose `__all__` is a literal list) so that mypy sees
# every op here; it follows `__all__ += module.__all__` only one package level deep.
from lamina.ops import core as core
from lamina.ops import image as image
from lamina.ops import linalg as linalg
from lamina.ops import math as math
from lamina.ops import nn as nn
from lamina.ops import numpy as numpy
from lamina.ops.core.control_flow.branching import *
from lamina.ops.core.control_flow.gradients import *
from lamina.ops.core.control_flow.loops import *
from lamina.ops.core.control_flow.vectorizing import *
from lamina.ops.core.conversion import *
from lamina.ops.core.structural import *
from lamina.ops.einops import rearrange as rearrange
from lamina.ops.linalg.decompositions import *
from lamina.ops.linalg.solvers import *
from lamina.ops.math.fft import *
from lamina.ops.math.segment import *
from lamina.ops.math.special import *
from lamina.ops.nn.activations.axis import *
from lamina.ops.nn.activations.elementwise import *
from lamina.ops.nn.activations.encoding import *
from lamina.ops.nn.activations.losses import *
from lamina.ops.nn.activations.normalization import *
from lamina.ops.nn.conv.attention import *
from lamina.ops.nn.conv.convolution import *
from lamina.ops.nn.conv.ctc import *
from lamina.ops.nn.conv.patches import *
from lamina.ops.nn.conv.pooling import *
from lamina.ops.numpy.creation import *
from lamina.ops.numpy.elementwise.arithmetic import *
from lamina.ops.numpy.elementwise.bitwise import *
from lamina.ops.numpy.elementwise.comparison import *
from lamina.ops.numpy.elementwise.complex_parts import *
from lamina.ops.numpy.elementwise.float_math import *
from lamina.ops.numpy.elementwise.rounding import *
from lamina.ops.numpy.linear.einsum import *
from lamina.ops.numpy.linear.polynomial import *
from lamina.ops.numpy.linear.products import *
from lamina.ops.numpy.reduction.basic import *
from lamina.ops.numpy.reduction.cumulative import *
from lamina.ops.numpy.reduction.nan import *
from lamina.ops.numpy.reduction.sorting import *
from lamina.ops.numpy.reduction.stats import *
from lamina.ops.numpy.shape.indexing import *
from lamina.ops.numpy.shape.joining import *
from lamina.ops.numpy.shape.reshaping import *
from lamina.ops.numpy.shape.tiling import *
from lamina.ops.pairwise import cdist as cdist
