"""`RNN`: run a cell over the time axis of a sequence, with masks, states and statefulness.

The cell holds the weights and computes one step; this layer owns everything about time:
the loop (a backend's fused kernel where a subclass offers one, otherwise `ops.scan` over
the cell), masks, `go_backwards`, initial and carried-over states, and per-sequence
dropout masks.
"""

from __future__ import annotations

from typing import Any

from lamina import ops, tree
from lamina.backend.config import AUTOCAST_DTYPE
from lamina.layers.input_spec import InputSpec
from lamina.layers.layer import Layer
from lamina.layers.rnn import _loop
from lamina.layers.rnn.dropout_cell import DropoutRNNCell
from lamina.ops import dtypes
from lamina.ops.dispatch import to_tensor


def state_shapes(state_size: Any) -> Any:
    """`state_size` (an int, a shape, or nested lists of them) as nested lists of shapes.

    The top level is always a list (one entry per state), as Keras 3 passes states.
    """

    def leaf(size: Any) -> Any:
        if isinstance(size, int):
            return (int(size),)
        if isinstance(size, (list, tuple)):
            return [leaf(s) for s in size]
        raise ValueError(
            "A cell's `state_size` must be an int or a (nested) list of ints. "
            f"Received: state_size={size!r}"
        )

    shapes = leaf(state_size)
    return shapes if isinstance(shapes, list) else [shapes]


def _is_shape(value: Any) -> bool:
    return isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value)


def _map_shapes(fn: Any, shapes: Any) -> Any:
    if _is_shape(shapes):
        return fn(shapes)
    return [_map_shapes(fn, s) for s in shapes]


def shape_leaves(shapes: Any) -> list[tuple[int, ...]]:
    """The shapes of nested lists of shapes, in order."""
    if _is_shape(shapes):
        return [shapes]
    return [leaf for s in shapes for leaf in shape_leaves(s)]


def _cast(x: Any, dtype: str) -> Any:
    """`x` as a tensor of `dtype`, with no cast op where the dtype already matches (a call
    per tensor per batch adds up)."""
    x = to_tensor(x)
    return x if dtypes.dtype_of(x) == dtype else ops.cast(x, dtype)


def has_member(obj: Any, name: str) -> bool:
    """Whether a user's cell defines `name` (on its class or as its own attribute).

    Cells are duck-typed as in Keras; this looks only where a definition can be, which
    avoids `dir()` (slow on a torch Module, and called at each step).
    """
    return hasattr(type(obj), name) or name in vars(obj)


def as_state_list(states: Any) -> list[Any]:
    """States as a list, the way cells receive them (a single tensor becomes ``[t]``)."""
    if isinstance(states, (list, tuple)):
        return list(states)
    return [states]


class RNN(Layer):
    """Run a recurrent cell over the steps of ``(batch, steps, features)`` inputs.

    Args:
        cell: a layer with ``call(inputs, states, training=None) -> (output, new_states)``
            and a `state_size` (an int or a nested list of ints); optionally
            `output_size` and ``get_initial_state(batch_size)``. A list of cells is
            stacked (`StackedRNNCells`).
        return_sequences: return the output of every step, not only the last.
        return_state: also return the final states, after the output.
        go_backwards: read the sequence from its last step to its first (outputs come back
            in that order).
        stateful: the final states of a batch are the initial states of the next one
            (same sample index); needs a fixed batch size. `reset_state()` zeroes them.
        unroll: a Python loop over the steps instead of a symbolic loop (needs a known
            number of steps; faster for short sequences, more memory).
        zero_output_for_mask: masked steps output zeros instead of repeating the previous
            output.
        **kwargs: base `Layer` arguments.

    Call arguments:
        sequences: ``(batch, steps, ...)``.
        initial_state: the states to start from (a tensor or a list, like `state_size`).
        mask: ``(batch, steps)`` bools; False steps are skipped (states kept).
        training: passed to the cell (dropout).

    Example:
        >>> layer = lamina.layers.RNN(lamina.layers.LSTMCell(8), return_sequences=True)
        >>> y = layer(np.ones((2, 5, 3), "float32"))  # (2, 5, 8)
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        if isinstance(cell, (list, tuple)):
            from lamina.layers.rnn.stacked_rnn_cells import StackedRNNCells

            cell = StackedRNNCells(cell)
        if not isinstance(cell, Layer) or not has_member(cell, "state_size"):
            raise ValueError(
                "RNN: argument `cell` must be a layer with a `state_size` attribute and a "
                "`call(inputs, states)` method (or a list of such cells). "
                f"Received: cell={cell!r}"
            )
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=3)
        self.states: Any = None
        self._state_variables: list[Any] = []

    # --- sizes and shapes ----------------------------------------------------------------
    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    def _output_shape(self) -> tuple[int, ...]:
        """One step's output shape (without the batch dim)."""
        size = self.cell.output_size if has_member(self.cell, "output_size") else None
        if size is None:
            return shape_leaves(state_shapes(self.cell.state_size))[0]
        return (int(size),) if isinstance(size, int) else tuple(size)

    def _step_output_shape(self, sequences_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """A step's output shape with its batch dim; ConvLSTM layers override it."""
        return (sequences_shape[0], *self._output_shape())

    def _state_shapes(self, sequences_shape: tuple[Any, ...]) -> Any:
        batch = sequences_shape[0]
        return _map_shapes(lambda s: (batch, *s), state_shapes(self.cell.state_size))

    def compute_output_shape(self, sequences_shape: Any) -> Any:
        shape = tuple(sequences_shape)
        step = self._step_output_shape(shape)
        output = (step[0], shape[1], *step[1:]) if self.return_sequences else step
        if not self.return_state:
            return output
        return (output, *self._state_shapes(shape))

    def compute_mask(self, inputs: Any, previous_mask: Any) -> Any:
        if isinstance(previous_mask, (list, tuple)):
            previous_mask = previous_mask[0]
        output_mask = previous_mask if self.return_sequences else None
        if self.return_state:
            return (output_mask, *self._state_masks())
        return output_mask

    def _state_masks(self) -> list[Any]:
        """None for every state, nested like the states the layer returns."""
        return [_map_shapes(lambda s: None, shape) for shape in self._state_shapes((None,))]

    # --- build and states ----------------------------------------------------------------
    def build(self, sequences_shape: Any = None, initial_state_shape: Any = None) -> None:
        shape = tuple(sequences_shape)
        self._check_unroll(shape)
        if not self.cell.built:
            with self._name_scope():
                self.cell._build((shape[0], *shape[2:]))
        if self.stateful:
            if shape[0] is None:
                raise ValueError(
                    f"{type(self).__name__}: a stateful RNN needs a fixed batch size, to "
                    "keep one state per sample. Pass `batch_size=` (or `batch_shape=`) to "
                    f"the `Input`. Received: inputs of shape {shape}"
                )
            self._create_state_variables(shape)
        self.built = True

    def _create_state_variables(self, shape: tuple[Any, ...]) -> None:
        initial = self.get_initial_state(int(shape[0]))
        flat = []
        for i, value in enumerate(tree.flatten(initial)):
            flat.append(
                self.add_weight(
                    shape=tuple(value.shape),
                    initializer="zeros",
                    dtype=self.variable_dtype,
                    trainable=False,
                    name=f"rnn_state_{i}",
                )
            )
        self._state_variables = flat
        self.states = tree.pack_sequence_as(initial, flat)

    @property
    def weights(self) -> list[Any]:
        """The cell's weights first (Keras 3's order), then any stateful states."""
        states = {id(v) for v in self._state_variables}
        every = super().weights
        return [v for v in every if id(v) not in states] + [
            v for v in every if id(v) in states
        ]

    @property
    def own_variables(self) -> list[Any]:
        """The layer's saved variables: stateful states are not saved (as in Keras 3)."""
        states = {id(v) for v in self._state_variables}
        return [v for v in super().own_variables if id(v) not in states]

    def get_initial_state(self, batch_size: Any) -> list[Any]:
        """The states a sequence starts from (zeros unless the cell says otherwise)."""
        if has_member(self.cell, "get_initial_state"):
            return as_state_list(self.cell.get_initial_state(batch_size=batch_size))
        dtype = self.cell.compute_dtype
        return _map_shapes(
            lambda s: ops.zeros((batch_size, *s), dtype=dtype),
            state_shapes(self.cell.state_size),
        )

    def reset_state(self, states: Any = None) -> None:
        """Zero the carried-over states of a stateful layer, or set them to `states`.

        Raises:
            ValueError: `states` has the wrong number of arrays or a wrong shape.
        """
        if not self._state_variables:
            return
        if states is None:
            for variable in self._state_variables:
                variable.assign(ops.zeros(variable.shape, dtype=variable.dtype))
            return
        values = tree.flatten(states)
        if len(values) != len(self._state_variables):
            raise ValueError(
                f"{type(self).__name__}.reset_state: argument `states` must hold "
                f"{len(self._state_variables)} arrays. Received: {len(values)}"
            )
        for variable, value in zip(self._state_variables, values):
            if tuple(value.shape) != tuple(variable.shape):
                raise ValueError(
                    f"{type(self).__name__}.reset_state: a state must have shape "
                    f"{tuple(variable.shape)}. Received: shape {tuple(value.shape)}"
                )
            variable.assign(value)

    reset_states = reset_state

    # --- call ----------------------------------------------------------------------------
    def call(
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: bool | None = False,
    ) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        if mask is not None and len(mask.shape) > 2:
            # A step is skipped only when every entry of it is masked.
            mask = ops.any(ops.cast(mask, "bool"), axis=tuple(range(2, len(mask.shape))))
        self._check_unroll(tuple(sequences.shape))
        if self.stateful:
            self._check_stateful_batch(sequences)
        if initial_state is None:
            if self.stateful:
                # A copy: the variables are assigned after the loop, before any backward pass.
                initial_state = tree.map_structure(lambda v: ops.copy(v.value), self.states)
            else:
                initial_state = self.get_initial_state(ops.shape(sequences)[0])
        initial_state = tree.map_structure(
            lambda s: _cast(s, self.cell.compute_dtype), as_state_list(initial_state)
        )
        cells = self._dropout_cells()
        if training:
            self._prepare_dropout(self.cell, sequences[:, 0, ...], initial_state)
        # The loop runs in the cell's precision: a float32 cell inside a mixed-precision
        # layer reads its variables as float32, not in the layer's autocast dtype.
        cell_policy = self.cell.dtype_policy
        autocast = cell_policy.compute_dtype != cell_policy.variable_dtype and self.cell.autocast
        token = AUTOCAST_DTYPE.set(cell_policy.compute_dtype if autocast else None)
        if dtypes.dtype_of(sequences) in dtypes.FLOATS:
            sequences = _cast(sequences, cell_policy.compute_dtype)
        try:
            result = self._fused_loop(sequences, initial_state, mask, training)
            if result is None:
                result = self._generic_loop(sequences, initial_state, mask, training)
        finally:
            AUTOCAST_DTYPE.reset(token)
            for cell in cells:
                cell.reset_dropout_masks()
        last_output, outputs, states = result
        if self.stateful:
            for variable, value in zip(self._state_variables, tree.flatten(states)):
                variable.assign(ops.cast(value, variable.dtype))
        output = outputs if self.return_sequences else last_output
        output = _cast(output, self.compute_dtype)
        if self.return_state:
            states = tree.map_structure(lambda s: _cast(s, self.compute_dtype), states)
            return (output, *states)
        return output

    def _check_unroll(self, shape: tuple[Any, ...]) -> None:
        if self.unroll and shape[1] is None:
            raise ValueError(
                f"{type(self).__name__}: `unroll=True` needs a known number of steps. "
                f"Received: inputs of shape {shape}"
            )

    def _check_stateful_batch(self, sequences: Any) -> None:
        batch = sequences.shape[0]
        expected = self._state_variables[0].shape[0] if self._state_variables else None
        if batch is not None and expected is not None and int(batch) != int(expected):
            raise ValueError(
                f"{type(self).__name__}: a stateful RNN keeps states for batches of "
                f"{expected} samples. Received: a batch of {batch} samples"
            )

    def _dropout_cells(self) -> list[DropoutRNNCell]:
        cells = [self.cell, *self.cell._flatten_layers(include_self=False)]
        return [c for c in cells if isinstance(c, DropoutRNNCell)]

    def _prepare_dropout(self, cell: Any, step_input: Any, states: Any) -> None:
        """Draw each cell's dropout masks before the loop (stacked cells: per cell,
        fed with the output of the cell below)."""
        from lamina.layers.rnn.stacked_rnn_cells import StackedRNNCells

        if isinstance(cell, StackedRNNCells):
            for inner, inner_states in zip(cell.cells, states):
                self._prepare_dropout(inner, step_input, as_state_list(inner_states))
                step_input, _ = inner(step_input, as_state_list(inner_states), training=False)
            return
        if isinstance(cell, DropoutRNNCell):
            cell.prepare_dropout_masks(step_input, tree.flatten(states)[0])

    def _fused_loop(
        self, sequences: Any, initial_state: list[Any], mask: Any, training: Any
    ) -> tuple[Any, Any, Any] | None:
        """A backend's whole-sequence kernel, where a subclass has one; None otherwise."""
        return None

    def _generic_loop(
        self, sequences: Any, initial_state: list[Any], mask: Any, training: Any
    ) -> tuple[Any, Any, Any]:
        cell = self.cell
        structure = initial_state

        def step(x_t: Any, states: Any) -> tuple[Any, Any]:
            output, new_states = cell(x_t, states, training=training)
            new_states = as_state_list(new_states)
            return output, tree.pack_sequence_as(structure, tree.flatten(new_states))

        initial_output = None
        if mask is not None:
            initial_output = self._initial_output(sequences, initial_state)
        return _loop.run(
            step,
            sequences,
            initial_state,
            mask,
            go_backwards=self.go_backwards,
            unroll=self.unroll,
            zero_output_for_mask=self.zero_output_for_mask,
            initial_output=initial_output,
        )

    def _initial_output(self, sequences: Any, states: Any) -> Any:
        """Zeros shaped like one step's output: the output a leading masked step repeats."""
        if not has_member(self.cell, "output_size") or self.cell.output_size is None:
            return ops.zeros_like(tree.flatten(states)[0])
        shape = self._output_shape()
        return ops.zeros((ops.shape(sequences)[0], *shape), dtype=self.cell.compute_dtype)

    # --- config --------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config.update(
            {
                "return_sequences": self.return_sequences,
                "return_state": self.return_state,
                "go_backwards": self.go_backwards,
                "stateful": self.stateful,
                "unroll": self.unroll,
                "zero_output_for_mask": self.zero_output_for_mask,
            }
        )
        if type(self) is RNN:
            config["cell"] = serialize_lamina_object(self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> RNN:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        config["cell"] = deserialize_lamina_object(config["cell"])
        return cls(**config)
