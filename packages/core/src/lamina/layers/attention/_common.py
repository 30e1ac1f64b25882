"""What the attention layers share: one attention mask from the implicit and explicit
masks, the causal mask, sublayer arguments, and the build-config form Keras 3 writes for
layers built from several inputs."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.layers.core import _args
from lamina.layers.layer import get_mask


def shape_of(x: Any) -> tuple[Any, ...] | None:
    return None if x is None else tuple(x.shape)


def causal_mask(query_len: Any, value_len: Any) -> Any:
    """``(1, query_len, value_len)`` bool, True where key index <= query index."""
    ones = ops.ones((1, query_len, value_len), dtype="int32")
    rows = ops.cumsum(ones, axis=-2)
    cols = ops.cumsum(ones, axis=-1)
    return ops.greater_equal(rows, cols)


def band_mask(query_len: Any, value_len: Any, window: int) -> Any:
    """``(1, query_len, value_len)`` bool, True where ``|query index - key index| < window``."""
    rows = ops.expand_dims(ops.arange(query_len), -1)
    cols = ops.expand_dims(ops.arange(value_len), 0)
    return ops.expand_dims(ops.less(ops.abs(ops.subtract(rows, cols)), window), 0)


def implicit_mask(tensor: Any, given: Any) -> Any:
    """The explicit mask when given, else the one a masking layer attached to `tensor`."""
    return given if given is not None else get_mask(tensor)


def attention_mask(
    query: Any,
    value: Any,
    query_mask: Any,
    value_mask: Any,
    key_mask: Any,
    explicit: Any,
    use_causal_mask: bool,
) -> Any:
    """One ``(batch, query_len, key_len)`` bool mask (or None), combining the query, value
    and key padding masks, the causal mask and the explicit `attention_mask` with AND."""
    auto = None
    if query_mask is not None:
        auto = ops.expand_dims(ops.cast(query_mask, "bool"), -1)
    for mask in (value_mask, key_mask):
        if mask is not None:
            m = ops.expand_dims(ops.cast(mask, "bool"), -2)
            auto = m if auto is None else ops.logical_and(auto, m)
    if use_causal_mask:
        m = causal_mask(ops.shape(query)[1], ops.shape(value)[1])
        auto = m if auto is None else ops.logical_and(auto, m)
    if explicit is not None:
        explicit = ops.cast(explicit, "bool")
        return explicit if auto is None else ops.logical_and(explicit, auto)
    return auto


def sublayer_kwargs(layer: Any) -> dict[str, Any]:
    """Fresh initializers (never shared between sublayers) plus the shared penalties,
    constraints and dtype policy, for the projection sublayers of `layer`."""

    def fresh(init: Any) -> Any:
        return type(init).from_config(init.get_config())

    return {
        "kernel_initializer": fresh(layer.kernel_initializer),
        "bias_initializer": fresh(layer.bias_initializer),
        "kernel_regularizer": layer.kernel_regularizer,
        "bias_regularizer": layer.bias_regularizer,
        "kernel_constraint": layer.kernel_constraint,
        "bias_constraint": layer.bias_constraint,
        "dtype": layer.dtype_policy,
    }


def weight_config(layer: Any) -> dict[str, Any]:
    """The initializer/regularizer/constraint entries of an attention layer's config."""
    return {
        "kernel_initializer": _args.serialize_initializer(layer.kernel_initializer),
        "bias_initializer": _args.serialize_initializer(layer.bias_initializer),
        "kernel_regularizer": _args.serialize_regularizer(layer.kernel_regularizer),
        "bias_regularizer": _args.serialize_regularizer(layer.bias_regularizer),
        "activity_regularizer": _args.serialize_regularizer(layer.activity_regularizer),
        "kernel_constraint": _args.serialize_constraint(layer.kernel_constraint),
        "bias_constraint": _args.serialize_constraint(layer.bias_constraint),
    }


def set_weight_args(
    layer: Any,
    kernel_initializer: Any,
    bias_initializer: Any,
    kernel_regularizer: Any,
    bias_regularizer: Any,
    kernel_constraint: Any,
    bias_constraint: Any,
) -> None:
    layer.kernel_initializer = _args.get_initializer(kernel_initializer)
    layer.bias_initializer = _args.get_initializer(bias_initializer)
    layer.kernel_regularizer = _args.get_regularizer(kernel_regularizer)
    layer.bias_regularizer = _args.get_regularizer(bias_regularizer)
    layer.kernel_constraint = _args.get_constraint(kernel_constraint)
    layer.bias_constraint = _args.get_constraint(bias_constraint)


def shapes_from_build_config(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """``{"query_shape", "value_shape", "key_shape"}`` from a build config: Keras 3's
    ``{"shapes_dict": {...}}`` or the ``{"input_shape": {...}}`` form."""
    if not config:
        return None
    shapes = config.get("shapes_dict") or config.get("input_shape")
    if not isinstance(shapes, dict):
        return None
    return {
        k: None if shapes.get(k) is None else tuple(shapes[k])
        for k in ("query_shape", "value_shape", "key_shape")
    }
