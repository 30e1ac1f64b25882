"""The backend seam: the `Backend` protocol, capabilities and the active-backend registry."""

from typing import Any as _Any

from lamina.backend.capabilities import Capability as Capability
from lamina.backend.protocol import BACKEND_API as BACKEND_API
from lamina.backend.protocol import Backend as Backend
from lamina.backend.registry import BackendNotFoundError as BackendNotFoundError
from lamina.backend.registry import current as current
from lamina.backend.registry import installed_backends as installed_backends
from lamina.backend.registry import set_backend as set_backend
from lamina.backend.registry import supports as supports


def backend() -> str:
    """The name of the backend in use (Keras' ``keras.backend.backend()``)."""
    from lamina.backend.registry import selected_backend_name

    return selected_backend_name() or "none"


# Keras 3's `keras.backend` names that live elsewhere in Lamina; resolved lazily because
# lamina.ops imports this package.
_LAZY = {
    "clear_session": "lamina.utils.session",
    "epsilon": "lamina.config.settings",
    "floatx": "lamina.config.settings",
    "image_data_format": "lamina.config.settings",
    "set_epsilon": "lamina.backend.config",
    "set_floatx": "lamina.backend.config",
    "set_image_data_format": "lamina.backend.config",
    "get_uid": "lamina.backend.config",
    "is_float_dtype": "lamina.ops.dtypes",
    "is_int_dtype": "lamina.ops.dtypes",
    "result_type": "lamina.ops.dtypes",
    "standardize_dtype": "lamina.ops.dtypes",
    "is_keras_tensor": "lamina.ops.symbolic",
}


def __getattr__(name: str) -> _Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lamina.backend' has no attribute {name!r}")
    import importlib

    attr = "is_symbolic" if name == "is_keras_tensor" else name
    return getattr(importlib.import_module(module), attr)


__all__ = [
    "backend",
    "clear_session",
    "epsilon",
    "floatx",
    "get_uid",
    "image_data_format",
    "is_float_dtype",
    "is_int_dtype",
    "is_keras_tensor",
    "result_type",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
    "standardize_dtype",
    "BACKEND_API",
    "Backend",
    "BackendNotFoundError",
    "Capability",
    "current",
    "installed_backends",
    "set_backend",
    "supports",
]
