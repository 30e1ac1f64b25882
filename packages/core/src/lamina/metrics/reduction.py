"""`Sum`, `Mean` and `MeanMetricWrapper`: metrics that reduce per-sample values.

Most built-in metrics are a `MeanMetricWrapper` around a per-sample function, so sample
weights and masks are handled here once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina import ops
from lamina.losses.loss import (
    apply_mask,
    broadcast_weights,
    get_mask,
    squeeze_or_expand_to_same_rank,
)
from lamina.metrics.metric import Metric


def reduce_to_samplewise_values(
    values: Any, sample_weight: Any, reduce_fn: Callable[..., Any], dtype: str
) -> tuple[Any, Any]:
    """One (weighted) value per sample, and the matching per-sample weights.

    A mask attached to `values` joins the weights. Values with more dims than the
    weights are first reduced with `reduce_fn` down to the weights' rank.
    """
    mask = get_mask(values)
    values = ops.cast(ops.convert_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = ops.cast(ops.convert_to_tensor(sample_weight), dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype, reduction="sum")
    if sample_weight is not None:
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        w_ndim, v_ndim = len(sample_weight.shape), len(values.shape)
        if v_ndim > w_ndim:
            values = reduce_fn(values, axis=tuple(range(w_ndim, v_ndim)))
        sample_weight = broadcast_weights(sample_weight, values)
        values = ops.multiply(values, sample_weight)
        if w_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, w_ndim)))
    v_ndim = len(values.shape)
    if v_ndim > 1:
        values = reduce_fn(values, axis=tuple(range(1, v_ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values seen.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.Sum()
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> m.result()  # 4.0
    """

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values, _ = reduce_to_samplewise_values(values, sample_weight, ops.sum, self.dtype)
        self.total.assign_add(ops.sum(values))

    def result(self) -> Any:
        return ops.cast(self.total.value, self.dtype)


class Mean(Metric):
    """The (weighted) mean of the values seen: ``total / count``.

    Args:
        name: the metric's name.
        dtype: the dtype of the state and result.

    Example:
        >>> m = lamina.metrics.Mean()
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> m.result()  # 2.0
    """

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")
        self.count = self.add_variable((), "zeros", name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values, sample_weight = reduce_to_samplewise_values(
            values, sample_weight, ops.mean, self.dtype
        )
        self.total.assign_add(ops.sum(values))
        if sample_weight is not None:
            count = ops.sum(sample_weight)
        elif len(values.shape) >= 1:
            count = ops.shape(values)[0]
        else:
            count = 1
        self.count.assign_add(ops.cast(count, self.dtype))

    def result(self) -> Any:
        return ops.divide_no_nan(self.total.value, self.count.value)


def _fn_name(fn: Any) -> str | None:
    name = getattr(fn, "__name__", None)  # functions have one; callable objects may not
    return name if isinstance(name, str) and name != "<lambda>" else None


class MeanMetricWrapper(Mean):
    """The mean of a per-sample function ``fn(y_true, y_pred, **kwargs)`` over all samples.

    The mask of `y_pred` (set by masking layers) weights the samples too.

    Args:
        fn: the function, returning one value per sample (or per element).
        name: the metric's name (default: the function's name).
        dtype: the dtype of the state and result.
        **kwargs: passed on to `fn` at every update.

    Example:
        >>> m = lamina.metrics.MeanMetricWrapper(lamina.losses.mean_absolute_error)
        >>> m.update_state([[0.0, 1.0]], [[1.0, 1.0]])
        >>> m.result()  # 0.5
    """

    def __init__(
        self, fn: Callable[..., Any], name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        if not callable(fn):
            raise TypeError(
                "Argument `fn` must be a callable `fn(y_true, y_pred, **kwargs)`. "
                f"Received: fn={fn!r} (of type {type(fn).__name__})"
            )
        super().__init__(name=name or _fn_name(fn) or "mean_metric_wrapper", dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs
        if _is_builtin_loss(fn):
            self._direction = "down"

    def update_state(  # type: ignore[override]
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> None:
        mask = get_mask(y_pred)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        sample_weight = apply_mask(sample_weight, mask, self.dtype, reduction="sum")
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config["fn"] = serialize_lamina_object(self._fn)
        config.update({k: serialize_lamina_object(v) for k, v in self._fn_kwargs.items()})
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        if "fn" in config:
            config["fn"] = deserialize_lamina_object(config["fn"])
        return cls(**config)


def _is_builtin_loss(fn: Any) -> bool:
    from lamina import losses

    return any(fn is obj for obj in losses.ALL_OBJECTS) or isinstance(fn, losses.Loss)


class BuiltinMeanMetric(MeanMetricWrapper):
    """A built-in mean metric: its config is its own arguments, not a serialized function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        dtype: Any,
        direction: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fn, name=name, dtype=dtype, **kwargs)
        if direction is not None:
            self._direction = direction
        for key, value in kwargs.items():  # Keras exposes each argument as an attribute
            setattr(self, key, value)

    def get_config(self) -> dict[str, Any]:
        return {**Metric.get_config(self), **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        return cls(**config)
