"""The layer mixin: Numpy layers need nothing beyond the core `Layer`."""

from lamina.backend.kit import LayerMixin


class NumpyLayerMixin(LayerMixin):
    """No module system to join: the core hooks' defaults are enough."""
