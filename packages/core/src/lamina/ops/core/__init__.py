"""Core ops: conversion, dtypes, control flow and structural updates."""

import lamina.ops.core.control_flow as _control_flow
import lamina.ops.core.conversion as _conversion
import lamina.ops.core.structural as _structural
from lamina.ops.core.control_flow import *
from lamina.ops.core.conversion import *
from lamina.ops.core.structural import *

# Spelled as `+=` of each module's `__all__` so that mypy follows the re-exports.
__all__: list[str] = []
__all__ += _control_flow.__all__
__all__ += _conversion.__all__
__all__ += _structural.__all__

# The leaf modules once more, for mypy: it follows `__all__ += module.__all__` only one
# level deep, so names two packages down would otherwise be invisible to it.
from lamina.ops.core.control_flow.branching import *  # noqa: E402
from lamina.ops.core.control_flow.gradients import *  # noqa: E402
from lamina.ops.core.control_flow.loops import *  # noqa: E402
from lamina.ops.core.control_flow.vectorizing import *  # noqa: E402
from lamina.ops.core.conversion import *  # noqa: E402
from lamina.ops.core.structural import *  # noqa: E402
