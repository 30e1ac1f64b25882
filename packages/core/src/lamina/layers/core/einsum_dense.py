"""`EinsumDense`: a dense layer whose contraction is any einsum equation."""

from __future__ import annotations

import re
from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.core.lora import LoraLayer

_PLAIN = re.compile(r"^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$")
_LEFT = re.compile(r"^\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)$")
_RIGHT = re.compile(r"^([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]{2,})\.\.\.$")


def analyze_equation(
    equation: str, bias_axes: str | None, input_shape: tuple[Any, ...], output_shape: Any
) -> tuple[tuple[int, ...], tuple[int, ...] | None, tuple[Any, ...]]:
    """Kernel shape, bias shape and full output shape for an EinsumDense equation.

    `output_shape` follows Keras: without an ellipsis it omits the first (batch) output
    axis; with ``...x`` it lists the explicit trailing axes; with ``ab...`` it omits the
    first axis and the elided trailing axes.

    Raises:
        ValueError: the equation has an unsupported form, or the shapes disagree.
    """
    where = "EinsumDense"
    eq = equation.replace(" ", "")
    match = _PLAIN.match(eq) or _LEFT.match(eq) or _RIGHT.match(eq)
    if match is None:
        raise ValueError(
            f"{where}: argument `equation` must look like 'ab,bc->ac', '...b,bc->...c' or "
            f"'ab...,bc->ac...'. Received: equation={equation!r}"
        )
    in_spec, w_spec, out_spec = match.groups()
    elided = len(input_shape) - len(in_spec)
    if elided < 0 or (match.re is _PLAIN and elided != 0):
        raise ValueError(
            f"{where}: the equation's input part {in_spec!r} needs inputs of rank "
            f"{len(in_spec)}. Received: input_shape={tuple(input_shape)}"
        )
    given = [output_shape] if isinstance(output_shape, int) else list(output_shape or ())
    if match.re is _PLAIN:
        full = [input_shape[0], *given]
        explicit = full
        lead: list[Any] = []
    elif match.re is _LEFT:
        lead = list(input_shape[:elided])
        explicit = given
        full = lead + explicit
    else:
        explicit = [input_shape[0], *given]
        lead = []
        full = explicit + list(input_shape[len(in_spec) :])
    if len(explicit) != len(out_spec):
        raise ValueError(
            f"{where}: argument `output_shape` must give {len(out_spec) - (match.re is not _LEFT)}"
            f" dims for output part {out_spec!r}. Received: output_shape={output_shape!r}"
        )
    in_dims = dict(zip(in_spec, input_shape[elided:] if match.re is _LEFT else input_shape))
    for i, char in enumerate(out_spec):
        if char in in_dims:
            if explicit[i] is not None and in_dims[char] is not None and (
                explicit[i] != in_dims[char]
            ) and not (match.re is not _LEFT and i == 0):
                raise ValueError(
                    f"{where}: output axis {char!r} has size {explicit[i]} in `output_shape` "
                    f"but {in_dims[char]} in the inputs. Received: output_shape={output_shape!r}"
                )
            explicit[i] = in_dims[char]
        elif explicit[i] is None:
            raise ValueError(
                f"{where}: output axis {char!r} is not an input axis, so `output_shape` must "
                f"give its size. Received: output_shape={output_shape!r}"
            )
    full = lead + explicit if match.re is _LEFT else explicit + full[len(explicit) :]
    out_dims = dict(zip(out_spec, explicit))
    kernel: list[int] = []
    for char in w_spec:
        size = in_dims.get(char, out_dims.get(char))
        if char not in in_dims and char not in out_dims:
            raise ValueError(
                f"{where}: weight axis {char!r} appears in neither the input nor the output "
                f"of equation {equation!r}."
            )
        if size is None:
            raise ValueError(
                f"{where}: weight axis {char!r} has an unknown size. "
                f"Received: input_shape={tuple(input_shape)}, output_shape={output_shape!r}"
            )
        kernel.append(int(size))
    bias: tuple[int, ...] | None = None
    if bias_axes:
        for char in bias_axes:
            if char not in out_spec:
                raise ValueError(
                    f"{where}: argument `bias_axes` must name output axes of {out_spec!r}. "
                    f"Received: bias_axes={bias_axes!r}"
                )
        first = min(out_spec.index(c) for c in bias_axes)
        bias = tuple(
            int(explicit[i]) if c in bias_axes else 1
            for i, c in enumerate(out_spec)
            if i >= first
        )
        if match.re is _RIGHT:
            bias = bias + (1,) * (len(input_shape) - len(in_spec))
    return tuple(kernel), bias, tuple(full)


class EinsumDense(LoraLayer):
    """``activation(einsum(equation, inputs, kernel) + bias)`` with the kernel shaped by the
    equation: each kernel axis takes its size from the inputs or from `output_shape`.

    Args:
        equation: ``"<inputs>,<kernel>-><outputs>"``, e.g. ``"abc,cd->abd"``; an ellipsis
            may lead (``"...b,bc->...c"``) or trail (``"ab...,bc->ac..."``) the inputs.
        output_shape: the output shape without the batch axis (a tuple, or an int for a
            single axis); None for axes that come from the inputs.
        activation: an activation name or callable.
        bias_axes: output axis letters that get a bias (e.g. ``"d"``); None for no bias.
        kernel_initializer: initializer of the kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: penalty on the kernel.
        bias_regularizer: penalty on the bias.
        activity_regularizer: penalty on the outputs.
        kernel_constraint: projection applied to the kernel after each update.
        bias_constraint: projection applied to the bias after each update.
        lora_rank: when set, LoRA is enabled at build time with this rank.
        lora_alpha: LoRA scale numerator.
        **kwargs: base `Layer` arguments.

    Example:
        >>> layer = lamina.layers.EinsumDense("abc,cd->abd", output_shape=(None, 64), bias_axes="d")
    """

    def __init__(
        self,
        equation: str,
        output_shape: Any,
        activation: Any = None,
        bias_axes: str | None = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        lora_rank: int | None = None,
        lora_alpha: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(equation, str):
            raise TypeError(
                "EinsumDense: argument `equation` must be a string. "
                f"Received: equation={equation!r}"
            )
        if bias_axes is not None and not isinstance(bias_axes, str):
            raise TypeError(
                "EinsumDense: argument `bias_axes` must be a string of output axis letters or "
                f"None. Received: bias_axes={bias_axes!r}"
            )
        self.equation = equation
        if isinstance(output_shape, int):
            self.partial_output_shape: tuple[Any, ...] = (output_shape,)
        else:
            self.partial_output_shape = tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = _args.get_activation(activation)
        self.kernel_initializer = _args.get_initializer(kernel_initializer)
        self.bias_initializer = _args.get_initializer(bias_initializer)
        self.kernel_regularizer = _args.get_regularizer(kernel_regularizer)
        self.bias_regularizer = _args.get_regularizer(bias_regularizer)
        self.kernel_constraint = _args.get_constraint(kernel_constraint)
        self.bias_constraint = _args.get_constraint(bias_constraint)
        self._init_lora(lora_rank, lora_alpha)
        self.full_output_shape: tuple[Any, ...] | None = None

    def build(self, input_shape: Any = None) -> None:
        if input_shape is None:
            raise ValueError(
                "EinsumDense.build: argument `input_shape` is required. Received: None"
            )
        kernel_shape, bias_shape, full = analyze_equation(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
        )
        self.full_output_shape = full
        self._kernel = self.add_weight(
            shape=kernel_shape,
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            name="kernel",
        )
        self.bias = (
            self.add_weight(
                shape=bias_shape,
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                name="bias",
            )
            if bias_shape is not None
            else None
        )
        self.built = True
        self._build_lora()

    @property
    def kernel(self) -> Any:
        """The kernel in use (with the LoRA update once enabled)."""
        if not self.built:
            raise AttributeError(
                f"EinsumDense layer {self.name!r} is not built: it has no kernel."
            )
        return self._effective_weight() if self.lora_enabled else self._kernel

    def call(self, inputs: Any) -> Any:
        outputs = ops.einsum(self.equation, inputs, self._effective_weight())
        if self.bias is not None:
            outputs = ops.add(outputs, self.bias.value)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> tuple[Any, ...]:
        _, _, full = analyze_equation(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
        )
        return full

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(
            {
                "equation": self.equation,
                "output_shape": list(self.partial_output_shape),
                "activation": _args.serialize_activation(self.activation),
                "bias_axes": self.bias_axes,
                "kernel_initializer": _args.serialize_initializer(self.kernel_initializer),
                "bias_initializer": _args.serialize_initializer(self.bias_initializer),
                "kernel_regularizer": _args.serialize_regularizer(self.kernel_regularizer),
                "bias_regularizer": _args.serialize_regularizer(self.bias_regularizer),
                "activity_regularizer": _args.serialize_regularizer(self.activity_regularizer),
                "kernel_constraint": _args.serialize_constraint(self.kernel_constraint),
                "bias_constraint": _args.serialize_constraint(self.bias_constraint),
            }
        )
        config.update(self._lora_config())
        return config
