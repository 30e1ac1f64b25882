"""Losses on structured outputs: CTC for unaligned sequences, Circle for embeddings."""

from __future__ import annotations

from typing import Any

from lamina import ops
from lamina.losses._checks import check_bool, check_number
from lamina.losses.loss import BuiltinLoss, float_tensor, set_mask, static_shape

_REDUCTION = "sum_over_batch_size"


def ctc(y_true: Any, y_pred: Any) -> Any:
    """Connectionist temporal classification loss, one value per sequence.

    Every time step of `y_pred` counts; label 0 is the blank and pads `y_true`.

    Args:
        y_true: integer labels of shape ``(batch, max_label_length)``, padded with 0.
        y_pred: logits (not softmax outputs) of shape ``(batch, max_time, num_classes)``.

    Returns:
        A tensor of shape ``(batch,)``.

    Raises:
        ValueError: the ranks are not 2 and 3.

    Example:
        >>> lamina.losses.ctc(np.array([[1, 2]]), np.zeros((1, 4, 3)))
    """
    t_shape, p_shape = static_shape(y_true), static_shape(y_pred)
    if len(t_shape) != 2:
        raise ValueError(
            "`ctc`: argument `y_true` must have shape (batch_size, max_length) of integer "
            f"labels. Received: y_true.shape={t_shape}"
        )
    if len(p_shape) != 3:
        raise ValueError(
            "`ctc`: argument `y_pred` must have shape (batch_size, max_length, num_classes) "
            f"of logits. Received: y_pred.shape={p_shape}"
        )
    y_pred = float_tensor(y_pred)
    labels = ops.cast(y_true, "int32")
    batch, time = ops.shape(y_pred)[0], ops.shape(y_pred)[1]
    output_length = ops.multiply(ops.ones((batch,), dtype="int32"), time)
    label_length = ops.sum(ops.cast(ops.not_equal(labels, 0), "int32"), axis=-1)
    return ops.ctc_loss(labels, y_pred, label_length, output_length, mask_index=0)


def _pair_masks(labels: Any, ref_labels: Any, remove_diagonal: bool) -> tuple[Any, Any]:
    """Same-label (positive) and different-label (negative) masks of shape (batch, refs)."""
    same = ops.equal(ops.expand_dims(labels, 1), ops.expand_dims(ref_labels, 0))
    negative = ops.logical_not(same)
    if remove_diagonal:
        rows, cols = ops.shape(labels)[0], ops.shape(ref_labels)[0]
        same = ops.logical_and(same, ops.logical_not(ops.cast(ops.eye(rows, cols), "bool")))
    return same, negative


def circle_with_mask(
    y_true: Any,
    y_pred: Any,
    ref_labels: Any = None,
    ref_embeddings: Any = None,
    remove_diagonal: bool = True,
    gamma: float = 80.0,
    margin: float = 0.4,
) -> tuple[Any, Any]:
    """`circle` and the mask of samples with a non-zero loss."""
    where = "circle"
    check_bool(where, "remove_diagonal", remove_diagonal)
    gamma = check_number(where, "gamma", gamma, low=0.0)
    margin = check_number(where, "margin", margin)
    y_pred = float_tensor(y_pred)
    labels = ops.cast(y_true, "int32")
    refs = y_pred if ref_embeddings is None else float_tensor(ref_embeddings, ops.dtype(y_pred))
    ref_labels = labels if ref_labels is None else ops.cast(ref_labels, "int32")

    distances = ops.maximum(ops.subtract(1.0, ops.matmul(y_pred, ops.transpose(refs))), 0.0)
    positive, negative = _pair_masks(labels, ref_labels, remove_diagonal)
    pos_f = ops.cast(positive, ops.dtype(distances))
    neg_f = ops.cast(negative, ops.dtype(distances))
    # Optimal points O_p = margin, O_n = 1 + margin; decision margins 1 - margin and margin.
    pos_weights = ops.maximum(ops.multiply(ops.add(distances, margin), pos_f), 0.0)
    neg_weights = ops.maximum(ops.multiply(ops.subtract(1.0 + margin, distances), neg_f), 0.0)
    pos_logits = ops.multiply(ops.multiply(pos_weights, ops.subtract(margin, distances)), -gamma)
    neg_gap = ops.subtract(1.0 - margin, distances)
    neg_logits = ops.multiply(ops.multiply(neg_weights, neg_gap), gamma)
    minus_inf = float("-inf")
    p_loss = ops.logsumexp(ops.where(positive, pos_logits, minus_inf), axis=1)
    n_loss = ops.logsumexp(ops.where(negative, neg_logits, minus_inf), axis=1)
    values = ops.softplus(ops.add(p_loss, n_loss))
    return values, ops.greater(values, 0.0)


def circle(
    y_true: Any,
    y_pred: Any,
    ref_labels: Any = None,
    ref_embeddings: Any = None,
    remove_diagonal: bool = True,
    gamma: float = 80.0,
    margin: float = 0.4,
) -> Any:
    """Circle loss (Sun et al., 2020) between integer labels and L2-normalized embeddings.

    Pulls same-label embeddings together and pushes others apart, weighting each pair by
    how far it is from its optimum.

    Args:
        y_true: integer labels of shape ``(batch,)``.
        y_pred: L2-normalized embeddings of shape ``(batch, dim)``.
        ref_labels: labels of the reference embeddings (default: `y_true`).
        ref_embeddings: L2-normalized reference embeddings (default: `y_pred`).
        remove_diagonal: leave each sample's similarity with itself out of the positives.
        gamma: the scale of the similarity scores (>= 0).
        margin: the relaxation margin.

    Returns:
        A tensor of shape ``(batch,)``; the mask of non-zero entries is attached where the
        tensor type allows it.

    Example:
        >>> emb = lamina.ops.normalize(np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]))
        >>> lamina.losses.circle(np.array([0, 0, 1]), emb)
    """
    values, mask = circle_with_mask(
        y_true, y_pred, ref_labels, ref_embeddings, remove_diagonal, gamma, margin
    )
    return set_mask(values, mask)


class CTC(BuiltinLoss):
    """The CTC loss (see `ctc`); arguments as in `Loss`."""

    def __init__(
        self, reduction: str | None = _REDUCTION, name: str = "ctc", dtype: Any = None
    ) -> None:
        super().__init__(ctc, reduction, name, dtype)


class Circle(BuiltinLoss):
    """The Circle loss for metric learning (see `circle`).

    The model should output L2-normalized embeddings (e.g. a `Dense` without activation
    followed by `UnitNormalization`).

    Args:
        gamma: the scale of the similarity scores.
        margin: the relaxation margin.
        remove_diagonal: leave self-similarities out of the positives.
        reduction: as in `Loss`.
        name: the loss's name.
        dtype: as in `Loss`.
    """

    def __init__(
        self,
        gamma: float = 80.0,
        margin: float = 0.4,
        remove_diagonal: bool = True,
        reduction: str | None = _REDUCTION,
        name: str = "circle",
        dtype: Any = None,
    ) -> None:
        where = type(self).__name__
        check_number(where, "gamma", gamma, low=0.0)
        check_number(where, "margin", margin)
        check_bool(where, "remove_diagonal", remove_diagonal)
        super().__init__(
            circle, reduction, name, dtype, masked_fn=circle_with_mask,
            gamma=gamma, margin=margin, remove_diagonal=remove_diagonal,
        )
