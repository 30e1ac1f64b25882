"""Argument checks, output-length rules and (de)serialization shared by the spatial layers.

Convolution, pooling, padding, cropping and upsampling layers all take int-or-tuple
arguments and a `data_format`; they are normalized here once so every layer reports bad
values with the same kind of message and stores plain tuples in its config.
"""

from __future__ import annotations

import operator
from typing import Any

DATA_FORMATS = ("channels_last", "channels_first")

Shape = tuple[int | None, ...]


def standardize_data_format(layer: str, data_format: Any) -> str:
    """`data_format` checked; None means `lamina.config.image_data_format()`."""
    if data_format is None:
        from lamina import config

        return str(config.image_data_format())
    value = data_format.lower() if isinstance(data_format, str) else data_format
    if value not in DATA_FORMATS:
        raise ValueError(
            f"{layer}: argument `data_format` must be 'channels_last' or 'channels_first'. "
            f"Received: data_format={data_format!r}"
        )
    return str(value)


def standardize_padding(layer: str, padding: Any, allowed: tuple[str, ...]) -> str:
    """`padding` lower-cased and checked against `allowed`."""
    value = padding.lower() if isinstance(padding, str) else padding
    if value not in allowed:
        raise ValueError(
            f"{layer}: argument `padding` must be one of {allowed}. Received: padding={padding!r}"
        )
    return str(value)


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError
    return operator.index(value)


def normalize_tuple(
    layer: str, arg: str, value: Any, n: int, minimum: int = 1
) -> tuple[int, ...]:
    """An int or a length-`n` sequence of ints, each >= `minimum`, as an `n`-tuple."""
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,) * n
    try:
        if len(items) != n:
            raise TypeError
        out = tuple(_as_int(v) for v in items)
    except TypeError:
        raise ValueError(
            f"{layer}: argument `{arg}` must be an int or a tuple of {n} ints. "
            f"Received: {arg}={value!r}"
        ) from None
    if any(v < minimum for v in out):
        raise ValueError(
            f"{layer}: argument `{arg}` must contain ints >= {minimum}. Received: {arg}={value!r}"
        )
    return out


def positive_int(layer: str, arg: str, value: Any) -> int:
    """`value` as an int > 0."""
    try:
        out = _as_int(value)
    except TypeError:
        out = 0
    if out <= 0:
        raise ValueError(
            f"{layer}: argument `{arg}` must be a strictly positive int. Received: {arg}={value!r}"
        )
    return out


def normalize_pairs(layer: str, arg: str, value: Any, n: int) -> tuple[tuple[int, int], ...]:
    """Per-dim ``(before, after)`` amounts (padding or cropping), all >= 0.

    An int applies to both sides of every dim; for n == 1 a pair is ``(before, after)``;
    for n > 1 a tuple of n ints gives symmetric amounts per dim, and a tuple of n pairs
    gives both sides explicitly.
    """
    message = (
        f"{layer}: argument `{arg}` must be an int, a tuple of {n} ints"
        + (" or" if n == 1 else f", or a tuple of {n} (before, after) pairs;")
        + f" all >= 0. Received: {arg}={value!r}"
    )
    pairs: tuple[tuple[int, int], ...]
    try:
        if isinstance(value, (list, tuple)):
            items = tuple(value)
            if n == 1:
                if len(items) != 2:
                    raise TypeError
                pairs = ((_as_int(items[0]), _as_int(items[1])),)
            else:
                if len(items) != n:
                    raise TypeError
                out = []
                for item in items:
                    if isinstance(item, (list, tuple)):
                        if len(item) != 2:
                            raise TypeError
                        out.append((_as_int(item[0]), _as_int(item[1])))
                    else:
                        out.append((_as_int(item), _as_int(item)))
                pairs = tuple(out)
        else:
            v = _as_int(value)
            pairs = tuple((v, v) for _ in range(n))
    except TypeError:
        raise ValueError(message) from None
    if any(a < 0 or b < 0 for a, b in pairs):
        raise ValueError(message)
    return pairs


def check_rank(layer: str, input_shape: Any, rank: int) -> Shape:
    """`input_shape` as a tuple, checked to have `rank` dims."""
    shape = tuple(input_shape)
    if len(shape) != rank:
        raise ValueError(
            f"{layer}: expected an input of rank {rank}. Received: input_shape={shape}"
        )
    return shape


def spatial_axes(rank: int, data_format: str) -> tuple[int, ...]:
    """The axes of the `rank` spatial dims of a (batch, ..., channels) tensor."""
    start = 1 if data_format == "channels_last" else 2
    return tuple(range(start, start + rank))


def channel_axis(data_format: str) -> int:
    return -1 if data_format == "channels_last" else 1


def conv_output_length(
    size: int | None, kernel: int, stride: int, dilation: int, padding: str
) -> int | None:
    """Length of a (dilated, strided) window sweep; None stays None."""
    if size is None:
        return None
    span = (kernel - 1) * dilation + 1
    if padding in ("same", "causal"):
        return -(-size // stride)
    return (size - span) // stride + 1


def deconv_output_length(
    size: int | None,
    kernel: int,
    stride: int,
    dilation: int,
    padding: str,
    output_padding: int | None,
) -> int | None:
    """Length of a transposed convolution's output (inverse of `conv_output_length`)."""
    if size is None:
        return None
    span = (kernel - 1) * dilation + 1
    if output_padding is None:
        extra = max(span - stride, 0) if padding == "valid" else 0
        return size * stride + extra
    pad = span // 2 if padding == "same" else 0
    return (size - 1) * stride + span - 2 * pad + output_padding


# --- (de)serialization of the callables a layer accepts ---------------------------------


def _namespace(name: str) -> Any:
    import importlib

    return importlib.import_module(f"lamina.{name}")


def get_activation(identifier: Any) -> Any:
    """The activation function for a name, config, callable or None (linear)."""
    return _namespace("activations").get(identifier)


def get_initializer(identifier: Any) -> Any:
    """The initializer for a name, config or callable."""
    return _namespace("initializers").get(identifier)


def get_regularizer(identifier: Any) -> Any:
    """The regularizer for a name, config or callable; None stays None."""
    return None if identifier is None else _namespace("regularizers").get(identifier)


def get_constraint(identifier: Any) -> Any:
    """The constraint for a name, config or callable; None stays None."""
    return None if identifier is None else _namespace("constraints").get(identifier)


def serialize(namespace: str, obj: Any) -> Any:
    """`obj` serialized by ``lamina.<namespace>.serialize``; None stays None."""
    return None if obj is None else _namespace(namespace).serialize(obj)


def check_output_dims(layer: str, input_shape: Shape, out: Shape) -> None:
    """Raise when a window does not fit its input (an output dim below 1)."""
    if any(d is not None and d <= 0 for d in out):
        raise ValueError(
            f"{layer}: the window does not fit the input: the output spatial dims would be "
            f"{tuple(out)}. Received: input_shape={tuple(input_shape)}; use padding='same' "
            "or a smaller kernel/pool size."
        )


def base_config(layer: Any) -> dict[str, Any]:
    """The base layer's name/trainable/dtype (auto-captured constructor args are dropped,
    since each layer writes its own normalized ones)."""
    from lamina.layers.layer import Layer

    config = Layer.get_config(layer)
    return {k: config[k] for k in ("name", "trainable", "dtype")}
