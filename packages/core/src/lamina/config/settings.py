"""The public face of `lamina.backend.config.SETTINGS`."""

from __future__ import annotations

from typing import Any

from lamina.backend import registry
from lamina.backend.config import (
    SETTINGS,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)
from lamina.backend.registry import set_backend

__all__ = [
    "backend",
    "disable_flash_attention",
    "disable_interactive_logging",
    "disable_traceback_filtering",
    "dtype_policy",
    "enable_flash_attention",
    "enable_interactive_logging",
    "enable_traceback_filtering",
    "enable_unsafe_deserialization",
    "epsilon",
    "floatx",
    "image_data_format",
    "is_flash_attention_enabled",
    "is_interactive_logging_enabled",
    "is_traceback_filtering_enabled",
    "max_epochs",
    "max_steps_per_epoch",
    "set_backend",
    "set_dtype_policy",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "set_max_epochs",
    "set_max_steps_per_epoch",
]


def backend() -> str:
    """The name of the backend in use (``"jax"``, ``"torch"``...), or ``"none"``."""
    return registry.selected_backend_name() or "none"


def floatx() -> str:
    """The default float dtype, ``"float32"`` unless set."""
    return SETTINGS.floatx


def epsilon() -> float:
    """The fuzz factor added to denominators, ``1e-7`` unless set."""
    return SETTINGS.epsilon


def image_data_format() -> str:
    """``"channels_last"`` (default) or ``"channels_first"``."""
    return SETTINGS.image_data_format


def enable_interactive_logging() -> None:
    """Print progress bars and logs to stdout (the default)."""
    SETTINGS.interactive_logging = True


def disable_interactive_logging() -> None:
    """Send progress output to the `logging` module instead of stdout."""
    SETTINGS.interactive_logging = False


def is_interactive_logging_enabled() -> bool:
    return SETTINGS.interactive_logging


def enable_traceback_filtering() -> None:
    """Hide Lamina's internal frames in tracebacks raised from user code."""
    SETTINGS.traceback_filtering = True


def disable_traceback_filtering() -> None:
    """Show full tracebacks."""
    SETTINGS.traceback_filtering = False


def is_traceback_filtering_enabled() -> bool:
    return SETTINGS.traceback_filtering


def enable_flash_attention() -> None:
    """Let `dot_product_attention` use a fused flash kernel where the backend has one."""
    SETTINGS.flash_attention = True


def disable_flash_attention() -> None:
    """Never use fused flash-attention kernels."""
    SETTINGS.flash_attention = False


def is_flash_attention_enabled() -> bool | None:
    """True, False, or None when left to the backend's default."""
    return SETTINGS.flash_attention


def enable_unsafe_deserialization() -> None:
    """Allow loading `Lambda` layers' code from files (disables `safe_mode` globally)."""
    SETTINGS.unsafe_deserialization = True


def max_epochs() -> int | None:
    """A cap on the epochs of every `fit` (None: no cap), for quick debugging runs."""
    return SETTINGS.max_epochs


def set_max_epochs(max_epochs: int | None) -> None:
    SETTINGS.max_epochs = max_epochs


def max_steps_per_epoch() -> int | None:
    """A cap on the steps of every epoch (None: no cap)."""
    return SETTINGS.max_steps_per_epoch


def set_max_steps_per_epoch(max_steps_per_epoch: int | None) -> None:
    SETTINGS.max_steps_per_epoch = max_steps_per_epoch


def dtype_policy() -> Any:
    """The global dtype policy (``"float32"`` unless set; see `lamina.dtype_policies`)."""
    from lamina.dtype_policies import dtype_policy as current

    return current()


def set_dtype_policy(policy: Any) -> None:
    """Set the global dtype policy, e.g. ``"mixed_float16"``."""
    from lamina.dtype_policies import set_dtype_policy as set_policy

    set_policy(policy)

