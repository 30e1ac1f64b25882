"""`Bidirectional`: run a recurrent layer forwards and a copy backwards, then merge."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.rnn.rnn import RNN
from lamina.layers.rnn.wrapper import Wrapper

_MERGE_MODES = ("sum", "mul", "concat", "ave", None)


def _strip(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


def _unbuilt(serialized: Any) -> Any:
    if isinstance(serialized, dict):
        serialized = {k: v for k, v in serialized.items() if k != "build_config"}
    return serialized


class Bidirectional(Wrapper):
    """Read a sequence in both directions with two recurrent layers and merge them.

    The forward layer is a fresh copy of `layer` (from its config); the backward layer is
    `backward_layer`, or another copy with `go_backwards` flipped. With
    `return_sequences`, the backward outputs are put back in time order before merging,
    and both directions output zeros at masked steps.

    Args:
        layer: a recurrent layer (`RNN`, `LSTM`, `GRU`...).
        merge_mode: how to combine the two outputs: ``"concat"`` (default), ``"sum"``,
            ``"mul"``, ``"ave"``, or None for a list ``[forward, backward]``.
        weights: initial weights (forward layer's first), set once built.
        backward_layer: the layer for the backward direction; it must agree with `layer`
            on `return_sequences` and `return_state` and go the other way.
        **kwargs: base `Layer` arguments.

    Call arguments:
        sequences, mask, training: as for the wrapped layer.
        initial_state: forward states then backward states, in one list.

    Example:
        >>> layer = lamina.layers.Bidirectional(lamina.layers.LSTM(4))
        >>> y = layer(np.ones((2, 5, 3), "float32"))  # (2, 8)
    """

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(layer, RNN):
            raise ValueError(
                "Bidirectional: argument `layer` must be a recurrent layer (an `RNN` "
                f"subclass such as `LSTM`). Received: layer={layer!r}"
            )
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                "Bidirectional: argument `merge_mode` must be one of "
                f"{list(_MERGE_MODES)}. Received: merge_mode={merge_mode!r}"
            )
        if backward_layer is not None and not isinstance(backward_layer, RNN):
            raise ValueError(
                "Bidirectional: argument `backward_layer` must be a recurrent layer. "
                f"Received: backward_layer={backward_layer!r}"
            )
        super().__init__(layer, **kwargs)
        config = layer.get_config()
        config["name"] = "forward_" + _strip(layer.name, "forward_")
        self.forward_layer = type(layer).from_config(config)
        if backward_layer is None:
            config = layer.get_config()
            config["name"] = "backward_" + _strip(layer.name, "backward_")
            config["go_backwards"] = not layer.go_backwards
            backward_layer = type(layer).from_config(config)
        else:
            for attribute in ("return_sequences", "return_state"):
                if getattr(backward_layer, attribute) != getattr(layer, attribute):
                    raise ValueError(
                        f"Bidirectional: `backward_layer.{attribute}` must equal "
                        f"`layer.{attribute}` ({getattr(layer, attribute)}). Received: "
                        f"{getattr(backward_layer, attribute)}"
                    )
            if backward_layer.go_backwards == layer.go_backwards:
                raise ValueError(
                    "Bidirectional: `backward_layer.go_backwards` must be the opposite of "
                    f"`layer.go_backwards`. Received: both {layer.go_backwards}"
                )
        self.backward_layer = backward_layer
        # Masked steps output zeros in both directions, so the merged sequence is zero there
        # (as in Keras 3) instead of mixing a repeated output with a fresh one.
        for inner in (self.forward_layer, self.backward_layer):
            inner.zero_output_for_mask = inner.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.stateful = layer.stateful
        self.supports_masking = True
        self._initial_weights = weights

    def build(self, sequences_shape: Any = None, initial_state_shape: Any = None) -> None:
        shape = tuple(sequences_shape)
        for inner in (self.forward_layer, self.backward_layer):
            if not inner.built:
                with self._name_scope():
                    inner._build(shape)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(list(self._initial_weights))
            self._initial_weights = None

    def _merge(self, forward: Any, backward: Any) -> Any:
        if self.merge_mode == "concat":
            return ops.concatenate([forward, backward], axis=-1)
        if self.merge_mode == "sum":
            return forward + backward
        if self.merge_mode == "ave":
            return (forward + backward) / 2
        if self.merge_mode == "mul":
            return forward * backward
        return [forward, backward]

    def compute_output_shape(self, sequences_shape: Any) -> Any:
        shape = self.forward_layer.compute_output_shape(sequences_shape)
        states: list[Any] = []
        if self.return_state:
            states = list(shape[1:]) * 2
            shape = shape[0]
        shape = tuple(shape)
        if self.merge_mode == "concat":
            output: Any = (*shape[:-1], None if shape[-1] is None else 2 * shape[-1])
        elif self.merge_mode is None:
            output = [shape, shape]
        else:
            output = shape
        if self.return_state:
            return (*(output if self.merge_mode is None else [output]), *states)
        return output

    def call(
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = None,
    ) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            states = list(initial_state)
            if len(states) % 2:
                raise ValueError(
                    "Bidirectional: argument `initial_state` must hold the forward states "
                    f"then the backward states (an even count). Received: {len(states)}"
                )
            half = len(states) // 2
            forward_state, backward_state = states[:half], states[half:]
        forward = self.forward_layer(
            sequences, initial_state=forward_state, mask=mask, training=training
        )
        backward = self.backward_layer(
            sequences, initial_state=backward_state, mask=mask, training=training
        )
        states = []
        if self.return_state:
            states = [*forward[1:], *backward[1:]]
            forward, backward = forward[0], backward[0]
        if self.return_sequences:
            backward = ops.flip(backward, axis=1)
        forward, backward, *states = (
            ops.cast(t, self.compute_dtype) for t in (forward, backward, *states)
        )
        output = self._merge(forward, backward)
        if self.return_state:
            head = output if self.merge_mode is None else [output]
            return (*head, *states)
        return output

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0]
        output_mask = previous_mask if self.return_sequences else None
        masks: list[Any] = (
            [output_mask, output_mask] if self.merge_mode is None else [output_mask]
        )
        if self.return_state:
            states = self.forward_layer._state_masks()
            return (*masks, *states, *states)
        return masks if self.merge_mode is None else output_mask

    @property
    def states(self) -> Any:
        """Forward then backward carried-over states (stateful layers), else None."""
        if self.forward_layer.states is None:
            return None
        return (*self.forward_layer.states, *self.backward_layer.states)

    def reset_state(self) -> None:
        """Zero both directions' carried-over states."""
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    reset_states = reset_state

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config.pop("weights", None)
        # Without build configs: the forward layer is always rebuilt from a fresh copy.
        config["layer"] = _unbuilt(serialize_lamina_object(self.forward_layer))
        config["merge_mode"] = self.merge_mode
        config["backward_layer"] = _unbuilt(serialize_lamina_object(self.backward_layer))
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Bidirectional:
        from lamina.saving.serialization import deserialize_lamina_object

        # Keras 3 files keep the inner layers' build configs; the wrapper builds them itself
        # (building `layer` here would give it variables no file holds).
        config = dict(config)
        config["layer"] = deserialize_lamina_object(_unbuilt(config["layer"]))
        if config.get("backward_layer") is not None:
            config["backward_layer"] = deserialize_lamina_object(
                _unbuilt(config["backward_layer"])
            )
        return cls(**config)
