"""Regression, probabilistic, hinge and correlation metrics against NumPy / scikit-learn,
over several weighted batches (float32; rtol 1e-5 scaled by `loose` for long sums)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import losses, metrics, ops
from lamina.testing import assert_allclose

sk = pytest.importorskip("sklearn.metrics")

RNG = np.random.default_rng(4)
N, D = 30, 3
T = RNG.normal(size=(N, D)).astype("float32")
P = (T + RNG.normal(scale=0.5, size=(N, D))).astype("float32")
POS_T, POS_P = np.abs(T) + 0.1, np.abs(P) + 0.1
BIN = (RNG.uniform(size=(N, D)) > 0.5).astype("float32")
PROB = RNG.uniform(0.02, 0.98, (N, D)).astype("float32")
SOFT = (PROB / PROB.sum(-1, keepdims=True)).astype("float32")
LABELS = RNG.integers(0, D, (N,)).astype("int32")
ONE_HOT = np.eye(D, dtype="float32")[LABELS]
W = RNG.uniform(0.0, 2.0, (N,)).astype("float32")
BATCHES = [slice(0, 10), slice(10, 11), slice(11, 30)]


def _feed(metric, y_true, y_pred, weights=None):
    for s in BATCHES:
        w = None if weights is None else weights[s]
        metric.update_state(y_true[s], y_pred[s], sample_weight=w)
    return ops.convert_to_numpy(metric.result())


def _weighted_mean(per_sample, weights):
    return np.float32(np.sum(per_sample * weights) / np.sum(weights))


def _norm(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _bce(t, p):
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p)).mean(-1)


MEAN_CASES = [
    (metrics.MeanSquaredError, (T, P), ((T - P) ** 2).mean(-1)),
    (metrics.MeanAbsoluteError, (T, P), np.abs(T - P).mean(-1)),
    (metrics.MeanAbsolutePercentageError, (T, P), 100 * np.abs((T - P) / T).mean(-1)),
    (metrics.MeanSquaredLogarithmicError, (POS_T, POS_P),
     ((np.log1p(POS_T) - np.log1p(POS_P)) ** 2).mean(-1)),
    (metrics.LogCoshError, (T, P), np.log(np.cosh(P - T)).mean(-1)),
    (metrics.CosineSimilarity, (T, P), (_norm(T) * _norm(P)).sum(-1)),
    (metrics.BinaryCrossentropy, (BIN, PROB), _bce(BIN, PROB)),
    (metrics.CategoricalCrossentropy, (ONE_HOT, SOFT), -(ONE_HOT * np.log(SOFT)).sum(-1)),
    (metrics.SparseCategoricalCrossentropy, (LABELS, SOFT), -(ONE_HOT * np.log(SOFT)).sum(-1)),
    (metrics.KLDivergence, (SOFT, SOFT[::-1].copy()), (SOFT * np.log(SOFT / SOFT[::-1])).sum(-1)),
    (metrics.Poisson, (POS_T, POS_P), (POS_P - POS_T * np.log(POS_P + 1e-7)).mean(-1)),
    (metrics.Hinge, (BIN, T), np.maximum(1 - (2 * BIN - 1) * T, 0).mean(-1)),
    (metrics.SquaredHinge, (BIN, T), (np.maximum(1 - (2 * BIN - 1) * T, 0) ** 2).mean(-1)),
    (metrics.CategoricalHinge, (ONE_HOT, T),
     np.maximum(((1 - ONE_HOT) * T).max(-1) - (ONE_HOT * T).sum(-1) + 1, 0)),
]


@pytest.mark.parametrize(("cls", "args", "per_sample"), MEAN_CASES,
                         ids=[c[0].__name__ for c in MEAN_CASES])
@pytest.mark.parametrize("weighted", [False, True])
def test_mean_metrics(cls, args, per_sample, weighted):
    weights = W if weighted else np.ones((N,), "float32")
    got = _feed(cls(), *args, W if weighted else None)
    assert_allclose(got, _weighted_mean(per_sample, weights), loose=20.0)


def test_probabilistic_options():
    logits = np.log(PROB / (1 - PROB)).astype("float32")
    got = _feed(metrics.BinaryCrossentropy(from_logits=True, label_smoothing=0.2), BIN, logits)
    assert_allclose(got, np.float32(_bce(BIN * 0.8 + 0.1, PROB).mean()), loose=50.0)
    z = np.log(SOFT).astype("float32")
    got = _feed(metrics.CategoricalCrossentropy(from_logits=True), ONE_HOT, z)
    assert_allclose(got, np.float32(-(ONE_HOT * np.log(SOFT)).sum(-1).mean()), loose=50.0)
    got = _feed(metrics.SparseCategoricalCrossentropy(from_logits=True), LABELS[:, None], z)
    assert_allclose(got, np.float32(-(ONE_HOT * np.log(SOFT)).sum(-1).mean()), loose=50.0)


def test_root_mean_squared_error():
    assert_allclose(_feed(metrics.RootMeanSquaredError(), T, P, W),
                    np.sqrt(_weighted_mean(((T - P) ** 2).mean(-1), W)), loose=10.0)
    ew = RNG.uniform(size=(N, D)).astype("float32")  # element-wise weights
    m = metrics.RootMeanSquaredError()
    m.update_state(T, P, sample_weight=ew)
    expected = np.sqrt(((T - P) ** 2 * ew).mean(-1).sum() / ew.mean(-1).sum())
    assert_allclose(m.result(), np.float32(expected), loose=10.0)


def test_cosine_similarity_axis():
    x = RNG.normal(size=(4, 3, 2)).astype("float32")
    y = RNG.normal(size=(4, 3, 2)).astype("float32")
    m = metrics.CosineSimilarity(axis=1)
    m.update_state(x, y)
    expected = ((x / np.linalg.norm(x, axis=1, keepdims=True))
                * (y / np.linalg.norm(y, axis=1, keepdims=True))).sum(1).mean()
    assert_allclose(m.result(), np.float32(expected), loose=10.0)


def test_correlation_functions():
    pearson = np.array([np.corrcoef(T[i], P[i])[0, 1] for i in range(N)], "float32")
    assert_allclose(metrics.pearson_correlation(T, P), pearson, loose=20.0)
    mt, mp = T.mean(-1), P.mean(-1)
    cov = ((T - mt[:, None]) * (P - mp[:, None])).mean(-1)
    ccc = 2 * cov / (T.var(-1) + P.var(-1) + (mt - mp) ** 2)
    assert_allclose(metrics.concordance_correlation(T, P), ccc.astype("float32"), loose=20.0)
    assert_allclose(metrics.concordance_correlation(T, T), np.ones(N, "float32"), loose=20.0)
    cols = np.array([np.corrcoef(T[:, j], P[:, j])[0, 1] for j in range(D)], "float32")
    assert_allclose(metrics.pearson_correlation(T, P, axis=0), cols, loose=20.0)


def test_correlation_metrics_average_over_samples():
    pearson = np.array([np.corrcoef(T[i], P[i])[0, 1] for i in range(N)])
    assert_allclose(_feed(metrics.PearsonCorrelation(), T, P, W), _weighted_mean(pearson, W),
                    loose=20.0)
    mt, mp = T.mean(-1), P.mean(-1)
    cov = ((T - mt[:, None]) * (P - mp[:, None])).mean(-1)
    ccc = 2 * cov / (T.var(-1) + P.var(-1) + (mt - mp) ** 2)
    assert_allclose(_feed(metrics.ConcordanceCorrelation(), T, P, W), _weighted_mean(ccc, W),
                    loose=20.0)


@pytest.mark.parametrize(
    ("aggregation", "multioutput"),
    [("uniform_average", "uniform_average"),
     ("variance_weighted_average", "variance_weighted"),
     (None, "raw_values")],
)
def test_r2_score_vs_sklearn(aggregation, multioutput):
    expected = sk.r2_score(T, P, sample_weight=W, multioutput=multioutput)
    got = _feed(metrics.R2Score(class_aggregation=aggregation), T, P, W)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_r2_score_single_output_and_adjusted():
    got = _feed(metrics.R2Score(), T[:, 0], P[:, 0])
    r2 = sk.r2_score(T[:, 0], P[:, 0])
    np.testing.assert_allclose(got, r2, rtol=1e-4)
    got = _feed(metrics.R2Score(num_regressors=3), T[:, 0], P[:, 0])
    np.testing.assert_allclose(got, 1 - (1 - r2) * (N - 1) / (N - 3 - 1), rtol=1e-4)
    m = metrics.R2Score(num_regressors=5)  # too few samples: left unadjusted
    m.update_state(T[:4, :1], P[:4, :1])
    np.testing.assert_allclose(ops.convert_to_numpy(m.result()),
                               sk.r2_score(T[:4, 0], P[:4, 0]), rtol=1e-4)


def test_builtin_metric_functions_are_the_losses():
    for name in ("mean_squared_error", "binary_crossentropy", "hinge", "kl_divergence",
                 "poisson", "huber", "log_cosh", "categorical_focal_crossentropy"):
        assert getattr(metrics, name) is getattr(losses, name)
