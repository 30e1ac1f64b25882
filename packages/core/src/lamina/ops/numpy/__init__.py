"""NumPy-like ops (``lamina.ops.numpy``), one module per family."""

import lamina.ops.numpy.creation as _creation
import lamina.ops.numpy.elementwise as _elementwise
import lamina.ops.numpy.linear as _linear
import lamina.ops.numpy.reduction as _reduction
import lamina.ops.numpy.shape as _shape
from lamina.ops.numpy.creation import *
from lamina.ops.numpy.elementwise import *
from lamina.ops.numpy.linear import *
from lamina.ops.numpy.reduction import *
from lamina.ops.numpy.shape import *

# Only the ops are public: the family modules must not leak into `lamina.ops` (`shape` is
# both a family module here and the `lamina.ops.shape` function). Spelled as `+=` of each
# module's `__all__` so that mypy follows the re-exports.
__all__: list[str] = []
__all__ += _creation.__all__
__all__ += _elementwise.__all__
__all__ += _linear.__all__
__all__ += _reduction.__all__
__all__ += _shape.__all__

# Keras lists these two under numpy as well; they live with control flow and linear algebra.
from lamina.ops.core.control_flow.vectorizing import vectorize  # noqa: E402
from lamina.ops.linalg.decompositions import slogdet  # noqa: E402

__all__ += ["slogdet", "vectorize"]

# The leaf modules once more, for mypy: it follows `__all__ += module.__all__` only one
# level deep, so names two packages down would otherwise be invisible to it.
from lamina.ops.numpy.creation import *  # noqa: E402
from lamina.ops.numpy.elementwise.arithmetic import *  # noqa: E402
from lamina.ops.numpy.elementwise.bitwise import *  # noqa: E402
from lamina.ops.numpy.elementwise.comparison import *  # noqa: E402
from lamina.ops.numpy.elementwise.complex_parts import *  # noqa: E402
from lamina.ops.numpy.elementwise.float_math import *  # noqa: E402
from lamina.ops.numpy.elementwise.rounding import *  # noqa: E402
from lamina.ops.numpy.linear.einsum import *  # noqa: E402
from lamina.ops.numpy.linear.polynomial import *  # noqa: E402
from lamina.ops.numpy.linear.products import *  # noqa: E402
from lamina.ops.numpy.reduction.basic import *  # noqa: E402
from lamina.ops.numpy.reduction.cumulative import *  # noqa: E402
from lamina.ops.numpy.reduction.nan import *  # noqa: E402
from lamina.ops.numpy.reduction.sorting import *  # noqa: E402
from lamina.ops.numpy.reduction.stats import *  # noqa: E402
from lamina.ops.numpy.shape.indexing import *  # noqa: E402
from lamina.ops.numpy.shape.joining import *  # noqa: E402
from lamina.ops.numpy.shape.reshaping import *  # noqa: E402
from lamina.ops.numpy.shape.tiling import *  # noqa: E402
