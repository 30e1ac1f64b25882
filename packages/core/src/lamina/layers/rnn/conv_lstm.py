"""`ConvLSTM1D/2D/3D`: LSTMs whose input and recurrent transforms are convolutions.

Each step's input is a 1D, 2D or 3D feature map; the states ``h`` and ``c`` are feature
maps too (the input convolution's output size, `filters` channels), and the recurrent
convolution uses "same" padding and stride 1 so they keep their size.
"""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.convolutional import _utils
from lamina.layers.core import _args
from lamina.layers.input_spec import InputSpec
from lamina.layers.rnn._cell import RecurrentCell
from lamina.layers.rnn.rnn import RNN


def _identity(x: Any) -> Any:
    return x


class ConvLSTMCell(RecurrentCell):
    """One ConvLSTM step over ``rank``-D feature maps; states ``[h, c]``.

    The kernel is ``(*kernel_size, in_channels, 4 * filters)`` and the recurrent kernel
    ``(*kernel_size, filters, 4 * filters)``, gates i, f, c, o along the last axis.
    """

    _gates = 4

    def __init__(
        self,
        rank: int,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
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
        name = f"ConvLSTM{rank}D"
        super().__init__(
            _utils.positive_int(name, "filters", filters),
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
        self.rank = rank
        self.filters = self.units
        self.kernel_size = _utils.normalize_tuple(name, "kernel_size", kernel_size, rank)
        self.strides = _utils.normalize_tuple(name, "strides", strides, rank)
        self.padding = _utils.standardize_padding(name, padding, ("valid", "same"))
        self.data_format = _utils.standardize_data_format(name, data_format)
        self.dilation_rate = _utils.normalize_tuple(name, "dilation_rate", dilation_rate, rank)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self) -> Any:
        return [self.filters, self.filters]

    @property
    def output_size(self) -> Any:
        return None  # a feature map: the same shape as the state `h`

    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    def output_spatial(self, spatial: tuple[Any, ...]) -> tuple[Any, ...]:
        """The spatial size of the states for inputs of spatial size `spatial`."""
        out: list[Any] = []
        for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate):
            if size is None:
                out.append(None)
                continue
            span = (k - 1) * d + 1
            out.append((size + s - 1) // s if self.padding == "same" else (size - span) // s + 1)
        return tuple(out)

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, filters = self.bias_initializer, self.filters

        def forget_ones(shape: Any, dtype: Any = None) -> Any:
            return ops.concatenate(
                [
                    base((filters,), dtype=dtype),
                    ops.ones((filters,), dtype=dtype),
                    base((2 * filters,), dtype=dtype),
                ]
            )

        return forget_ones

    def build(self, input_shape: Any = None) -> None:
        shape = tuple(input_shape)
        channels = shape[self._channel_axis()]
        if channels is None:
            raise ValueError(
                f"ConvLSTM{self.rank}D: the channel axis of the inputs must be known. "
                f"Received: input_shape={shape}"
            )
        width = 4 * self.filters
        self.kernel = self.add_weight(
            shape=(*self.kernel_size, int(channels), width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(*self.kernel_size, self.filters, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
            name="recurrent_kernel",
        )
        self.bias = (
            self.add_weight(
                shape=(width,),
                initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
            if self.use_bias
            else None
        )
        self.built = True

    def _with_bias(self, x: Any) -> Any:
        if self.bias is None:
            return x
        if self.data_format == "channels_last":
            return x + self.bias.value
        return x + ops.reshape(self.bias.value, (-1,) + (1,) * self.rank)

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple[Any, Any]:
        h_tm1, c_tm1 = states[0], states[1]
        inputs, h_in = self._dropped(inputs, h_tm1, training)
        x = ops.conv(
            inputs,
            self.kernel.value,
            strides=self.strides,
            padding=self.padding,
            data_format=self.data_format,
            dilation_rate=self.dilation_rate,
        )
        r = ops.conv(
            h_in, self.recurrent_kernel.value, strides=1, padding="same",
            data_format=self.data_format,
        )
        z = self._with_bias(x) + r
        z_i, z_f, z_c, z_o = ops.split(z, 4, axis=self._channel_axis())
        act = self.activation if self.activation is not None else _identity
        gate = self.recurrent_activation if self.recurrent_activation is not None else _identity
        c = gate(z_f) * c_tm1 + gate(z_i) * act(z_c)
        h = gate(z_o) * act(c)
        return h, [h, c]


class ConvLSTM(RNN):
    """The ConvLSTM layers' base: an `RNN` over a `ConvLSTMCell` of rank 1, 2 or 3."""

    _rank = 2

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
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
        **kwargs: Any,
    ) -> None:
        cell = ConvLSTMCell(
            self._rank,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
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
            name="conv_lstm_cell",
            dtype=kwargs.get("dtype"),
            trainable=kwargs.get("trainable", True),
        )
        super().__init__(
            cell,
            return_sequences=return_sequences,
            return_state=return_state,
            go_backwards=go_backwards,
            stateful=stateful,
            activity_regularizer=activity_regularizer,
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=self._rank + 3)
        self._spatial: tuple[Any, ...] | None = None

    # --- shapes --------------------------------------------------------------------------
    def _state_shape(self, sequences_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        cell = self.cell
        if cell.data_format == "channels_last":
            spatial = cell.output_spatial(tuple(sequences_shape[2:-1]))
            return (sequences_shape[0], *spatial, cell.filters)
        spatial = cell.output_spatial(tuple(sequences_shape[3:]))
        return (sequences_shape[0], cell.filters, *spatial)

    def _step_output_shape(self, sequences_shape: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._state_shape(sequences_shape)

    def _state_shapes(self, sequences_shape: tuple[Any, ...]) -> Any:
        if len(sequences_shape) < self._rank + 3:
            sequences_shape = (sequences_shape[0], None, *([None] * (self._rank + 1)))
        shape = self._state_shape(sequences_shape)
        return [shape, shape]

    def build(self, sequences_shape: Any = None, initial_state_shape: Any = None) -> None:
        self._spatial = tuple(sequences_shape)
        super().build(sequences_shape, initial_state_shape)

    def get_initial_state(self, batch_size: Any) -> list[Any]:
        """Zero feature maps of the states' shape for inputs of the built shape."""
        if self._spatial is None:
            raise ValueError(f"{type(self).__name__} must be built before its initial state.")
        shape = self._state_shape(self._spatial)[1:]
        if any(d is None for d in shape):
            raise ValueError(
                f"{type(self).__name__}: the spatial dims of the inputs must be known. "
                f"Received: inputs of shape {self._spatial}"
            )
        dtype = self.cell.compute_dtype
        return [ops.zeros((batch_size, *shape), dtype=dtype) for _ in range(2)]

    # --- config --------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        cell = self.cell
        config.update(
            {
                "filters": cell.filters,
                "kernel_size": cell.kernel_size,
                "strides": cell.strides,
                "padding": cell.padding,
                "data_format": cell.data_format,
                "dilation_rate": cell.dilation_rate,
                "activation": _args.serialize_activation(cell.activation),
                "recurrent_activation": _args.serialize_activation(cell.recurrent_activation),
                "use_bias": cell.use_bias,
                "kernel_initializer": _args.serialize_initializer(cell.kernel_initializer),
                "recurrent_initializer": _args.serialize_initializer(
                    cell.recurrent_initializer
                ),
                "bias_initializer": _args.serialize_initializer(cell.bias_initializer),
                "unit_forget_bias": cell.unit_forget_bias,
                "kernel_regularizer": _args.serialize_regularizer(cell.kernel_regularizer),
                "recurrent_regularizer": _args.serialize_regularizer(
                    cell.recurrent_regularizer
                ),
                "bias_regularizer": _args.serialize_regularizer(cell.bias_regularizer),
                "activity_regularizer": _args.serialize_regularizer(self.activity_regularizer),
                "kernel_constraint": _args.serialize_constraint(cell.kernel_constraint),
                "recurrent_constraint": _args.serialize_constraint(cell.recurrent_constraint),
                "bias_constraint": _args.serialize_constraint(cell.bias_constraint),
                "dropout": cell.dropout,
                "recurrent_dropout": cell.recurrent_dropout,
                "seed": cell.seed,
            }
        )
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> RNN:
        return cls(**config)


class ConvLSTM1D(ConvLSTM):
    """A ConvLSTM over sequences of 1D feature maps ``(batch, steps, length, channels)``.

    Args:
        filters: the channels of the output and of each state.
        kernel_size: int or 1-tuple; strides, padding ("valid" or "same"), data_format,
            dilation_rate: as for `Conv1D` (the recurrent convolution is always "same").
        activation, recurrent_activation, use_bias, kernel_initializer,
        recurrent_initializer, bias_initializer, unit_forget_bias, kernel_regularizer,
        recurrent_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed: as for
            `LSTM`.
        return_sequences, return_state, go_backwards, stateful: as for `RNN`.
        **kwargs: base `Layer` arguments.

    Example:
        >>> y = lamina.layers.ConvLSTM1D(4, 3)(np.ones((2, 5, 8, 3), "float32"))  # (2, 6, 4)
    """

    _rank = 1


class ConvLSTM2D(ConvLSTM):
    """A ConvLSTM over sequences of images ``(batch, steps, rows, cols, channels)``.

    Args: as for `ConvLSTM1D`, with 2-tuples for `kernel_size`, `strides` and
    `dilation_rate`.

    Example:
        >>> y = lamina.layers.ConvLSTM2D(4, 3)(np.ones((2, 5, 8, 8, 3), "float32"))
    """

    _rank = 2


class ConvLSTM3D(ConvLSTM):
    """A ConvLSTM over sequences of volumes ``(batch, steps, d1, d2, d3, channels)``.

    Args: as for `ConvLSTM1D`, with 3-tuples for `kernel_size`, `strides` and
    `dilation_rate`.

    Example:
        >>> y = lamina.layers.ConvLSTM3D(2, 3)(np.ones((1, 3, 5, 5, 5, 1), "float32"))
    """

    _rank = 3
