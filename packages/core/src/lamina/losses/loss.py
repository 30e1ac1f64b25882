"""`Loss`, `LossFunctionWrapper` and the weighting, masking and reduction rules they share.

Metrics reuse `squeeze_or_expand_to_same_rank` and `apply_mask`, so a mask or a sample
weight means the same thing to a loss and to the metric that tracks it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from lamina import ops, tree
from lamina.backend.config import SETTINGS, unique_name
from lamina.dtype_policies import policy as policies
from lamina.losses._checks import check_name
from lamina.ops import dtypes
from lamina.ops.operation import _snake_case

REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None)


def standardize_reduction(reduction: Any) -> str | None:
    """`reduction`, checked to be one of `REDUCTIONS`.

    Raises:
        ValueError: `reduction` is not one of them.
    """
    if reduction is None or (isinstance(reduction, str) and reduction in REDUCTIONS):
        return reduction
    raise ValueError(
        f"Argument `reduction` must be one of {list(REDUCTIONS)}. "
        f"Received: reduction={reduction!r}"
    )


def loss_dtype(dtype: Any) -> str:
    """The compute dtype of a loss or metric: a dtype name, a DTypePolicy or None (floatx)."""
    return policies.get(dtype if dtype is not None else SETTINGS.floatx).compute_dtype


def get_mask(x: Any) -> Any:
    """The mask a masking layer attached to tensor `x`, or None."""
    from lamina.layers.layer import get_mask as layer_mask

    return layer_mask(x)


def set_mask(x: Any, mask: Any) -> Any:
    """Attach `mask` to `x` where its type allows (not JAX arrays) and return `x`."""
    from lamina.layers.layer import set_mask as layer_set_mask

    layer_set_mask(x, mask)
    return x


def static_shape(x: Any) -> tuple[int | None, ...]:
    return tuple(None if d is None else int(d) for d in x.shape)


def float_tensor(x: Any, dtype: str | None = None) -> Any:
    """`x` as a tensor of `dtype`, or of its own float dtype (ints and bools become floatx)."""
    if ops.is_tensor(x):  # the common case, returned as is without dispatching two ops
        kind = dtypes.dtype_of(x)
        if kind == dtype or (dtype is None and kind in dtypes.FLOATS):
            return x
    if dtype is None:
        x = ops.convert_to_tensor(x)
        dtype = ops.dtype(x)
        if dtype not in dtypes.FLOATS:
            dtype = SETTINGS.floatx
    return ops.cast(ops.convert_to_tensor(x), dtype)


def to_tensors(x: Any, dtype: str) -> Any:
    """`x` as a float tensor of `dtype`, or a structure of them for several outputs.

    Nested lists of plain numbers are one tensor (``[[0, 1], [1, 0]]``), not a structure.
    """
    if not tree.is_nested(x):
        return float_tensor(x, dtype)
    if all(isinstance(v, (numbers.Number, np.generic)) for v in tree.flatten(x)):
        return float_tensor(x, dtype)
    return tree.map_structure(lambda v: float_tensor(v, dtype), x)


def index_tensors(x: Any, dtype: str) -> Any:
    """Class indices: a backend tensor of an integer dtype stays as it is; anything else
    becomes a float tensor of `dtype`, as other labels do (the loss casts it back)."""
    if ops.is_tensor(x) and dtypes.dtype_of(x) in dtypes.INTS:
        return x
    return to_tensors(x, dtype)


def true_and_pred(y_true: Any, y_pred: Any, squeeze: bool = True) -> tuple[Any, Any]:
    """`y_pred` as a float tensor and `y_true` cast to its dtype, at the same rank."""
    y_pred = float_tensor(y_pred)
    y_true = float_tensor(y_true, ops.dtype(y_pred))
    if squeeze:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return y_true, y_pred


def squeeze_or_expand_to_same_rank(
    x1: Any, x2: Any, expand_rank_1: bool = True
) -> tuple[Any, Any]:
    """Drop (or, for a rank-1 partner, add) a trailing size-1 dim when ranks differ by one.

    Labels of shape ``(batch, 1)`` and predictions of shape ``(batch,)`` then line up
    instead of broadcasting to ``(batch, batch)``.
    """
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = ops.expand_dims(x2, -1)
        else:
            x1 = ops.squeeze(x1, -1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = ops.expand_dims(x1, -1)
        else:
            x2 = ops.squeeze(x2, -1)
    return x1, x2


def _known_nonzero_size(x: Any) -> bool:
    shape = static_shape(x)
    return all(d is not None and d > 0 for d in shape)


def _num_elements(x: Any, dtype: str) -> Any:
    shape = static_shape(x)
    if None not in shape:
        return float(math.prod(int(d or 0) for d in shape))
    return ops.cast(ops.size(x), dtype)


def broadcast_weights(weights: Any, values: Any, where: str = "sample_weight") -> Any:
    """`weights` broadcast to `values`' shape, adding trailing dims (one weight per sample).

    Raises:
        ValueError: the shapes cannot be lined up.
    """
    w_shape, v_shape = static_shape(weights), static_shape(values)
    if len(w_shape) > len(v_shape):
        return weights
    if len(w_shape) < len(v_shape):
        w_shape = w_shape + (1,) * (len(v_shape) - len(w_shape))
        weights = ops.reshape(weights, tuple(-1 if d is None else d for d in w_shape))
    for w, v in zip(w_shape, v_shape):
        if w is not None and v is not None and w not in (1, v):
            raise ValueError(
                f"Argument `{where}` must broadcast to the values' shape {v_shape} (one weight "
                f"per sample, or per element). Received: {where}.shape={static_shape(weights)}"
            )
    target = static_shape(values)
    if all(d is not None for d in target):
        return ops.broadcast_to(weights, target)
    # A dim known only at run time (a relaxed tf.function trace): broadcast by arithmetic.
    return ops.multiply(weights, ops.ones_like(values, dtype=ops.dtype(weights)))


def apply_mask(sample_weight: Any, mask: Any, dtype: str, reduction: str | None) -> Any:
    """Fold `mask` into `sample_weight`.

    For the averaging reductions the mask is rescaled by ``total / valid`` so that the
    average runs over the valid entries only.
    """
    if mask is None:
        return sample_weight
    mask = ops.cast(mask, dtype)
    if reduction in ("mean", "sum_over_batch_size"):
        total = _num_elements(mask, dtype)
        mask = ops.multiply(mask, ops.divide_no_nan(total, ops.sum(mask)))
    if sample_weight is None:
        return mask
    sample_weight = ops.cast(sample_weight, dtype)
    mask, sample_weight = squeeze_or_expand_to_same_rank(mask, sample_weight)
    return ops.multiply(sample_weight, mask)


def reduce_values(
    values: Any, sample_weight: Any = None, reduction: str | None = "sum_over_batch_size"
) -> Any:
    """Reduce (already weighted) `values` to a scalar as `reduction` says."""
    if reduction in (None, "none") or static_shape(values) in ((), (0,)):
        return values
    if reduction in ("mean", "sum_over_batch_size") and _known_nonzero_size(values):
        return ops.mean(values)  # one op instead of sum and divide
    loss = ops.sum(values)
    if reduction == "sum":
        return loss
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return ops.divide_no_nan(loss, ops.cast(ops.sum(sample_weight), ops.dtype(loss)))
    return ops.divide_no_nan(loss, _num_elements(values, ops.dtype(loss)))


def reduce_weighted_values(
    values: Any,
    sample_weight: Any = None,
    mask: Any = None,
    reduction: str | None = "sum_over_batch_size",
    dtype: str | None = None,
) -> Any:
    """Weight `values` by `sample_weight` and `mask`, then reduce them."""
    reduction = standardize_reduction(reduction)
    if not (ops.is_tensor(values) and dtypes.dtype_of(values) == dtype):
        values = ops.convert_to_tensor(values, dtype)
    dtype = dtypes.dtype_of(values)
    if sample_weight is None and mask is None:
        return reduce_values(values, None, reduction)
    if sample_weight is not None:
        sample_weight = ops.convert_to_tensor(sample_weight, dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype, reduction)
    if sample_weight is not None:
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        sample_weight = broadcast_weights(sample_weight, values)
        values = ops.multiply(values, sample_weight)
    return reduce_values(values, sample_weight, reduction)


def _combine_masks(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return b if a is None else a
    return ops.logical_and(ops.cast(a, "bool"), ops.cast(b, "bool"))


class Loss:
    """The base of every loss: call it on ``(y_true, y_pred)`` to get a weighted scalar.

    Subclasses implement `call(y_true, y_pred)`, returning the per-sample (or per-element)
    losses; `__call__` weights them by `sample_weight` and by the mask of `y_pred` (or of
    the values `call` returns), then reduces them.

    Args:
        name: the loss's name (default: the class name in snake case).
        reduction: ``"sum_over_batch_size"`` (or its synonym ``"mean"``) divides the
            weighted sum by the number of elements, ``"sum"`` keeps the sum,
            ``"mean_with_sample_weight"`` divides by the sum of the weights, and
            ``"none"``/None returns the weighted values unreduced.
        dtype: the dtype the loss computes in (a dtype name or a `DTypePolicy`, whose
            compute dtype is used); default `lamina.config.floatx()`.

    Example:
        >>> class Absolute(lamina.losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return lamina.ops.abs(y_true - y_pred)
        >>> Absolute()(np.zeros(3), np.ones(3))  # 1.0
    """

    labels_are_indices: ClassVar[bool] = False
    """Whether `y_true` holds class indices: integer tensors then stay integers instead
    of taking the loss's float dtype."""

    def __init__(
        self,
        name: str | None = None,
        reduction: str | None = "sum_over_batch_size",
        dtype: Any = None,
    ) -> None:
        check_name(type(self).__name__, name)
        self.name = name or unique_name(_snake_case(type(self).__name__))
        self.reduction = standardize_reduction(reduction)
        self._dtype_policy = policies.get(dtype if dtype is not None else SETTINGS.floatx)
        self._dtype = self._dtype_policy.compute_dtype

    @property
    def dtype(self) -> str:
        return self._dtype

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        in_mask = _first_mask(y_pred)
        y_pred = to_tensors(y_pred, self.dtype)
        if self.labels_are_indices:
            y_true = index_tensors(y_true, self.dtype)
        else:
            y_true = to_tensors(y_true, self.dtype)
        values, out_mask = self.call_with_mask(y_true, y_pred)
        return reduce_weighted_values(
            values,
            sample_weight=sample_weight,
            mask=_combine_masks(in_mask, out_mask),
            reduction=self.reduction,
            dtype=self.dtype,
        )

    def call(self, y_true: Any, y_pred: Any) -> Any:
        """The unreduced losses of a batch."""
        raise NotImplementedError(f"{type(self).__name__} must implement `call`.")

    def call_with_mask(self, y_true: Any, y_pred: Any) -> tuple[Any, Any]:
        """`call`'s values and the mask of the entries that count (None: all of them).

        The default reads the mask attached to the values; losses that know their mask
        (an ignored class) return it here, which also works for JAX arrays, where no
        mask can be attached.
        """
        values = self.call(y_true, y_pred)
        return values, get_mask(values)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, reduction={self.reduction}>"


def _first_mask(y_pred: Any) -> Any:
    if tree.is_nested(y_pred):
        masks = [get_mask(x) for x in tree.flatten(y_pred)]
        return next((m for m in masks if m is not None), None)
    return get_mask(y_pred)


def _fn_name(fn: Any) -> str | None:
    name = getattr(fn, "__name__", None)  # functions have one; callable objects may not
    return name if isinstance(name, str) and name != "<lambda>" else None


class LossFunctionWrapper(Loss):
    """A `Loss` made from a function ``fn(y_true, y_pred, **kwargs)`` of per-sample losses.

    Args:
        fn: the loss function.
        reduction: as in `Loss`.
        name: the loss's name (default: the function's name).
        dtype: as in `Loss`.
        **kwargs: passed on to `fn` at every call.

    Example:
        >>> loss = lamina.losses.LossFunctionWrapper(lamina.losses.huber, delta=0.5)
        >>> loss(np.zeros((2, 3)), np.ones((2, 3)))  # 0.375
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        reduction: str | None = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        if not callable(fn):
            raise TypeError(
                "Argument `fn` must be a callable `fn(y_true, y_pred, **kwargs)`. "
                f"Received: fn={fn!r} (of type {type(fn).__name__})"
            )
        super().__init__(name=name or _fn_name(fn), reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def _aligned(self, y_true: Any, y_pred: Any) -> tuple[Any, Any]:
        if not tree.is_nested(y_pred):
            return squeeze_or_expand_to_same_rank(y_true, y_pred)
        pairs = [
            squeeze_or_expand_to_same_rank(t, p)
            for t, p in zip(tree.flatten(y_true), tree.flatten(y_pred))
        ]
        return (
            tree.pack_sequence_as(y_true, [t for t, _ in pairs]),
            tree.pack_sequence_as(y_pred, [p for _, p in pairs]),
        )

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true, y_pred = self._aligned(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        from lamina.saving.serialization import serialize_lamina_object

        config = super().get_config()
        config["fn"] = serialize_lamina_object(self.fn)
        config.update({k: serialize_lamina_object(v) for k, v in self._fn_kwargs.items()})
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        from lamina.saving.serialization import deserialize_lamina_object

        config = dict(config)
        if "fn" in config:
            config["fn"] = deserialize_lamina_object(config["fn"])
        return cls(**config)

    def __repr__(self) -> str:
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


class BuiltinLoss(LossFunctionWrapper):
    """A built-in loss: its config is its own arguments, so no function is serialized.

    `masked_fn`, when given, returns ``(values, mask)`` and is what runs in `__call__`, so
    masks produced by the loss itself (an ignored class) work on every backend.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        reduction: str | None,
        name: str | None,
        dtype: Any,
        masked_fn: Callable[..., tuple[Any, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(fn, reduction=reduction, name=name, dtype=dtype, **kwargs)
        self._masked_fn = masked_fn
        for key, value in kwargs.items():  # Keras exposes each argument as an attribute
            setattr(self, key, value)

    def call_with_mask(self, y_true: Any, y_pred: Any) -> tuple[Any, Any]:
        if self._masked_fn is None:
            return super().call_with_mask(y_true, y_pred)
        y_true, y_pred = self._aligned(y_true, y_pred)
        return self._masked_fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        return {**Loss.get_config(self), **self._fn_kwargs}

    def __repr__(self) -> str:
        return Loss.__repr__(self)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        return cls(**config)
