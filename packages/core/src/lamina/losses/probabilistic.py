"""Probabilistic losses: cross-entropies (plain, focal, sparse, generalized), KL, Poisson.

Probabilities are clipped to ``[epsilon, 1 - epsilon]`` before any log, as in Keras.
"""

from __future__ import annotations

import warnings
from typing import Any

from lamina import ops
from lamina.backend.config import SETTINGS
from lamina.losses._checks import check_bool, check_int, check_number
from lamina.losses.loss import BuiltinLoss, float_tensor, set_mask, static_shape

_REDUCTION = "sum_over_batch_size"


def _check_axis(where: str, axis: Any) -> int:
    return check_int(where, "axis", axis)


def _check_common(where: str, from_logits: Any, label_smoothing: Any, axis: Any) -> None:
    check_bool(where, "from_logits", from_logits)
    check_number(where, "label_smoothing", label_smoothing, low=0.0, high=1.0)
    _check_axis(where, axis)


def _pred_and_true(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    y_pred = float_tensor(y_pred)
    return float_tensor(y_true, ops.dtype(y_pred)), y_pred


def _smooth_binary(y_true: Any, label_smoothing: float) -> Any:
    """Squeeze labels towards 0.5: ``y * (1 - s) + 0.5 * s``."""
    if not label_smoothing:
        return y_true
    return ops.add(ops.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)


def _smooth_categorical(y_true: Any, label_smoothing: float, axis: int) -> Any:
    """Spread `label_smoothing` over the classes: ``y * (1 - s) + s / num_classes``."""
    if not label_smoothing:
        return y_true
    num_classes = ops.cast(ops.shape(y_true)[axis], ops.dtype(y_true))
    scaled = ops.multiply(y_true, 1.0 - label_smoothing)
    return ops.add(scaled, ops.divide(label_smoothing, num_classes))


def _warn_single_class(fn: str, y_pred: Any) -> None:
    if static_shape(y_pred)[-1:] == (1,):
        warnings.warn(
            f"`{fn}` expects `y_pred` of shape (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={static_shape(y_pred)}. With two "
            "classes, use `binary_crossentropy` instead.",
            UserWarning,
            stacklevel=3,
        )


def binary_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Binary cross-entropy, averaged over `axis`.

    Args:
        y_true: labels (0 or 1, or probabilities), of `y_pred`'s shape.
        y_pred: predicted probabilities, or logits when `from_logits`.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; labels become ``y * (1 - s) + 0.5 * s``.
        axis: the axis the mean runs over.

    Returns:
        `y_pred`'s shape without `axis`.

    Example:
        >>> lamina.losses.binary_crossentropy([[0.0, 1.0]], [[0.4, 0.6]])  # [0.5108]
    """
    _check_common("binary_crossentropy", from_logits, label_smoothing, axis)
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _smooth_binary(y_true, label_smoothing)
    values = ops.binary_crossentropy(y_true, y_pred, from_logits=from_logits)
    return ops.mean(values, axis=axis)


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Binary cross-entropy scaled by the focal factor ``(1 - p_t) ** gamma``, averaged over `axis`.

    The focal factor down-weights examples the model already gets right (Lin et al., 2018).

    Args:
        y_true: labels, of `y_pred`'s shape.
        y_pred: predicted probabilities, or logits when `from_logits`.
        apply_class_balancing: also weight class 1 by `alpha` and class 0 by ``1 - alpha``.
        alpha: the class-1 weight for class balancing, in [0, 1].
        gamma: the focusing parameter (>= 0); 0 gives the plain binary cross-entropy.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1], as in `binary_crossentropy`.
        axis: the axis the mean runs over.

    Example:
        >>> lamina.losses.binary_focal_crossentropy([[0.0, 1.0]], [[0.4, 0.6]], gamma=2.0)
    """
    where = "binary_focal_crossentropy"
    _check_common(where, from_logits, label_smoothing, axis)
    check_bool(where, "apply_class_balancing", apply_class_balancing)
    check_number(where, "alpha", alpha, low=0.0, high=1.0)
    check_number(where, "gamma", gamma, low=0.0)
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _smooth_binary(y_true, label_smoothing)
    if from_logits:
        y_pred = ops.sigmoid(y_pred)
    bce = ops.binary_crossentropy(y_true, y_pred, from_logits=False)
    not_true = ops.subtract(1.0, y_true)
    p_t = ops.add(ops.multiply(y_true, y_pred), ops.multiply(not_true, ops.subtract(1.0, y_pred)))
    focal = ops.multiply(ops.power(ops.subtract(1.0, p_t), gamma), bce)
    if apply_class_balancing:
        weight = ops.add(ops.multiply(y_true, alpha), ops.multiply(not_true, 1.0 - alpha))
        focal = ops.multiply(weight, focal)
    return ops.mean(focal, axis=axis)


def categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Categorical cross-entropy between one-hot `y_true` and `y_pred` along `axis`.

    Args:
        y_true: one-hot (or soft) labels, of `y_pred`'s shape.
        y_pred: predicted probabilities (renormalized to sum to 1), or logits.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; labels become ``y * (1 - s) + s / num_classes``.
        axis: the class axis.

    Returns:
        `y_pred`'s shape without `axis`.

    Example:
        >>> lamina.losses.categorical_crossentropy([[0, 1, 0]], [[0.05, 0.95, 0.0]])  # [0.0513]
    """
    _check_common("categorical_crossentropy", from_logits, label_smoothing, axis)
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    _warn_single_class("categorical_crossentropy", y_pred)
    y_true = _smooth_categorical(y_true, label_smoothing, axis)
    return ops.categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def _check_alpha(where: str, alpha: Any) -> Any:
    if isinstance(alpha, (list, tuple)):
        for a in alpha:
            check_number(where, "alpha", a, low=0.0)
        return list(alpha)
    return check_number(where, "alpha", alpha, low=0.0)


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: Any = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Categorical cross-entropy with each class term scaled by ``alpha * (1 - p) ** gamma``.

    Args:
        y_true: one-hot labels, of `y_pred`'s shape.
        y_pred: predicted probabilities (renormalized to sum to 1), or logits.
        alpha: a weight for all classes, or a list of one weight per class.
        gamma: the focusing parameter (>= 0).
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1], as in `categorical_crossentropy`.
        axis: the class axis.

    Example:
        >>> lamina.losses.categorical_focal_crossentropy([[0, 1, 0]], [[0.05, 0.9, 0.05]])
    """
    where = "categorical_focal_crossentropy"
    _check_common(where, from_logits, label_smoothing, axis)
    _check_alpha(where, alpha)
    check_number(where, "gamma", gamma, low=0.0)
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    _warn_single_class(where, y_pred)
    y_true = _smooth_categorical(y_true, label_smoothing, axis)
    if from_logits:
        y_pred = ops.softmax(y_pred, axis=axis)
    eps = SETTINGS.epsilon
    output = ops.divide(y_pred, ops.sum(y_pred, axis=axis, keepdims=True))
    output = ops.clip(output, eps, 1.0 - eps)
    cce = ops.negative(ops.multiply(y_true, ops.log(output)))
    alpha_t = ops.convert_to_tensor(alpha, ops.dtype(y_pred))
    factor = ops.multiply(ops.power(ops.subtract(1.0, output), gamma), alpha_t)
    return ops.sum(ops.multiply(factor, cce), axis=axis)


def _squeeze_labels(y_true: Any, y_pred: Any) -> Any:
    """Drop a trailing size-1 label dim: labels of shape (batch, 1) index (batch, classes)."""
    if len(y_true.shape) == len(y_pred.shape) and static_shape(y_true)[-1] == 1:
        return ops.squeeze(y_true, -1)
    return y_true


def sparse_categorical_crossentropy_with_mask(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    ignore_class: int | None = None,
    axis: int = -1,
) -> tuple[Any, Any]:
    """`sparse_categorical_crossentropy` and the mask of labels that are not `ignore_class`."""
    where = "sparse_categorical_crossentropy"
    check_bool(where, "from_logits", from_logits)
    _check_axis(where, axis)
    if ignore_class is not None:
        check_int(where, "ignore_class", ignore_class)
    y_pred = float_tensor(y_pred)
    y_true = _squeeze_labels(ops.convert_to_tensor(y_true), y_pred)
    if ignore_class is None:
        values = ops.sparse_categorical_crossentropy(
            y_true, y_pred, from_logits=from_logits, axis=axis
        )
        return values, None
    valid = ops.not_equal(y_true, ops.cast(ignore_class, ops.dtype(y_true)))
    # Ignored entries get label 0 (any valid class) so the op never sees them out of range.
    safe_true = ops.where(valid, y_true, ops.zeros_like(y_true))
    values = ops.sparse_categorical_crossentropy(
        safe_true, y_pred, from_logits=from_logits, axis=axis
    )
    values = ops.where(valid, values, ops.zeros_like(values))
    return values, valid


def sparse_categorical_crossentropy(
    y_true: Any,
    y_pred: Any,
    from_logits: bool = False,
    ignore_class: int | None = None,
    axis: int = -1,
) -> Any:
    """Categorical cross-entropy with integer class indices as `y_true`.

    Args:
        y_true: integer labels, of `y_pred`'s shape without `axis` (a trailing size-1 dim
            is dropped).
        y_pred: predicted probabilities (renormalized to sum to 1), or logits.
        from_logits: whether `y_pred` holds logits.
        ignore_class: a label whose entries get a loss of 0 and are masked out (e.g. the
            "void" class of segmentation maps); None keeps every class.
        axis: the class axis of `y_pred`.

    Returns:
        `y_pred`'s shape without `axis`; with `ignore_class`, the mask of valid entries is
        attached where the tensor type allows it.

    Example:
        >>> lamina.losses.sparse_categorical_crossentropy([1], [[0.05, 0.95, 0.0]])  # [0.0513]
    """
    values, mask = sparse_categorical_crossentropy_with_mask(
        y_true, y_pred, from_logits=from_logits, ignore_class=ignore_class, axis=axis
    )
    return values if mask is None else set_mask(values, mask)


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float) -> Any:
    """Generalized cross-entropy ``(1 - p ** q) / q``, `p` the probability of the true class.

    Robust to noisy labels (Zhang & Sabuncu, 2018): near cross-entropy as `q` -> 0 and
    near the mean absolute error as `q` -> 1.

    Args:
        y_true: integer class indices, of shape ``(batch,)`` or ``(batch, 1)``.
        y_pred: class probabilities, of shape ``(batch, num_classes)``.
        q: in (0, 1).

    Example:
        >>> lamina.losses.categorical_generalized_cross_entropy([1], [[0.2, 0.8]], q=0.5)
    """
    check_number("categorical_generalized_cross_entropy", "q", q, 0.0, 1.0, True, True)
    y_pred = float_tensor(y_pred)
    y_true = _squeeze_labels(ops.convert_to_tensor(y_true), y_pred)
    num_classes = static_shape(y_pred)[-1]
    if num_classes is None:
        raise ValueError(
            "`categorical_generalized_cross_entropy` needs a known number of classes (the "
            f"last axis of `y_pred`). Received: y_pred.shape={static_shape(y_pred)}"
        )
    one_hot = ops.one_hot(ops.cast(y_true, "int32"), num_classes, dtype=ops.dtype(y_pred))
    p = ops.sum(ops.multiply(y_pred, one_hot), axis=-1)
    return ops.divide(ops.subtract(1.0, ops.power(p, q)), q)


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    """Kullback-Leibler divergence ``sum(y_true * log(y_true / y_pred), -1)``.

    Both are clipped to ``[epsilon, 1]`` first, so zero probabilities stay finite.

    Example:
        >>> lamina.losses.kl_divergence([[0.5, 0.5]], [[0.25, 0.75]])  # [0.1438]
    """
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    eps = SETTINGS.epsilon
    y_true = ops.clip(y_true, eps, 1.0)
    y_pred = ops.clip(y_pred, eps, 1.0)
    return ops.sum(ops.multiply(y_true, ops.log(ops.divide(y_true, y_pred))), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    """Poisson loss ``mean(y_pred - y_true * log(y_pred + epsilon), -1)``.

    Example:
        >>> lamina.losses.poisson([[1.0, 0.0]], [[1.0, 1.0]])  # [0.5]
    """
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    log_pred = ops.log(ops.add(y_pred, SETTINGS.epsilon))
    return ops.mean(ops.subtract(y_pred, ops.multiply(y_true, log_pred)), axis=-1)


class BinaryCrossentropy(BuiltinLoss):
    """Binary cross-entropy between labels and predicted probabilities (or logits).

    Args:
        from_logits: whether `y_pred` holds logits (more stable than probabilities).
        label_smoothing: in [0, 1]; squeezes labels towards 0.5.
        axis: the axis the mean runs over.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.

    Example:
        >>> bce = lamina.losses.BinaryCrossentropy(from_logits=True)
        >>> bce([0.0, 1.0, 0.0, 0.0], [-18.6, 0.51, 2.94, -12.8])  # 0.865
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _REDUCTION,
        name: str = "binary_crossentropy",
        dtype: Any = None,
    ) -> None:
        _check_common(type(self).__name__, from_logits, label_smoothing, axis)
        super().__init__(
            binary_crossentropy, reduction, name, dtype,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )


class BinaryFocalCrossentropy(BuiltinLoss):
    """Binary cross-entropy scaled by a focal factor (see `binary_focal_crossentropy`).

    Args:
        apply_class_balancing: weight class 1 by `alpha` and class 0 by ``1 - alpha``.
        alpha: the class-1 weight, in [0, 1].
        gamma: the focusing parameter (>= 0).
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1].
        axis: the axis the mean runs over.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _REDUCTION,
        name: str = "binary_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        _check_common(where, from_logits, label_smoothing, axis)
        check_bool(where, "apply_class_balancing", apply_class_balancing)
        check_number(where, "alpha", alpha, low=0.0, high=1.0)
        check_number(where, "gamma", gamma, low=0.0)
        super().__init__(
            binary_focal_crossentropy, reduction, name, dtype,
            apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )


class CategoricalCrossentropy(BuiltinLoss):
    """Cross-entropy between one-hot labels and predictions (see `categorical_crossentropy`).

    Args:
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; spreads that much probability over all classes.
        axis: the class axis.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.

    Example:
        >>> cce = lamina.losses.CategoricalCrossentropy()
        >>> cce([[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])  # 1.177
    """

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _REDUCTION,
        name: str = "categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        _check_common(type(self).__name__, from_logits, label_smoothing, axis)
        super().__init__(
            categorical_crossentropy, reduction, name, dtype,
            from_logits=from_logits, label_smoothing=label_smoothing, axis=axis,
        )


class CategoricalFocalCrossentropy(BuiltinLoss):
    """Alpha-balanced focal cross-entropy (see `categorical_focal_crossentropy`).

    Args:
        alpha: a weight for all classes, or a list of one per class.
        gamma: the focusing parameter (>= 0).
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1].
        axis: the class axis.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        alpha: Any = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: str | None = _REDUCTION,
        name: str = "categorical_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        _check_common(where, from_logits, label_smoothing, axis)
        _check_alpha(where, alpha)
        check_number(where, "gamma", gamma, low=0.0)
        super().__init__(
            categorical_focal_crossentropy, reduction, name, dtype,
            alpha=alpha, gamma=gamma, from_logits=from_logits,
            label_smoothing=label_smoothing, axis=axis,
        )


class SparseCategoricalCrossentropy(BuiltinLoss):
    """Cross-entropy with integer labels (see `sparse_categorical_crossentropy`).

    Entries labelled `ignore_class` are masked out: averaging reductions divide by the
    number of the other entries.

    Args:
        from_logits: whether `y_pred` holds logits.
        ignore_class: a label to leave out, or None.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.

    Example:
        >>> scce = lamina.losses.SparseCategoricalCrossentropy()
        >>> scce([1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])  # 1.177
    """

    labels_are_indices = True

    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: str | None = _REDUCTION,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        check_bool(where, "from_logits", from_logits)
        if ignore_class is not None:
            check_int(where, "ignore_class", ignore_class)
        super().__init__(
            sparse_categorical_crossentropy, reduction, name, dtype,
            masked_fn=sparse_categorical_crossentropy_with_mask,
            from_logits=from_logits, ignore_class=ignore_class,
        )


class CategoricalGeneralizedCrossEntropy(BuiltinLoss):
    """Generalized cross-entropy, robust to noisy labels (see
    `categorical_generalized_cross_entropy`).

    Args:
        q: in (0, 1); towards 0 it behaves like cross-entropy, towards 1 like MAE.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        q: float = 0.5,
        reduction: str | None = _REDUCTION,
        name: str = "categorical_generalized_cross_entropy",
        dtype: Any = None,
    ) -> None:
        check_number(type(self).__name__, "q", q, 0.0, 1.0, True, True)
        super().__init__(categorical_generalized_cross_entropy, reduction, name, dtype, q=q)


class KLDivergence(BuiltinLoss):
    """Kullback-Leibler divergence between label and predicted distributions."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "kl_divergence", dtype: Any = None
    ) -> None:
        super().__init__(kl_divergence, reduction, name, dtype)


class Poisson(BuiltinLoss):
    """Poisson loss ``y_pred - y_true * log(y_pred)`` (see `poisson`)."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "poisson", dtype: Any = None
    ) -> None:
        super().__init__(poisson, reduction, name, dtype)
