"""The layer mixin: an array library has no module system for layers to join."""

from lamina.backend.kit import LayerMixin


class ArrayApiLayerMixin(LayerMixin):
    """The core hooks' defaults are enough."""
