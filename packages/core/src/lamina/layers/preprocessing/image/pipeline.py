"""`Pipeline`: preprocessing layers applied in turn, as one layer."""

from __future__ import annotations

from typing import Any

from lamina.layers.layer import Layer
from lamina.layers.preprocessing._tf_graph import TFGraphCallMixin


class Pipeline(TFGraphCallMixin, Layer):
    """Apply `layers` one after another, passing each the `training` flag; unlike a
    `Sequential` model it is a plain layer, so it also runs inside a data pipeline.

    Args:
        layers: the layers, applied in order.
        name: the layer's name.
        **kwargs: base `Layer` arguments.

    Example:
        >>> images = np.random.default_rng(0).random((2, 8, 8, 3)).astype("float32")
        >>> augment = lamina.layers.Pipeline(
        ...     [lamina.layers.RandomFlip(seed=0), lamina.layers.RandomRotation(0.1, seed=0)]
        ... )
        >>> tuple(augment(images).shape)
        (2, 8, 8, 3)
    """

    # In a `tf.data` pipeline on another backend, the whole pipeline is one host node, and
    # a stateful one since its layers may draw random numbers.
    _host_stateful = True

    def __init__(self, layers: Any, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        items = list(layers) if isinstance(layers, (list, tuple)) else None
        if items is None or not all(isinstance(layer, Layer) for layer in items):
            raise ValueError(
                f"Pipeline: argument `layers` must be a list of layers. Received: layers={layers!r}"
            )
        self._pipeline_layers = items
        self.built = True

    @property
    def layers(self) -> list[Any]:
        return list(self._pipeline_layers)

    def call(self, inputs: Any, training: bool = True) -> Any:
        for layer in self._pipeline_layers:
            inputs = layer(inputs, training=training)
        return inputs

    def compute_output_spec(self, inputs: Any, training: bool = True) -> Any:
        for layer in self._pipeline_layers:
            inputs = layer.compute_output_spec(inputs)
        return inputs

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        return {
            "layers": [serialize_lamina_object(layer) for layer in self._pipeline_layers],
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Pipeline:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        config["layers"] = [deserialize_lamina_object(item) for item in config["layers"]]
        return cls(**config)
