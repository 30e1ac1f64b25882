"""Every loss function and class against a NumPy reference (float32: rtol 1e-5, loosened
where long reductions or logs accumulate error)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lamina import losses, ops
from lamina.testing import assert_allclose

EPS = 1e-7
RNG = np.random.default_rng(0)
P = RNG.uniform(0.05, 0.95, (4, 3)).astype("float32")  # probabilities
T01 = (RNG.uniform(size=(4, 3)) > 0.5).astype("float32")  # binary labels
PROBS = (P / P.sum(-1, keepdims=True)).astype("float32")  # rows summing to 1
ONE_HOT = np.eye(3, dtype="float32")[[0, 2, 1, 2]]
SPARSE = np.array([0, 2, 1, 2], "int32")
A = RNG.normal(size=(4, 3)).astype("float32")
B = RNG.normal(size=(4, 3)).astype("float32")
POS_A = np.abs(A) + 0.1
POS_B = np.abs(B) + 0.1


def np_bce(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def np_cce(t, p):
    p = p / p.sum(-1, keepdims=True)
    return -(t * np.log(np.clip(p, EPS, 1 - EPS))).sum(-1)


def np_log_cosh(x):
    return np.log(np.cosh(x.astype("float64")))


def np_huber(t, p, delta):
    e = np.abs(p - t)
    return np.where(e <= delta, 0.5 * e**2, delta * e - 0.5 * delta**2).mean(-1)


def np_bfce(t, p, gamma, alpha=None):
    p_t = t * p + (1 - t) * (1 - p)
    out = (1 - p_t) ** gamma * np_bce(t, p)
    if alpha is not None:
        out = out * (t * alpha + (1 - t) * (1 - alpha))
    return out.mean(-1)


def np_cfce(t, p, alpha, gamma):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return (alpha * (1 - p) ** gamma * -(t * np.log(p))).sum(-1)


def np_normalize(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


FUNCTION_CASES = [
    ("mean_squared_error", (A, B), {}, ((A - B) ** 2).mean(-1)),
    ("mean_absolute_error", (A, B), {}, np.abs(A - B).mean(-1)),
    ("mean_absolute_percentage_error", (A, B), {}, 100 * np.abs((A - B) / A).mean(-1)),
    (
        "mean_squared_logarithmic_error",
        (POS_A, POS_B),
        {},
        ((np.log1p(POS_B) - np.log1p(POS_A)) ** 2).mean(-1),
    ),
    ("cosine_similarity", (A, B), {}, -(np_normalize(A) * np_normalize(B)).sum(-1)),
    ("huber", (A, B), {"delta": 0.7}, np_huber(A, B, 0.7)),
    ("log_cosh", (A, B), {}, np_log_cosh(B - A).mean(-1)),
    ("binary_crossentropy", (T01, P), {}, np_bce(T01, P).mean(-1)),
    (
        "binary_crossentropy",
        (T01, A),
        {"from_logits": True},
        np_bce(T01, 1 / (1 + np.exp(-A))).mean(-1),
    ),
    (
        "binary_crossentropy",
        (T01, P),
        {"label_smoothing": 0.2},
        np_bce(T01 * 0.8 + 0.1, P).mean(-1),
    ),
    ("binary_focal_crossentropy", (T01, P), {"gamma": 2.0}, np_bfce(T01, P, 2.0)),
    (
        "binary_focal_crossentropy",
        (T01, P),
        {"gamma": 1.5, "apply_class_balancing": True, "alpha": 0.3},
        np_bfce(T01, P, 1.5, alpha=0.3),
    ),
    ("categorical_crossentropy", (ONE_HOT, PROBS), {}, np_cce(ONE_HOT, PROBS)),
    (
        "categorical_crossentropy",
        (ONE_HOT, A),
        {"from_logits": True},
        np_cce(ONE_HOT, np.exp(A) / np.exp(A).sum(-1, keepdims=True)),
    ),
    (
        "categorical_crossentropy",
        (ONE_HOT, PROBS),
        {"label_smoothing": 0.3},
        np_cce(ONE_HOT * 0.7 + 0.1, PROBS),
    ),
    (
        "categorical_focal_crossentropy",
        (ONE_HOT, PROBS),
        {"alpha": 0.25, "gamma": 2.0},
        np_cfce(ONE_HOT, PROBS, 0.25, 2.0),
    ),
    ("sparse_categorical_crossentropy", (SPARSE, PROBS), {}, np_cce(ONE_HOT, PROBS)),
    (
        "sparse_categorical_crossentropy",
        (SPARSE[:, None], A),
        {"from_logits": True},
        np_cce(ONE_HOT, np.exp(A) / np.exp(A).sum(-1, keepdims=True)),
    ),
    (
        "categorical_generalized_cross_entropy",
        (SPARSE, PROBS),
        {"q": 0.4},
        (1 - (PROBS * ONE_HOT).sum(-1) ** 0.4) / 0.4,
    ),
    (
        "kl_divergence",
        (PROBS, PROBS[::-1].copy()),
        {},
        (PROBS * np.log(PROBS / PROBS[::-1])).sum(-1),
    ),
    ("poisson", (POS_A, POS_B), {}, (POS_B - POS_A * np.log(POS_B + EPS)).mean(-1)),
    ("hinge", (T01, A), {}, np.maximum(1 - (2 * T01 - 1) * A, 0).mean(-1)),
    ("squared_hinge", (T01, A), {}, (np.maximum(1 - (2 * T01 - 1) * A, 0) ** 2).mean(-1)),
    (
        "categorical_hinge",
        (ONE_HOT, A),
        {},
        np.maximum(((1 - ONE_HOT) * A).max(-1) - (ONE_HOT * A).sum(-1) + 1, 0),
    ),
    (
        "dice",
        (T01, P),
        {"axis": (1,)},
        1 - 2 * (T01 * P).sum(1) / ((T01 + P).sum(1) + EPS),
    ),
    ("dice", (T01, P), {}, 1 - 2 * (T01 * P).sum() / ((T01 + P).sum() + EPS)),
    (
        "tversky",
        (T01, P),
        {"alpha": 0.7, "beta": 0.3, "axis": (1,)},
        1
        - (T01 * P).sum(1)
        / ((T01 * P).sum(1) + 0.7 * (P * (1 - T01)).sum(1) + 0.3 * ((1 - P) * T01).sum(1) + EPS),
    ),
]


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "expected"),
    FUNCTION_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTION_CASES)],
)
def test_loss_function_matches_numpy(name, args, kwargs, expected):
    fn = getattr(losses, name)
    assert_allclose(fn(*args, **kwargs), expected.astype("float32"), loose=10.0)


def test_hinge_keeps_minus_one_one_labels():
    signed = 2 * T01 - 1
    assert_allclose(losses.hinge(signed, A), np.maximum(1 - signed * A, 0).mean(-1))


def test_log_cosh_is_finite_for_large_errors():
    out = ops.convert_to_numpy(losses.log_cosh([[0.0]], [[200.0]]))
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [200.0 - math.log(2.0)], rtol=1e-6)


def test_binary_crossentropy_clips_probabilities():
    out = ops.convert_to_numpy(losses.binary_crossentropy([[1.0, 0.0]], [[0.0, 1.0]]))
    assert np.isfinite(out).all() and out[0] > 10.0


def np_ctc(labels, logits):
    """-log of the summed probability of every path that collapses to `labels` (brute force)."""
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    time, classes = probs.shape
    target = [c for c in labels if c != 0]
    total = 0.0
    for path in itertools.product(range(classes), repeat=time):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]
        if collapsed == target:
            total += np.prod([probs[t, c] for t, c in enumerate(path)])
    return -np.log(total)


def test_ctc_matches_brute_force():
    logits = RNG.normal(size=(2, 5, 3)).astype("float32")
    labels = np.array([[1, 2, 0], [2, 2, 1]], "int32")
    expected = np.array([np_ctc(labels[i], logits[i]) for i in range(2)], "float32")
    assert_allclose(losses.ctc(labels, logits), expected, loose=10.0)
    assert_allclose(losses.CTC()(labels, logits), expected.mean(), loose=10.0)


def test_ctc_rejects_bad_ranks():
    with pytest.raises(ValueError, match="y_true"):
        losses.ctc(np.zeros((2,)), np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match="y_pred"):
        losses.ctc(np.zeros((2, 3)), np.zeros((2, 3)))


def np_circle(labels, emb, gamma, margin):
    sim = emb @ emb.T
    dist = np.maximum(1 - sim, 0)
    same = labels[:, None] == labels[None, :]
    pos = same & ~np.eye(len(labels), dtype=bool)
    neg = ~same
    out = []
    for i in range(len(labels)):
        pw = np.maximum(dist[i] + margin, 0)
        nw = np.maximum(1 + margin - dist[i], 0)
        pl = -gamma * pw * (margin - dist[i])
        nl = gamma * nw * (1 - margin - dist[i])
        lp = np.log(np.exp(pl[pos[i]]).sum()) if pos[i].any() else -np.inf
        ln = np.log(np.exp(nl[neg[i]]).sum()) if neg[i].any() else -np.inf
        out.append(np.logaddexp(0.0, lp + ln))
    return np.array(out, "float32")


def test_circle_matches_numpy():
    emb = np_normalize(RNG.normal(size=(6, 4))).astype("float32")
    labels = np.array([0, 0, 1, 1, 2, 2], "int32")
    expected = np_circle(labels, emb.astype("float64"), gamma=4.0, margin=0.25)
    assert_allclose(losses.circle(labels, emb, gamma=4.0, margin=0.25), expected, loose=50.0)
    got = losses.Circle(gamma=4.0, margin=0.25, reduction="sum")(labels, emb)
    assert_allclose(got, expected.sum(), loose=50.0)


CLASS_CASES = [
    (losses.MeanSquaredError, {}, "mean_squared_error", (A, B), {}),
    (losses.MeanAbsoluteError, {}, "mean_absolute_error", (A, B), {}),
    (losses.MeanAbsolutePercentageError, {}, "mean_absolute_percentage_error", (A, B), {}),
    (losses.MeanSquaredLogarithmicError, {}, "mean_squared_logarithmic_error", (POS_A, POS_B), {}),
    (losses.CosineSimilarity, {"axis": -1}, "cosine_similarity", (A, B), {"axis": -1}),
    (losses.Huber, {"delta": 0.5}, "huber", (A, B), {"delta": 0.5}),
    (losses.LogCosh, {}, "log_cosh", (A, B), {}),
    (losses.BinaryCrossentropy, {"label_smoothing": 0.1}, "binary_crossentropy", (T01, P),
     {"label_smoothing": 0.1}),
    (losses.BinaryFocalCrossentropy, {"gamma": 1.0}, "binary_focal_crossentropy", (T01, P),
     {"gamma": 1.0}),
    (losses.CategoricalCrossentropy, {"from_logits": True}, "categorical_crossentropy",
     (ONE_HOT, A), {"from_logits": True}),
    (losses.CategoricalFocalCrossentropy, {"alpha": [0.2, 0.3, 0.5]},
     "categorical_focal_crossentropy", (ONE_HOT, PROBS), {"alpha": [0.2, 0.3, 0.5]}),
    (losses.SparseCategoricalCrossentropy, {}, "sparse_categorical_crossentropy",
     (SPARSE, PROBS), {}),
    (losses.CategoricalGeneralizedCrossEntropy, {"q": 0.3},
     "categorical_generalized_cross_entropy", (SPARSE, PROBS), {"q": 0.3}),
    (losses.KLDivergence, {}, "kl_divergence", (PROBS, PROBS[::-1].copy()), {}),
    (losses.Poisson, {}, "poisson", (POS_A, POS_B), {}),
    (losses.Hinge, {}, "hinge", (T01, A), {}),
    (losses.SquaredHinge, {}, "squared_hinge", (T01, A), {}),
    (losses.CategoricalHinge, {}, "categorical_hinge", (ONE_HOT, A), {}),
    (losses.Dice, {"axis": (1,)}, "dice", (T01, P), {"axis": (1,)}),
    (losses.Tversky, {"alpha": 0.2, "beta": 0.8, "axis": (1,)}, "tversky", (T01, P),
     {"alpha": 0.2, "beta": 0.8, "axis": (1,)}),
]

W = np.array([0.5, 0.0, 2.0, 1.0], "float32")


@pytest.mark.parametrize(
    ("cls", "ctor", "fn_name", "args", "fn_kwargs"),
    CLASS_CASES,
    ids=[c[0].__name__ for c in CLASS_CASES],
)
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "mean", "none"])
def test_loss_class_reductions_and_weights(cls, ctor, fn_name, args, fn_kwargs, reduction):
    per_sample = ops.convert_to_numpy(getattr(losses, fn_name)(*args, **fn_kwargs))
    loss = cls(reduction=reduction, **ctor)
    plain = loss(*args)
    weighted = loss(*args, sample_weight=W)
    if reduction == "none":
        assert_allclose(plain, per_sample, loose=10.0)
        assert_allclose(weighted, per_sample * W, loose=10.0)
    elif reduction == "sum":
        assert_allclose(plain, per_sample.sum(), loose=10.0)
        assert_allclose(weighted, (per_sample * W).sum(), loose=10.0)
    else:
        assert_allclose(plain, per_sample.mean(), loose=10.0)
        assert_allclose(weighted, (per_sample * W).mean(), loose=10.0)
