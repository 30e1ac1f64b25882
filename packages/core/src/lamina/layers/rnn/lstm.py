"""`LSTMCell` and `LSTM`: long short-term memory, gates in Keras 3's order i, f, c, o."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.rnn._cell import CellLayer, RecurrentCell, cell_kwargs, last_output
from lamina.ops.dispatch import backend


def _identity(x: Any) -> Any:
    return x


class LSTMCell(RecurrentCell):
    """One LSTM step; its states are ``[h, c]`` and its output is ``h``.

    The kernels hold the four gates side by side (input, forget, cell, output), each
    `units` wide, as Keras 3 stores them: ``kernel`` ``(features, 4 * units)``,
    ``recurrent_kernel`` ``(units, 4 * units)``, ``bias`` ``(4 * units,)``.

    Args:
        units: the size of the output and of each state.
        activation: of the cell candidate and the output (default tanh).
        recurrent_activation: of the gates (default sigmoid).
        use_bias: whether to add a bias.
        kernel_initializer, recurrent_initializer, bias_initializer: initializers.
        unit_forget_bias: start the forget gate's bias at 1 (and the others from
            `bias_initializer`), which helps long sequences train.
        kernel_regularizer, recurrent_regularizer, bias_regularizer: penalties.
        kernel_constraint, recurrent_constraint, bias_constraint: constraints.
        dropout: fraction of the input features dropped (one mask per sequence).
        recurrent_dropout: fraction of ``h`` dropped in the recurrence.
        seed: seed of the dropout masks.
        **kwargs: base `Layer` arguments.

    Example:
        >>> rnn = lamina.layers.RNN(lamina.layers.LSTMCell(4))
    """

    _gates = 4

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
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
        kwargs.pop("implementation", None)  # Keras 2 argument: one implementation here
        super().__init__(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
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
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self) -> Any:
        return [self.units, self.units]

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        base = self.bias_initializer
        units = self.units

        def forget_ones(shape: Any, dtype: Any = None) -> Any:
            return ops.concatenate(
                [
                    base((units,), dtype=dtype),
                    ops.ones((units,), dtype=dtype),
                    base((2 * units,), dtype=dtype),
                ]
            )

        return forget_ones

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple[Any, Any]:
        h_tm1, c_tm1 = states[0], states[1]
        inputs, h_in = self._dropped(inputs, h_tm1, training)
        z = ops.matmul(inputs, self.kernel.value) + ops.matmul(h_in, self.recurrent_kernel.value)
        if self.bias is not None:
            z = z + self.bias.value
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=-1)
        act = self.activation if self.activation is not None else _identity
        gate = self.recurrent_activation if self.recurrent_activation is not None else _identity
        c = gate(z_f) * c_tm1 + gate(z_i) * act(z_c)
        h = gate(z_o) * act(c)
        return h, [h, c]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


class LSTM(CellLayer):
    """Long short-term memory (Hochreiter & Schmidhuber, 1997) over a sequence.

    Where the configuration allows (tanh and sigmoid activations, no recurrent dropout in
    training, no `unroll`, a mask that is right-padded or absent), the whole sequence runs
    in the backend's fused kernel (PyTorch's native LSTM, one `lax.scan` on JAX, one
    `tf.while_loop` on TensorFlow); otherwise the cell steps in a generic loop. Both give
    the same results.

    Args:
        units: the size of the output and of each state.
        activation, recurrent_activation, use_bias, kernel_initializer,
        recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
        recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
        bias_constraint, dropout, recurrent_dropout, seed: as for `LSTMCell`.
        activity_regularizer: penalty on the layer's output.
        return_sequences, return_state, go_backwards, stateful, unroll: as for `RNN`.
        use_cudnn: ``"auto"`` picks the fused kernel when it applies; True requires it
            (an error otherwise); False always runs the generic loop.
        **kwargs: base `Layer` arguments and `zero_output_for_mask`.

    Example:
        >>> y = lamina.layers.LSTM(4)(np.ones((2, 5, 3), "float32"))  # (2, 4)
    """

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        kwargs.pop("implementation", None)
        cell = LSTMCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
            dropout=dropout,
            recurrent_dropout=recurrent_dropout,
            seed=seed,
            **cell_kwargs(kwargs, "lstm_cell"),
        )
        super().__init__(
            cell,
            activity_regularizer=activity_regularizer,
            use_cudnn=use_cudnn,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            unroll=unroll,
            **kwargs,
        )

    @property
    def unit_forget_bias(self) -> bool:
        return bool(self.cell.unit_forget_bias)

    def _fused_loop(
        self, sequences: Any, initial_state: list[Any], mask: Any, training: Any
    ) -> tuple[Any, Any, Any] | None:
        fused = backend().fused
        if fused is not None and self._fused_ready(training):
            cell = self.cell
            result = fused.lstm(
                self._fused_inputs(sequences, training),
                initial_state[0],
                initial_state[1],
                cell.kernel.value,
                cell.recurrent_kernel.value,
                None if cell.bias is None else cell.bias.value,
                None if mask is None else ops.cast(mask, "bool"),
                self.go_backwards,
                self.zero_output_for_mask,
            )
            if result is not None:
                outputs, h, c = result
                return last_output(outputs, h, mask), outputs, [h, c]
        self._fused_unavailable()
        return None
