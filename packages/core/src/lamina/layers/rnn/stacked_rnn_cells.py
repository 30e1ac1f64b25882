"""`StackedRNNCells`: several cells that act as one, each feeding the next at every step."""

from __future__ import annotations

from typing import Any

from lamina import tree
from lamina.layers.layer import Layer
from lamina.layers.rnn.rnn import as_state_list, has_member


class StackedRNNCells(Layer):
    """Stack cells so that one `RNN` runs a deep recurrent network step by step.

    The states are one entry per cell (each the cell's own list of states); the output
    is the last cell's output.

    Args:
        cells: the cells, bottom first.
        **kwargs: base `Layer` arguments.

    Example:
        >>> x = np.ones((2, 5, 3), "float32")  # (batch, steps, features)
        >>> cells = [lamina.layers.LSTMCell(8), lamina.layers.LSTMCell(4)]
        >>> y = lamina.layers.RNN(lamina.layers.StackedRNNCells(cells))(x)
        >>> tuple(y.shape)
        (2, 4)
    """

    def __init__(self, cells: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        cells = list(cells) if isinstance(cells, (list, tuple)) else [cells]
        for cell in cells:
            if not isinstance(cell, Layer) or not has_member(cell, "state_size"):
                raise ValueError(
                    "StackedRNNCells: every cell must be a layer with a `state_size` and a "
                    f"`call(inputs, states)` method. Received: cell={cell!r}"
                )
        if not cells:
            raise ValueError("StackedRNNCells: argument `cells` must not be empty. Received: []")
        self.cells = cells

    @property
    def state_size(self) -> list[Any]:
        # Each cell's entry is a list, like the states it receives (`as_state_list`).
        return [as_state_list(cell.state_size) for cell in self.cells]

    @property
    def output_size(self) -> Any:
        last = self.cells[-1]
        if has_member(last, "output_size") and last.output_size is not None:
            return last.output_size
        size = last.state_size
        return tree.flatten(size)[0] if isinstance(size, (list, tuple)) else size

    def get_initial_state(self, batch_size: Any = None) -> list[Any]:
        """One list of initial states per cell."""
        from lamina import ops
        from lamina.layers.rnn.rnn import state_shapes

        states = []
        for cell in self.cells:
            if has_member(cell, "get_initial_state"):
                states.append(as_state_list(cell.get_initial_state(batch_size=batch_size)))
            else:
                shapes = state_shapes(cell.state_size)
                states.append(
                    [ops.zeros((batch_size, *shape), dtype=cell.compute_dtype) for shape in shapes]
                )
        return states

    def build(self, input_shape: Any = None) -> None:
        shape = tuple(input_shape)
        for cell in self.cells:
            if not cell.built:
                with self._name_scope():
                    cell._build(shape)
            size = cell.output_size if has_member(cell, "output_size") else None
            if size is None:
                size = tree.flatten(cell.state_size)[0] if isinstance(
                    cell.state_size, (list, tuple)
                ) else cell.state_size
            shape = (shape[0], int(size))
        self.built = True

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple[Any, list[Any]]:
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            was_list = isinstance(cell_states, (list, tuple))
            inputs, updated = cell(inputs, as_state_list(cell_states), training=training)
            updated = as_state_list(updated)
            new_states.append(updated if was_list else updated[0])
        return inputs, new_states

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config["cells"] = [serialize_lamina_object(cell) for cell in self.cells]
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> StackedRNNCells:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        config["cells"] = [deserialize_lamina_object(c) for c in config["cells"]]
        return cls(**config)
