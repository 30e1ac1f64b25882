"""Mixed precision (``lamina.mixed_precision``): the Keras names for dtype policies."""

from typing import TYPE_CHECKING, Any

from lamina.dtype_policies.policy import DTypePolicy as DTypePolicy
from lamina.dtype_policies.policy import dtype_policy as dtype_policy
from lamina.dtype_policies.policy import set_dtype_policy as set_dtype_policy

if TYPE_CHECKING:
    from lamina.optimizers import LossScaleOptimizer as LossScaleOptimizer

Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy


def __getattr__(name: str) -> Any:
    # The optimizers import layers' machinery; resolve on first use to keep imports acyclic.
    if name == "LossScaleOptimizer":
        from lamina.optimizers import LossScaleOptimizer

        return LossScaleOptimizer
    raise AttributeError(f"module 'lamina.mixed_precision' has no attribute {name!r}")


__all__ = [
    "DTypePolicy",
    "LossScaleOptimizer",
    "Policy",
    "dtype_policy",
    "global_policy",
    "set_dtype_policy",
    "set_global_policy",
]
