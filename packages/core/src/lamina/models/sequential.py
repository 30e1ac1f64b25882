"""`Sequential`: a stack of layers, each feeding the next."""

from __future__ import annotations

from typing import Any

from lamina import tree
from lamina.layers.input_layer import InputLayer
from lamina.layers.layer import Layer
from lamina.models.model import Model
from lamina.ops.symbolic import SymbolicTensor


class Sequential(Model):
    """Layers applied one after the other.

    Start with `lamina.Input(shape)` (or give the first layer `input_shape=`) to build the
    model at once; otherwise it builds on its first call or `build(input_shape)`.

    Example:
        >>> Dense = lamina.layers.Dense
        >>> model = Sequential([lamina.Input((4,)), Dense(8, activation="relu"), Dense(1)])
    """

    def __init__(
        self, layers: list[Any] | None = None, trainable: bool = True, name: str | None = None
    ) -> None:
        super().__init__(trainable=trainable, name=name)
        self._sequence: list[Layer] = []
        object.__setattr__(self, "_names", set())  # of `_sequence`: a linear uniqueness check
        object.__setattr__(self, "_functional", None)
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._rebuild()

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Append `layer` (a `Layer`, or an `Input` tensor to fix the input shape).

        Raises:
            ValueError: `layer` is not a layer, or an input is added after other layers.
        """
        if isinstance(layer, SymbolicTensor) and layer.history is not None:
            layer = layer.history.operation
        if not isinstance(layer, Layer):
            raise ValueError(
                "Only layers can be added to a Sequential model. "
                f"Received: {layer!r} (of type {type(layer).__name__})"
            )
        if isinstance(layer, InputLayer) and self._sequence:
            raise ValueError(
                "An `Input` can only be the first entry of a Sequential model. "
                f"Model {self.name!r} already has layers {[x.name for x in self._sequence]}."
            )
        if layer.name in self._names:
            raise ValueError(
                f"All layers in a Sequential model need unique names. {layer.name!r} is "
                f"already in model {self.name!r}."
            )
        if not self._sequence and layer._input_shape_arg is not None:
            self._append(InputLayer(batch_shape=layer._input_shape_arg))
        self._append(layer)
        if rebuild:
            self._rebuild()

    def _append(self, layer: Layer) -> None:
        self._sequence.append(layer)
        self._names.add(layer.name)

    def pop(self, rebuild: bool = True) -> Layer:
        """Remove and return the last layer.

        Raises:
            ValueError: the model has no layers.
        """
        if not self.layers:
            raise ValueError(f"Sequential model {self.name!r} has no layers to pop.")
        layer = self._sequence.pop()
        self._names.discard(layer.name)
        object.__setattr__(self, "_functional", None)
        self.built = False
        if rebuild:
            self._rebuild()
        return layer

    def _rebuild(self) -> None:
        """With a known input, record the stack as a functional graph (shapes, summary)."""
        if not self._sequence or not isinstance(self._sequence[0], InputLayer):
            return
        if len(self._sequence) == 1:
            return
        from lamina.models.functional import Functional

        inputs = self._sequence[0].output_tensor
        x = inputs
        for layer in self._sequence[1:]:
            x = layer(x)
        object.__setattr__(self, "_functional", Functional(inputs, x, name=f"{self.name}_graph"))
        self.built = True
        self._backend_track_variables(self.variables)

    @property
    def layers(self) -> list[Layer]:
        """The layers in order, without the `InputLayer`."""
        return [layer for layer in self._sequence if not isinstance(layer, InputLayer)]

    @property
    def input_shape(self) -> Any:
        if self._sequence and isinstance(self._sequence[0], InputLayer):
            return self._sequence[0].batch_shape
        raise AttributeError(f"Sequential model {self.name!r} has no defined input shape yet.")

    @property
    def inputs(self) -> list[SymbolicTensor]:
        return self._functional.inputs if self._functional is not None else []

    @property
    def outputs(self) -> list[SymbolicTensor]:
        return self._functional.outputs if self._functional is not None else []

    def build(self, input_shape: Any = None) -> None:
        """Build from `input_shape` (the batch shape) by adding an `InputLayer` first."""
        if self._functional is not None:
            self.built = True
            return
        if input_shape is None:
            raise ValueError(
                f"Sequential model {self.name!r} needs an input shape to build. Pass "
                "`lamina.Input(shape)` first, or call `build(input_shape)` or the model."
            )
        if tree.is_nested(input_shape) and not _is_shape(input_shape):
            raise ValueError(
                f"A Sequential model takes a single input. Received: input_shape={input_shape!r}"
            )
        if self._sequence and isinstance(self._sequence[0], InputLayer):
            self._sequence.pop(0)
        # The batch size of the first call is not a property of the model.
        batch_shape = (None, *tuple(input_shape)[1:])
        self._sequence.insert(0, InputLayer(batch_shape=batch_shape))
        self._rebuild()
        self.built = True

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        if self._functional is not None:
            # The graph's `call`, not its `__call__`: this model's own `__call__` has already
            # converted the inputs, set the call context and the name scope.
            return self._functional.call(inputs, training=training, mask=mask)
        x = inputs
        for layer in self.layers:
            kwargs: dict[str, Any] = {}
            if layer._has_mask and mask is not None:
                kwargs["mask"] = mask
            x = layer(x, **kwargs)
            mask = layer.compute_mask(x, mask) if layer.supports_masking else None
        return x

    def compute_output_spec(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if self._functional is not None:
            return self._functional.compute_output_spec(inputs)
        x = inputs
        for layer in self.layers:
            x = layer.compute_output_spec(x) if layer.built else layer(x)
        return x

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = input_shape
        for layer in self.layers:
            shape = layer.compute_output_shape(shape)
        return shape

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        layers = []
        for layer in self._sequence:
            layers.append(serialize_lamina_object(layer))
        return {"name": self.name, "trainable": self.trainable, "layers": layers}

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: Any = None) -> Sequential:
        from lamina.saving.serialization import deserialize_lamina_object

        if not isinstance(config.get("layers"), list):
            raise ValueError(
                "A Sequential config needs 'layers', a list of layer configs. Received: "
                f"layers={config.get('layers')!r:.200}"
            )
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for data in config["layers"]:
            # One graph build at the end: rebuilding per layer made loading quadratic.
            model.add(deserialize_lamina_object(data, custom_objects=custom_objects), False)
        model._rebuild()
        return model


def _is_shape(x: Any) -> bool:
    return isinstance(x, (list, tuple)) and all(d is None or isinstance(d, int) for d in x)
