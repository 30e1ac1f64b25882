"""What the built-in cells share: their arguments, weights, configs and initial states,
and the layer base that forwards a cell's arguments (`SimpleRNN`, `GRU`, `LSTM`)."""

from __future__ import annotations

from typing import Any

from lamina import activations, ops, random
from lamina.layers.core import _args
from lamina.layers.layer import Layer
from lamina.layers.rnn.dropout_cell import DropoutRNNCell
from lamina.layers.rnn.rnn import RNN

CELL_ARGS = (
    "units",
    "activation",
    "recurrent_activation",
    "use_bias",
    "kernel_initializer",
    "recurrent_initializer",
    "bias_initializer",
    "kernel_regularizer",
    "recurrent_regularizer",
    "bias_regularizer",
    "kernel_constraint",
    "recurrent_constraint",
    "bias_constraint",
    "dropout",
    "recurrent_dropout",
    "seed",
)


def is_standard(activation: Any, name: str) -> bool:
    """Whether `activation` is Lamina's `name` function (what fused kernels compute)."""
    return activation is activations.get(name) or activation is getattr(ops, name)


def last_output(outputs: Any, h: Any, mask: Any) -> Any:
    """The output of the sequence's last step, read from a fused kernel's result.

    Unmasked, it is the final state `h` itself: taking it instead of ``outputs[:, -1]``
    leaves the stacked outputs unused when the layer returns only the last one, so a
    compiling framework drops them from the loop (about 5-10% of a GRU step on JAX).
    """
    return h if mask is None else outputs[:, -1]


class RecurrentCell(DropoutRNNCell, Layer):
    """A cell with a kernel, a recurrent kernel, an optional bias and dropout."""

    _gates = 1
    _has_recurrent_activation = True

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
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.units = _args.positive_int(name, "units", units)
        self.activation = _args.get_activation(activation)
        self.recurrent_activation = _args.get_activation(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = _args.get_initializer(kernel_initializer)
        self.recurrent_initializer = _args.get_initializer(recurrent_initializer)
        self.bias_initializer = _args.get_initializer(bias_initializer)
        self.kernel_regularizer = _args.get_regularizer(kernel_regularizer)
        self.recurrent_regularizer = _args.get_regularizer(recurrent_regularizer)
        self.bias_regularizer = _args.get_regularizer(bias_regularizer)
        self.kernel_constraint = _args.get_constraint(kernel_constraint)
        self.recurrent_constraint = _args.get_constraint(recurrent_constraint)
        self.bias_constraint = _args.get_constraint(bias_constraint)
        # Keras clips the rates into [0, 1]; a rate of 1 would drop everything.
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.seed = seed
        if self.dropout > 0 or self.recurrent_dropout > 0:
            self.seed_generator = random.SeedGenerator(seed)
        self.reset_dropout_masks()

    # --- sizes ---------------------------------------------------------------------------
    @property
    def state_size(self) -> Any:
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def get_initial_state(self, batch_size: Any = None) -> list[Any]:
        """Zeros for each state, ``(batch_size, units)``."""
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [ops.zeros((batch_size, s), dtype=self.compute_dtype) for s in sizes]

    # --- weights -------------------------------------------------------------------------
    def _bias_shape(self) -> tuple[int, ...]:
        return (self._gates * self.units,)

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any = None) -> None:
        input_dim = input_shape[-1] if input_shape else None
        if input_dim is None:
            raise ValueError(
                f"{type(self).__name__}: the last axis of the inputs must be known. "
                f"Received: input_shape={input_shape}"
            )
        width = self._gates * self.units
        self.kernel = self.add_weight(
            shape=(int(input_dim), width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
            name="recurrent_kernel",
        )
        self.bias = (
            self.add_weight(
                shape=self._bias_shape(),
                initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
            if self.use_bias
            else None
        )
        self.built = True

    def _dropped(self, inputs: Any, h_tm1: Any, training: Any) -> tuple[Any, Any]:
        """The step's inputs and previous output with this sequence's dropout masks."""
        if training and 0.0 < self.dropout < 1.0:
            inputs = inputs * self.get_dropout_mask(inputs)
        if training and 0.0 < self.recurrent_dropout < 1.0:
            h_tm1 = h_tm1 * self.get_recurrent_dropout_mask(h_tm1)
        return inputs, h_tm1

    # --- config --------------------------------------------------------------------------
    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "activation": _args.serialize_activation(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": _args.serialize_initializer(self.kernel_initializer),
                "recurrent_initializer": _args.serialize_initializer(
                    self.recurrent_initializer
                ),
                "bias_initializer": _args.serialize_initializer(self.bias_initializer),
                "kernel_regularizer": _args.serialize_regularizer(self.kernel_regularizer),
                "recurrent_regularizer": _args.serialize_regularizer(
                    self.recurrent_regularizer
                ),
                "bias_regularizer": _args.serialize_regularizer(self.bias_regularizer),
                "kernel_constraint": _args.serialize_constraint(self.kernel_constraint),
                "recurrent_constraint": _args.serialize_constraint(self.recurrent_constraint),
                "bias_constraint": _args.serialize_constraint(self.bias_constraint),
                "dropout": self.dropout,
                "recurrent_dropout": self.recurrent_dropout,
                "seed": self.seed,
            }
        )
        if self._has_recurrent_activation:
            config["recurrent_activation"] = _args.serialize_activation(
                self.recurrent_activation
            )
        else:
            config.pop("recurrent_activation", None)
        return config


class CellLayer(RNN):
    """An `RNN` over one built-in cell whose arguments it takes and exposes itself."""

    def __init__(
        self,
        cell: RecurrentCell,
        activity_regularizer: Any = None,
        use_cudnn: Any = "auto",
        **kwargs: Any,
    ) -> None:
        if use_cudnn not in ("auto", True, False):
            raise ValueError(
                f"{type(self).__name__}: argument `use_cudnn` must be 'auto', True or False. "
                f"Received: use_cudnn={use_cudnn!r}"
            )
        super().__init__(cell, activity_regularizer=activity_regularizer, **kwargs)
        self.use_cudnn = use_cudnn

    def _fused_ready(self, training: Any) -> bool:
        """Whether this configuration is one the backend's fused kernels reproduce."""
        cell = self.cell
        return (
            self.use_cudnn is not False
            and not self.unroll
            and is_standard(cell.activation, "tanh")
            and is_standard(cell.recurrent_activation, "sigmoid")
            and not (training and cell.recurrent_dropout > 0)
        )

    def _fused_inputs(self, sequences: Any, training: Any) -> Any:
        """The sequence with the input dropout mask applied (one mask for every step)."""
        cell = self.cell
        if training and 0.0 < cell.dropout < 1.0:
            mask = cell.get_dropout_mask(sequences[:, 0, ...])
            sequences = sequences * ops.expand_dims(mask, 1)
        return sequences

    def _fused_unavailable(self) -> None:
        if self.use_cudnn is True:
            raise ValueError(
                f"{type(self).__name__}: `use_cudnn=True` needs the backend's fused kernel, "
                "which this configuration or backend cannot use (it needs tanh/sigmoid "
                "activations, no recurrent dropout, no unroll, a right-padded or absent "
                "mask, and a backend that offers fused kernels). Pass use_cudnn='auto' to "
                "fall back to the generic loop."
            )

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.pop("use_cudnn", None)
        config.pop("cell", None)
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key, None)
        config.update(cell_config)
        config["activity_regularizer"] = _args.serialize_regularizer(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> RNN:
        return cls(**config)


def _forwarded(name: str) -> property:
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's `{name}`.")


# The cell's arguments read through the layer, as in Keras (`lstm.units`).
for _name in CELL_ARGS:
    setattr(CellLayer, _name, _forwarded(_name))


def cell_kwargs(kwargs: dict[str, Any], name: str) -> dict[str, Any]:
    """The base-layer arguments a layer passes on to its own cell."""
    return {
        "dtype": kwargs.get("dtype"),
        "trainable": kwargs.get("trainable", True),
        "name": name,
    }
