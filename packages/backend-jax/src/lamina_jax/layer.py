"""The layer mixin: Jax layers need nothing beyond the core `Layer`."""

from lamina.backend.kit import LayerMixin


class JaxLayerMixin(LayerMixin):
    """No module system to join: the core hooks' defaults are enough."""
