"""`Wrapper`: the public base of layers that wrap another layer (`Bidirectional`,
`TimeDistributed`, and users' own)."""

from __future__ import annotations

from typing import Any

from lamina.layers.layer import Layer


class Wrapper(Layer):
    """A layer that holds one inner layer and builds it from its own input shape.

    Subclasses implement `call`; the config stores the inner layer's serialized config
    under ``"layer"``.

    Args:
        layer: the layer to wrap.
        **kwargs: base `Layer` arguments.

    Example:
        >>> class Twice(lamina.layers.Wrapper):
        ...     def call(self, x):
        ...         return self.layer(self.layer(x))
    """

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"{type(self).__name__}: argument `layer` must be a lamina Layer. "
                f"Received: layer={layer!r} (of type {type(layer).__name__})"
            )
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            with self._name_scope():
                self.layer._build(input_shape)
        self.built = True

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config["layer"] = serialize_lamina_object(self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Wrapper:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        config["layer"] = deserialize_lamina_object(config["layer"])
        return cls(**config)
