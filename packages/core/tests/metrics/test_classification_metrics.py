"""Classification metrics against NumPy and scikit-learn references, over several weighted
batches. Counts are exact sums (rtol 1e-5); curve areas from thresholds are compared with
an exact NumPy Riemann sum (rtol 1e-4) and with scikit-learn within the sampling error."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import metrics, ops
from lamina.metrics.accuracy import accuracy as accuracy_fn
from lamina.testing import assert_allclose

sk = pytest.importorskip("sklearn.metrics")

RNG = np.random.default_rng(3)
N, C = 40, 4
SCORES = RNG.uniform(0.0, 1.0, (N, C)).astype("float32")
LABELS = RNG.integers(0, C, (N,)).astype("int32")
ONE_HOT = np.eye(C, dtype="float32")[LABELS]
# Binary labels correlated with the scores, so areas are far from 0.5.
BIN = (RNG.uniform(size=(N, C)) < SCORES).astype("float32")
W = RNG.uniform(0.0, 2.0, (N,)).astype("float32")
BATCHES = [slice(0, 15), slice(15, 16), slice(16, 40)]


def _feed(metric, y_true, y_pred, weights=None):
    for s in BATCHES:
        w = None if weights is None else weights[s]
        metric.update_state(y_true[s], y_pred[s], sample_weight=w)
    return ops.convert_to_numpy(metric.result())


# --- accuracy -------------------------------------------------------------------------------
def test_accuracy_family():
    pred_labels = np.argmax(SCORES, -1)
    assert_allclose(_feed(metrics.Accuracy(), LABELS, pred_labels.astype("int32"), W),
                    np.float32(np.average(pred_labels == LABELS, weights=W)))
    expected = np.average(((SCORES > 0.3) == BIN).mean(-1), weights=W)
    got = _feed(metrics.BinaryAccuracy(threshold=0.3), BIN, SCORES, W)
    assert_allclose(got, np.float32(expected))
    hits = (pred_labels == LABELS).astype("float32")
    assert_allclose(_feed(metrics.CategoricalAccuracy(), ONE_HOT, SCORES, W),
                    np.float32(np.average(hits, weights=W)))
    assert_allclose(_feed(metrics.SparseCategoricalAccuracy(), LABELS[:, None], SCORES, W),
                    np.float32(np.average(hits, weights=W)))
    top2 = np.argsort(-SCORES, -1)[:, :2]
    in_top2 = (top2 == LABELS[:, None]).any(-1)
    assert_allclose(_feed(metrics.TopKCategoricalAccuracy(k=2), ONE_HOT, SCORES, W),
                    np.float32(np.average(in_top2, weights=W)))
    assert_allclose(_feed(metrics.SparseTopKCategoricalAccuracy(k=2), LABELS, SCORES, W),
                    np.float32(np.average(in_top2, weights=W)))
    sorted_ids = np.argsort(-SCORES, -1).astype("int32")
    m = metrics.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)
    assert_allclose(_feed(m, LABELS, sorted_ids, W), np.float32(np.average(in_top2, weights=W)))


def test_accuracy_functions():
    assert_allclose(metrics.binary_accuracy(BIN, SCORES), ((SCORES > 0.5) == BIN).astype("float32"))
    assert_allclose(accuracy_fn(LABELS, LABELS[:, None]), np.ones((N, 1), "float32"))
    assert_allclose(metrics.categorical_accuracy(ONE_HOT, SCORES),
                    (np.argmax(SCORES, -1) == LABELS).astype("float32"))
    top3 = (np.argsort(-SCORES, -1)[:, :3] == LABELS[:, None]).any(-1).astype("float32")
    assert_allclose(metrics.top_k_categorical_accuracy(ONE_HOT, SCORES, k=3), top3)
    assert_allclose(metrics.sparse_top_k_categorical_accuracy(LABELS, SCORES, k=3), top3)


# --- confusion counts, precision, recall -------------------------------------------------------
def _np_counts(y_true, y_pred, thresholds, weights):
    w = np.broadcast_to(weights.reshape(-1, *([1] * (y_pred.ndim - 1))), y_pred.shape)
    pos = y_true != 0
    out = {k: [] for k in ("tp", "fp", "tn", "fn")}
    for t in thresholds:
        above = y_pred > t
        out["tp"].append((w * (pos & above)).sum())
        out["fp"].append((w * (~pos & above)).sum())
        out["tn"].append((w * (~pos & ~above)).sum())
        out["fn"].append((w * (pos & ~above)).sum())
    return {k: np.array(v, "float32") for k, v in out.items()}


@pytest.mark.parametrize(
    ("cls", "key"),
    [(metrics.TruePositives, "tp"), (metrics.FalsePositives, "fp"),
     (metrics.TrueNegatives, "tn"), (metrics.FalseNegatives, "fn")],
)
@pytest.mark.parametrize("thresholds", [None, 0.25, [0.1, 0.5, 0.9]])
def test_confusion_counts(cls, key, thresholds):
    ts = [0.5] if thresholds is None else np.atleast_1d(thresholds).tolist()
    expected = _np_counts(BIN, SCORES, ts, W)[key]
    got = _feed(cls(thresholds=thresholds), BIN, SCORES, W)
    assert_allclose(got, expected if isinstance(thresholds, list) else expected[0], loose=10.0)


@pytest.mark.parametrize("thresholds", [None, [0.2, 0.6]])
def test_precision_and_recall_vs_sklearn(thresholds):
    ts = [0.5] if thresholds is None else thresholds
    prec = [sk.precision_score(BIN.ravel(), (t < SCORES).ravel(),
                               sample_weight=np.repeat(W, C)) for t in ts]
    rec = [sk.recall_score(BIN.ravel(), (t < SCORES).ravel(),
                           sample_weight=np.repeat(W, C)) for t in ts]
    got_p = _feed(metrics.Precision(thresholds=thresholds), BIN, SCORES, W)
    got_r = _feed(metrics.Recall(thresholds=thresholds), BIN, SCORES, W)
    shape = slice(None) if thresholds else 0
    assert_allclose(got_p, np.float32(prec)[shape], loose=10.0)
    assert_allclose(got_r, np.float32(rec)[shape], loose=10.0)


def test_precision_recall_class_id_and_top_k():
    cls = 2
    prec = sk.precision_score(BIN[:, cls], SCORES[:, cls] > 0.5, sample_weight=W)
    assert_allclose(_feed(metrics.Precision(class_id=cls), BIN, SCORES, W), np.float32(prec))
    top = np.zeros_like(SCORES, dtype=bool)
    np.put_along_axis(top, np.argsort(-SCORES, -1)[:, :2], True, -1)
    rec = sk.recall_score(BIN.ravel(), top.ravel(), sample_weight=np.repeat(W, C))
    assert_allclose(_feed(metrics.Recall(top_k=2), BIN, SCORES, W), np.float32(rec), loose=10.0)
    both = top[:, cls] & (SCORES[:, cls] > 0.4)
    prec = sk.precision_score(BIN[:, cls], both, sample_weight=W)
    m = metrics.Precision(top_k=2, class_id=cls, thresholds=0.4)
    assert_allclose(_feed(m, BIN, SCORES, W), np.float32(prec), loose=10.0)


def test_precision_is_zero_without_positive_predictions():
    m = metrics.Precision()
    m.update_state([1.0, 0.0], [0.1, 0.2])
    assert float(ops.convert_to_numpy(m.result())) == 0.0


def test_elementwise_sample_weights_in_counts():
    w2 = RNG.uniform(size=(N, C)).astype("float32")
    m = metrics.TruePositives()
    for s in BATCHES:
        m.update_state(BIN[s], SCORES[s], sample_weight=w2[s])
    assert_allclose(m.result(), np.float32((w2 * (BIN > 0) * (SCORES > 0.5)).sum()), loose=10.0)


# --- constrained rates ------------------------------------------------------------------------
def _np_rates(y_true, y_pred, weights, num_thresholds=200):
    ts = [-1e-7] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1 + 1e-7]
    c = _np_counts(y_true, y_pred, ts, weights)
    div = lambda a, b: np.divide(a, b, out=np.zeros_like(a), where=b != 0)  # noqa: E731
    return {
        "recall": div(c["tp"], c["tp"] + c["fn"]),
        "specificity": div(c["tn"], c["tn"] + c["fp"]),
        "precision": div(c["tp"], c["tp"] + c["fp"]),
        **c,
    }


@pytest.mark.parametrize(
    ("cls", "value", "constrained", "maximized"),
    [
        (metrics.SensitivityAtSpecificity, 0.6, "specificity", "recall"),
        (metrics.SpecificityAtSensitivity, 0.7, "recall", "specificity"),
        (metrics.PrecisionAtRecall, 0.5, "recall", "precision"),
        (metrics.RecallAtPrecision, 0.6, "precision", "recall"),
    ],
)
@pytest.mark.parametrize("class_id", [None, 1])
def test_constrained_rates(cls, value, constrained, maximized, class_id):
    y_true, y_pred = (BIN, SCORES) if class_id is None else (BIN[:, 1], SCORES[:, 1])
    r = _np_rates(y_true, y_pred, W)
    expected = np.max(np.where(r[constrained] >= value, r[maximized], 0.0))
    got = _feed(cls(value, class_id=class_id), BIN, SCORES, W)
    assert_allclose(got, np.float32(expected), loose=10.0)


def test_constrained_rates_with_few_thresholds():
    m = metrics.SensitivityAtSpecificity(0.5, num_thresholds=1)
    m.update_state([0, 0, 1, 1], [0.2, 0.7, 0.3, 0.9])
    assert_allclose(m.result(), np.float32(0.5))


# --- AUC ----------------------------------------------------------------------------------
def _np_auc(r, curve, method):
    if curve == "ROC":
        fpr = np.divide(r["fp"], r["fp"] + r["tn"], out=np.zeros_like(r["fp"]),
                        where=(r["fp"] + r["tn"]) != 0)
        x, y = fpr, r["recall"]
    else:
        x, y = r["recall"], r["precision"]
    if method == "interpolation":
        h = (y[:-1] + y[1:]) / 2
    elif method == "minoring":
        h = np.minimum(y[:-1], y[1:])
    else:
        h = np.maximum(y[:-1], y[1:])
    return np.sum((x[:-1] - x[1:]) * h)


@pytest.mark.parametrize("method", ["interpolation", "minoring", "majoring"])
@pytest.mark.parametrize("curve", ["ROC", "PR"])
def test_auc_riemann_sums(curve, method):
    if curve == "PR" and method == "interpolation":
        pytest.skip("the interpolated PR area is checked against scikit-learn below")
    expected = _np_auc(_np_rates(BIN, SCORES, W, 50), curve, method)
    m = metrics.AUC(num_thresholds=50, curve=curve, summation_method=method)
    got = _feed(m, BIN, SCORES, W)
    assert_allclose(got, np.float32(expected), loose=20.0)


def test_auc_roc_vs_sklearn():
    expected = sk.roc_auc_score(BIN.ravel(), SCORES.ravel(), sample_weight=np.repeat(W, C))
    got = _feed(metrics.AUC(num_thresholds=2000), BIN, SCORES, W)
    np.testing.assert_allclose(got, expected, atol=2e-3)


def test_auc_pr_interpolation_vs_sklearn():
    precision, recall, _ = sk.precision_recall_curve(BIN.ravel(), SCORES.ravel())
    expected = sk.auc(recall, precision)
    got = _feed(metrics.AUC(num_thresholds=2000, curve="PR"), BIN, SCORES)
    np.testing.assert_allclose(got, expected, atol=2e-2)


def test_auc_explicit_thresholds_match_comparison_path():
    ts = sorted(RNG.uniform(size=(30,)).tolist())
    m = metrics.AUC(thresholds=ts)
    assert m.num_thresholds == 32 and "thresholds" in m.get_config()
    all_ts = [-1e-7, *ts, 1 + 1e-7]
    c = _np_counts(BIN, SCORES, all_ts, W)
    r = {**c, "recall": c["tp"] / np.maximum(c["tp"] + c["fn"], 1e-30)}
    assert_allclose(_feed(m, BIN, SCORES, W), np.float32(_np_auc(r, "ROC", "interpolation")),
                    loose=20.0)


def test_auc_multi_label_and_label_weights():
    per_label = [sk.roc_auc_score(BIN[:, i], SCORES[:, i]) for i in range(C)]
    m = metrics.AUC(num_thresholds=2000, multi_label=True)
    assert m.variables == []  # built on the first batch
    got = _feed(m, BIN, SCORES)
    assert m.num_labels == C and m.true_positives.shape == (2000, C)
    np.testing.assert_allclose(got, np.mean(per_label), atol=2e-3)
    lw = [1.0, 0.0, 2.0, 1.0]
    m = metrics.AUC(num_thresholds=2000, multi_label=True, num_labels=C, label_weights=lw)
    np.testing.assert_allclose(_feed(m, BIN, SCORES), np.average(per_label, weights=lw), atol=2e-3)
    # Pooled labels with label weights: each label's entries are weighted.
    m = metrics.AUC(num_thresholds=2000, label_weights=lw)
    expected = sk.roc_auc_score(BIN.ravel(), SCORES.ravel(), sample_weight=np.tile(lw, N))
    np.testing.assert_allclose(_feed(m, BIN, SCORES), expected, atol=2e-3)


def test_auc_from_logits():
    logits = np.log(SCORES / (1 - SCORES))
    a = _feed(metrics.AUC(from_logits=True), BIN, logits.astype("float32"))
    b = _feed(metrics.AUC(), BIN, SCORES)
    np.testing.assert_allclose(a, b, atol=1e-4)


def test_auc_of_perfect_and_reversed_scores():
    y = np.array([0, 0, 1, 1], "float32")
    m = metrics.AUC()
    m.update_state(y, np.array([0.1, 0.2, 0.8, 0.9], "float32"))
    assert_allclose(m.result(), np.float32(1.0))
    m.reset_state()
    m.update_state(y, np.array([0.9, 0.8, 0.2, 0.1], "float32"))
    assert_allclose(m.result(), np.float32(0.0))


# --- F-scores ----------------------------------------------------------------------------------
@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
def test_fbeta_vs_sklearn(average, beta):
    predicted = (SCORES > 0.5).astype(int)
    expected = sk.fbeta_score(BIN.astype(int), predicted, beta=beta, average=average,
                              sample_weight=W, zero_division=0)
    got = _feed(metrics.FBetaScore(average=average, beta=beta, threshold=0.5), BIN, SCORES, W)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_f1_with_argmax_predictions_vs_sklearn():
    expected = sk.f1_score(LABELS, np.argmax(SCORES, -1), average="macro", labels=list(range(C)))
    got = _feed(metrics.F1Score(average="macro"), ONE_HOT, SCORES)
    np.testing.assert_allclose(got, expected, rtol=1e-4)
    assert "beta" not in metrics.F1Score().get_config()


# --- IoU -----------------------------------------------------------------------------------
def _np_iou(y_true, y_pred, num_classes, ids, weights=None):
    cm = sk.confusion_matrix(y_true, y_pred, labels=list(range(num_classes)),
                             sample_weight=weights)
    tp = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - tp
    iou = np.divide(tp, union, out=np.zeros(num_classes), where=union != 0)[ids]
    return iou.sum() / max((union[ids] != 0).sum(), 1)


PRED_LABELS = np.argmax(SCORES, -1).astype("int32")


def test_iou_and_mean_iou_vs_sklearn():
    assert_allclose(_feed(metrics.IoU(C, [0, 3]), LABELS, PRED_LABELS, W),
                    np.float32(_np_iou(LABELS, PRED_LABELS, C, [0, 3], W)), loose=10.0)
    assert_allclose(_feed(metrics.MeanIoU(C), LABELS, PRED_LABELS, W),
                    np.float32(sk.jaccard_score(LABELS, PRED_LABELS, average="macro",
                                                sample_weight=W)), loose=10.0)
    assert_allclose(_feed(metrics.OneHotMeanIoU(C), ONE_HOT, SCORES),
                    np.float32(sk.jaccard_score(LABELS, PRED_LABELS, average="macro")), loose=10.0)
    assert_allclose(_feed(metrics.OneHotIoU(C, [1, 2]), ONE_HOT, SCORES),
                    np.float32(_np_iou(LABELS, PRED_LABELS, C, [1, 2])), loose=10.0)
    m = metrics.MeanIoU(C, sparse_y_true=False, sparse_y_pred=False)
    assert_allclose(_feed(m, ONE_HOT, SCORES),
                    np.float32(sk.jaccard_score(LABELS, PRED_LABELS, average="macro")), loose=10.0)


def test_iou_ignore_class_and_absent_classes():
    y_true = np.array([0, 1, 255, 1, 255], "int32")
    y_pred = np.array([0, 1, 1, 0, 0], "int32")
    keep = y_true != 255
    expected = _np_iou(y_true[keep], y_pred[keep], 3, [0, 1, 2])  # class 2 never occurs
    got = _feed(metrics.MeanIoU(3, ignore_class=255), y_true, y_pred)
    assert_allclose(got, np.float32(expected))


def test_binary_iou_vs_sklearn():
    y, p = BIN[:, 0], SCORES[:, 0]
    for ids in ([0, 1], [1]):
        pred = (p > 0.3).astype(int)
        expected = _np_iou(y.astype(int), pred, 2, ids, W)
        got = _feed(metrics.BinaryIoU(target_class_ids=ids, threshold=0.3), y, p, W)
        assert_allclose(got, np.float32(expected), loose=10.0)


def test_iou_segmentation_maps_with_per_pixel_weights():
    y = RNG.integers(0, 3, (2, 5, 5)).astype("int32")
    p = RNG.integers(0, 3, (2, 5, 5)).astype("int32")
    w = RNG.uniform(size=(2, 5, 5)).astype("float32")
    m = metrics.MeanIoU(3)
    m.update_state(y, p, sample_weight=w)
    expected = sk.jaccard_score(y.ravel(), p.ravel(), average="macro", sample_weight=w.ravel())
    assert_allclose(m.result(), np.float32(expected), loose=10.0)
    m = metrics.MeanIoU(3)
    m.update_state(y, p, sample_weight=np.array([1.0, 0.0], "float32"))  # one weight per map
    expected = sk.jaccard_score(y[0].ravel(), p[0].ravel(), average="macro")
    assert_allclose(m.result(), np.float32(expected), loose=10.0)
