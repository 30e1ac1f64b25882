"""Neural-network ops (``lamina.ops.nn``), one module (or package) per family."""

import lamina.ops.nn.activations as _activations
import lamina.ops.nn.conv as _conv
from lamina.ops.nn.activations import *
from lamina.ops.nn.conv import *

# Spelled as `+=` of each module's `__all__` so that mypy follows the re-exports.
__all__: list[str] = []
__all__ += _activations.__all__
__all__ += _conv.__all__

# The leaf modules once more, for mypy: it follows `__all__ += module.__all__` only one
# level deep, so names two packages down would otherwise be invisible to it.
from lamina.ops.nn.activations.axis import *  # noqa: E402
from lamina.ops.nn.activations.elementwise import *  # noqa: E402
from lamina.ops.nn.activations.encoding import *  # noqa: E402
from lamina.ops.nn.activations.losses import *  # noqa: E402
from lamina.ops.nn.activations.normalization import *  # noqa: E402
from lamina.ops.nn.conv.attention import *  # noqa: E402
from lamina.ops.nn.conv.convolution import *  # noqa: E402
from lamina.ops.nn.conv.ctc import *  # noqa: E402
from lamina.ops.nn.conv.patches import *  # noqa: E402
from lamina.ops.nn.conv.pooling import *  # noqa: E402
