"""`LayerMixin`: the hooks a backend's layer mixin may override.

`lamina.layers.Layer` derives from the active backend's `layer_mixin`, so a backend can make
every layer a member of its own module system (a ``torch.nn.Module``, a TF ``Trackable``).
The core calls only these hooks; the defaults do nothing.
"""

from __future__ import annotations

from typing import Any


class LayerMixin:
    """Default (no-op) backend hooks of a layer."""

    def _backend_init(self) -> None:
        """Run once at the start of ``Layer.__init__`` (e.g. ``torch.nn.Module.__init__``)."""

    def _backend_track_variables(self, variables: list[Any]) -> None:
        """Called when the layer's variables change, with all of them (nested included)."""
