"""All process-wide state in one place: a `Settings` object and a few context variables.

Nothing here touches the file system or the environment at import time; the config file
and ``LAMINA_BACKEND`` are read only when a backend is first selected.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
from collections.abc import Iterator
from typing import Any

from lamina.backend.scoped import ScopedVar

_FLOATX = ("bfloat16", "float16", "float32", "float64")
_IMAGE_FORMATS = ("channels_last", "channels_first")


@dataclasses.dataclass
class Settings:
    """Process-wide defaults, reset by ``lamina.utils.clear_session()`` where it makes sense."""

    floatx: str = "float32"
    epsilon: float = 1e-7
    image_data_format: str = "channels_last"
    dtype_policy: Any = None
    max_epochs: int | None = None
    max_steps_per_epoch: int | None = None
    interactive_logging: bool = True
    traceback_filtering: bool = True
    flash_attention: bool | None = None
    unsafe_deserialization: bool = False
    global_seed: int | None = None
    global_seed_generator: Any = None
    name_counts: dict[str, int] = dataclasses.field(default_factory=dict)
    uid_counts: dict[str, int] = dataclasses.field(default_factory=dict)


SETTINGS = Settings()

# Scoped overrides, one value per thread (`ScopedVar`: torch.compile can trace reads of it).
NAME_SCOPE: ScopedVar[tuple[str, ...]] = ScopedVar(
    "lamina_name_scope", default=()
)


def lamina_home() -> pathlib.Path:
    """The folder of the user's config file: ``LAMINA_HOME`` or ``~/.lamina``."""
    home = os.environ.get("LAMINA_HOME")
    return pathlib.Path(home) if home else pathlib.Path.home() / ".lamina"


def read_config_file() -> dict[str, Any]:
    """Read ``lamina.json`` if it exists; a missing or unreadable file means no overrides."""
    path = lamina_home() / "lamina.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def apply_config_file(data: dict[str, Any]) -> None:
    """Take floatx, epsilon and image_data_format from a parsed config file."""
    if "floatx" in data:
        set_floatx(data["floatx"])
    if "epsilon" in data:
        set_epsilon(data["epsilon"])
    if "image_data_format" in data:
        set_image_data_format(data["image_data_format"])


def set_floatx(value: str) -> None:
    """Set the default float dtype (one of bfloat16, float16, float32, float64)."""
    value = str(value)
    if value not in _FLOATX:
        raise ValueError(f"Argument `value` must be one of {_FLOATX}. Received: value={value!r}")
    SETTINGS.floatx = value


def set_epsilon(value: float) -> None:
    """Set the fuzz factor used to avoid division by zero."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"Argument `value` must be a positive float. Received: value={value!r}")
    SETTINGS.epsilon = float(value)


def set_image_data_format(data_format: str) -> None:
    """Set the default layout of image tensors."""
    fmt = str(data_format).lower()
    if fmt not in _IMAGE_FORMATS:
        raise ValueError(
            f"Argument `data_format` must be one of {_IMAGE_FORMATS}. "
            f"Received: data_format={data_format!r}"
        )
    SETTINGS.image_data_format = fmt


def standardize_data_format(data_format: str | None) -> str:
    """Return `data_format`, or the global default when it is None, validated."""
    if data_format is None:
        return SETTINGS.image_data_format
    fmt = str(data_format).lower()
    if fmt not in _IMAGE_FORMATS:
        raise ValueError(
            f"Argument `data_format` must be one of {_IMAGE_FORMATS}. "
            f"Received: data_format={data_format!r}"
        )
    return fmt


def unique_name(prefix: str) -> str:
    """``prefix``, ``prefix_1``, ``prefix_2``... unique within this session."""
    count = SETTINGS.name_counts.get(prefix, 0)
    SETTINGS.name_counts[prefix] = count + 1
    return prefix if count == 0 else f"{prefix}_{count}"


def get_uid(prefix: str = "") -> int:
    """A counter per prefix, starting at 1, reset by ``clear_session``."""
    SETTINGS.uid_counts[prefix] = SETTINGS.uid_counts.get(prefix, 0) + 1
    return SETTINGS.uid_counts[prefix]


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[None]:
    """Prefix the paths of variables created inside with ``name/``."""
    token = NAME_SCOPE.set((*NAME_SCOPE.get(), name))
    try:
        yield
    finally:
        NAME_SCOPE.reset(token)


def reset_session_state() -> None:
    """Forget generated names and uids (what ``clear_session`` resets)."""
    SETTINGS.name_counts.clear()
    SETTINGS.uid_counts.clear()
    SETTINGS.global_seed = None
    SETTINGS.global_seed_generator = None


# Scopes whose state the variables consult. Values are the active scope objects.
STATELESS_SCOPE: ScopedVar[Any] = ScopedVar(
    "lamina_stateless_scope", default=None
)
SYMBOLIC_SCOPE: ScopedVar[Any] = ScopedVar(
    "lamina_symbolic_scope", default=None
)
# Inside a mixed-precision layer's call: the dtype float variables are read in.
AUTOCAST_DTYPE: ScopedVar[str | None] = ScopedVar(
    "lamina_autocast_dtype", default=None
)
