"""`GRUCell` and `GRU`: gated recurrent units, gates in Keras 3's order z, r, h."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.rnn._cell import CellLayer, RecurrentCell, cell_kwargs, last_output
from lamina.ops.dispatch import backend


def _identity(x: Any) -> Any:
    return x


class GRUCell(RecurrentCell):
    """One GRU step; its state is ``h``, which is also its output.

    The kernels hold the update (z), reset (r) and candidate (h) gates side by side, each
    `units` wide. With `reset_after` (the default, and what cuDNN and PyTorch compute) the
    reset gate multiplies the recurrent projection after the matmul and the bias is
    ``(2, 3 * units)``: an input bias and a recurrent bias. Without it the reset gate
    multiplies the state before the matmul and the bias is ``(3 * units,)``.

    Args:
        units: the size of the output and of the state.
        activation: of the candidate (default tanh).
        recurrent_activation: of the gates (default sigmoid).
        use_bias, kernel_initializer, recurrent_initializer, bias_initializer,
        kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed: as for
            `LSTMCell`.
        reset_after: apply the reset gate after the recurrent matmul.
        **kwargs: base `Layer` arguments.

    Example:
        >>> rnn = lamina.layers.RNN(lamina.layers.GRUCell(4))
    """

    _gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
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
        reset_after: bool = True,
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
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple[int, ...]:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple[Any, Any]:
        nested = isinstance(states, (list, tuple))
        h_tm1 = states[0] if nested else states
        inputs, h_in = self._dropped(inputs, h_tm1, training)
        act = self.activation if self.activation is not None else _identity
        gate = self.recurrent_activation if self.recurrent_activation is not None else _identity
        bias = None if self.bias is None else self.bias.value
        x = ops.matmul(inputs, self.kernel.value)
        if self.reset_after:
            inner = ops.matmul(h_in, self.recurrent_kernel.value)
            if bias is not None:
                x = x + bias[0, ...]
                inner = inner + bias[1, ...]
            x_z, x_r, x_h = ops.split(x, 3, axis=-1)
            r_z, r_r, r_h = ops.split(inner, 3, axis=-1)
            z = gate(x_z + r_z)
            r = gate(x_r + r_r)
            candidate = act(x_h + r * r_h)
        else:
            if bias is not None:
                x = x + bias
            x_z, x_r, x_h = ops.split(x, 3, axis=-1)
            u_zr, u_h = ops.split(self.recurrent_kernel.value, [2 * self.units], axis=-1)
            r_z, r_r = ops.split(ops.matmul(h_in, u_zr), 2, axis=-1)
            z = gate(x_z + r_z)
            r = gate(x_r + r_r)
            candidate = act(x_h + ops.matmul(r * h_in, u_h))
        h = z * h_tm1 + (1 - z) * candidate
        return h, ([h] if nested else h)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["reset_after"] = self.reset_after
        return config


class GRU(CellLayer):
    """Gated recurrent unit (Cho et al., 2014) over a sequence.

    Where the configuration allows (tanh and sigmoid activations, no recurrent dropout in
    training, no `unroll`, a mask that is right-padded or absent), the whole sequence runs
    in the backend's fused kernel (PyTorch's native GRU needs `reset_after=True`; one
    `lax.scan` on JAX; one `tf.while_loop` on TensorFlow); otherwise the cell steps in a
    generic loop. Both give the same results.

    Args:
        units: the size of the output and of the state.
        activation, recurrent_activation, use_bias, kernel_initializer,
        recurrent_initializer, bias_initializer, kernel_regularizer,
        recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
        bias_constraint, dropout, recurrent_dropout, seed, reset_after: as for `GRUCell`.
        activity_regularizer: penalty on the layer's output.
        return_sequences, return_state, go_backwards, stateful, unroll: as for `RNN`.
        use_cudnn: ``"auto"``, True (require the fused kernel) or False (never).
        **kwargs: base `Layer` arguments and `zero_output_for_mask`.

    Example:
        >>> y = lamina.layers.GRU(4)(np.ones((2, 5, 3), "float32"))  # (2, 4)
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
        reset_after: bool = True,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        kwargs.pop("implementation", None)
        cell = GRUCell(
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
            reset_after=reset_after,
            seed=seed,
            **cell_kwargs(kwargs, "gru_cell"),
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
    def reset_after(self) -> bool:
        return bool(self.cell.reset_after)

    def _fused_loop(
        self, sequences: Any, initial_state: list[Any], mask: Any, training: Any
    ) -> tuple[Any, Any, Any] | None:
        fused = backend().fused
        if fused is not None and self._fused_ready(training):
            cell = self.cell
            result = fused.gru(
                self._fused_inputs(sequences, training),
                initial_state[0],
                cell.kernel.value,
                cell.recurrent_kernel.value,
                None if cell.bias is None else cell.bias.value,
                None if mask is None else ops.cast(mask, "bool"),
                self.go_backwards,
                self.zero_output_for_mask,
                self.reset_after,
            )
            if result is not None:
                outputs, h = result
                return last_output(outputs, h, mask), outputs, [h]
        self._fused_unavailable()
        return None
