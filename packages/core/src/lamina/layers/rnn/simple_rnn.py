"""`SimpleRNNCell` and `SimpleRNN`: ``h = activation(x @ kernel + h @ recurrent_kernel + b)``."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.rnn._cell import CellLayer, RecurrentCell, cell_kwargs


class SimpleRNNCell(RecurrentCell):
    """One step of a fully connected RNN whose output is its next state.

    Args:
        units: the size of the output and of the state.
        activation: default tanh.
        use_bias: whether to add a bias.
        kernel_initializer: initializer of the ``(features, units)`` input kernel.
        recurrent_initializer: initializer of the ``(units, units)`` recurrent kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: penalty on the kernel.
        recurrent_regularizer: penalty on the recurrent kernel.
        bias_regularizer: penalty on the bias.
        kernel_constraint: projection of the kernel after each update.
        recurrent_constraint: projection of the recurrent kernel after each update.
        bias_constraint: projection of the bias after each update.
        dropout: fraction of the input features dropped (one mask per sequence).
        recurrent_dropout: fraction of the state units dropped in the recurrence.
        seed: seed of the dropout masks.
        **kwargs: base `Layer` arguments.

    Example:
        >>> rnn = lamina.layers.RNN(lamina.layers.SimpleRNNCell(4))
    """

    _has_recurrent_activation = False

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            units,
            activation=activation,
            recurrent_activation=None,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **kwargs,
        )

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple[Any, Any]:
        nested = isinstance(states, (list, tuple))
        previous = states[0] if nested else states
        inputs, previous = self._dropped(inputs, previous, training)
        h = ops.matmul(inputs, self.kernel.value)
        if self.bias is not None:
            h = h + self.bias.value
        h = h + ops.matmul(previous, self.recurrent_kernel.value)
        if self.activation is not None:
            h = self.activation(h)
        return h, ([h] if nested else h)


class SimpleRNN(CellLayer):
    """A fully connected RNN: the output of each step is fed back as the next state.

    Args:
        units: the size of the output and of the state.
        activation: default tanh.
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
        kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed: as for
            `SimpleRNNCell`.
        activity_regularizer: penalty on the layer's output.
        return_sequences, return_state, go_backwards, stateful, unroll: as for `RNN`.
        **kwargs: base `Layer` arguments and `zero_output_for_mask`.

    Example:
        >>> y = lamina.layers.SimpleRNN(4)(np.ones((2, 5, 3), "float32"))  # (2, 4)
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        cell = SimpleRNNCell(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **cell_kwargs(kwargs, "simple_rnn_cell"),
        )
        super().__init__(
            cell,
            activity_regularizer=activity_regularizer,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            **kwargs,
        )
