"""The `Metric` machinery for every built-in metric: multi-batch state, reset, the stateless
API, configs, `get`/`serialize`/`deserialize` and argument errors."""

from __future__ import annotations

import inspect
import json
import pathlib

import numpy as np
import pytest

import lamina
from lamina import metrics, ops
from lamina.losses.loss import get_mask, set_mask
from lamina.testing import assert_allclose

RNG = np.random.default_rng(2)
N, C = 6, 3
PROBS = RNG.uniform(0.01, 0.99, (N, C)).astype("float32")
SOFT = (PROBS / PROBS.sum(-1, keepdims=True)).astype("float32")
LABELS = RNG.integers(0, C, (N,)).astype("int32")
ONE_HOT = np.eye(C, dtype="float32")[LABELS]
BIN = (RNG.uniform(size=(N, C)) > 0.5).astype("float32")
REG_T = RNG.normal(size=(N, C)).astype("float32")
REG_P = RNG.normal(size=(N, C)).astype("float32")
POS_T, POS_P = np.abs(REG_T) + 0.1, np.abs(REG_P) + 0.1
SW = RNG.uniform(0.0, 2.0, (N,)).astype("float32")

# (factory, y_true, y_pred): one representative batch per built-in metric class.
CASES = {
    "Accuracy": (metrics.Accuracy, LABELS, np.roll(LABELS, 1)),
    "BinaryAccuracy": (metrics.BinaryAccuracy, BIN, PROBS),
    "CategoricalAccuracy": (metrics.CategoricalAccuracy, ONE_HOT, PROBS),
    "SparseCategoricalAccuracy": (metrics.SparseCategoricalAccuracy, LABELS, PROBS),
    "TopKCategoricalAccuracy": (lambda: metrics.TopKCategoricalAccuracy(k=2), ONE_HOT, PROBS),
    "SparseTopKCategoricalAccuracy": (
        lambda: metrics.SparseTopKCategoricalAccuracy(k=2), LABELS, PROBS),
    "AUC": (metrics.AUC, BIN, PROBS),
    "TruePositives": (metrics.TruePositives, BIN, PROBS),
    "FalsePositives": (lambda: metrics.FalsePositives(thresholds=[0.3, 0.6]), BIN, PROBS),
    "TrueNegatives": (metrics.TrueNegatives, BIN, PROBS),
    "FalseNegatives": (metrics.FalseNegatives, BIN, PROBS),
    "Precision": (lambda: metrics.Precision(thresholds=[0.2, 0.5]), BIN, PROBS),
    "Recall": (lambda: metrics.Recall(top_k=2), BIN, PROBS),
    "PrecisionAtRecall": (lambda: metrics.PrecisionAtRecall(0.5), BIN, PROBS),
    "RecallAtPrecision": (lambda: metrics.RecallAtPrecision(0.5), BIN, PROBS),
    "SensitivityAtSpecificity": (lambda: metrics.SensitivityAtSpecificity(0.5), BIN, PROBS),
    "SpecificityAtSensitivity": (lambda: metrics.SpecificityAtSensitivity(0.5), BIN, PROBS),
    "F1Score": (lambda: metrics.F1Score(average="macro"), ONE_HOT, PROBS),
    "FBetaScore": (lambda: metrics.FBetaScore(beta=2.0, threshold=0.4), BIN, PROBS),
    "IoU": (lambda: metrics.IoU(3, [0, 2]), LABELS, np.roll(LABELS, 2)),
    "MeanIoU": (lambda: metrics.MeanIoU(3), LABELS, np.roll(LABELS, 1)),
    "BinaryIoU": (metrics.BinaryIoU, BIN, PROBS),
    "OneHotIoU": (lambda: metrics.OneHotIoU(3, [1, 2]), ONE_HOT, PROBS),
    "OneHotMeanIoU": (lambda: metrics.OneHotMeanIoU(3), ONE_HOT, PROBS),
    "R2Score": (metrics.R2Score, REG_T, REG_P),
    "MeanSquaredError": (metrics.MeanSquaredError, REG_T, REG_P),
    "RootMeanSquaredError": (metrics.RootMeanSquaredError, REG_T, REG_P),
    "MeanAbsoluteError": (metrics.MeanAbsoluteError, REG_T, REG_P),
    "MeanAbsolutePercentageError": (metrics.MeanAbsolutePercentageError, REG_T, REG_P),
    "MeanSquaredLogarithmicError": (metrics.MeanSquaredLogarithmicError, POS_T, POS_P),
    "CosineSimilarity": (metrics.CosineSimilarity, REG_T, REG_P),
    "LogCoshError": (metrics.LogCoshError, REG_T, REG_P),
    "ConcordanceCorrelation": (metrics.ConcordanceCorrelation, REG_T, REG_P),
    "PearsonCorrelation": (metrics.PearsonCorrelation, REG_T, REG_P),
    "BinaryCrossentropy": (metrics.BinaryCrossentropy, BIN, PROBS),
    "CategoricalCrossentropy": (metrics.CategoricalCrossentropy, ONE_HOT, SOFT),
    "SparseCategoricalCrossentropy": (metrics.SparseCategoricalCrossentropy, LABELS, SOFT),
    "KLDivergence": (metrics.KLDivergence, ONE_HOT, SOFT),
    "Poisson": (metrics.Poisson, POS_T, POS_P),
    "Hinge": (metrics.Hinge, BIN, REG_P),
    "SquaredHinge": (metrics.SquaredHinge, BIN, REG_P),
    "CategoricalHinge": (metrics.CategoricalHinge, ONE_HOT, REG_P),
    "MeanMetricWrapper": (
        lambda: metrics.MeanMetricWrapper(metrics.mean_squared_error), REG_T, REG_P),
}
ABSTRACT = {"Metric", "Mean", "Sum"}


def _np(x):
    return ops.convert_to_numpy(x)


def test_every_class_has_a_case():
    names = {cls.__name__ for cls in metrics.ALL_OBJECTS}
    assert names - ABSTRACT == set(CASES)


def test_every_keras_metric_name_exists():
    path = pathlib.Path("/work/shared/api/keras-3.15-public-names.json")
    if not path.exists():
        pytest.skip("the Keras public-name list is not available here")
    names = json.loads(path.read_text())["metrics"]
    assert [n for n in names if not hasattr(metrics, n)] == []
    # Function names must not be shadowed by submodules of the same name.
    lower = [n for n in names if n[0].islower()]
    assert [n for n in lower if not inspect.isfunction(getattr(metrics, n))] == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_batches_accumulate_and_reset(name):
    make, y_true, y_pred = CASES[name]
    whole, split = make(), make()
    whole.update_state(y_true, y_pred)
    split.update_state(y_true[:3], y_pred[:3])
    split.update_state(y_true[3:], y_pred[3:])
    if name not in ("ConcordanceCorrelation", "PearsonCorrelation"):  # per-row statistics
        assert_allclose(split.result(), _np(whole.result()), loose=20.0)
    first = _np(split.result())
    split.reset_state()
    for v in split.variables:
        assert not np.any(v.numpy())
    split.update_state(y_true, y_pred)
    assert_allclose(split.result(), _np(whole.result()), loose=20.0)
    assert np.all(np.isfinite(first))


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_weight_of_ones_changes_nothing_and_zeros_drop_rows(name):
    make, y_true, y_pred = CASES[name]
    plain, ones, dropped, kept = make(), make(), make(), make()
    plain.update_state(y_true, y_pred)
    ones.update_state(y_true, y_pred, sample_weight=np.ones((N,), "float32"))
    assert_allclose(ones.result(), _np(plain.result()), loose=20.0)
    if name in ("Accuracy",):  # pairs of rows matter only through equality; still valid
        pass
    w = np.array([1, 1, 1, 0, 0, 0], "float32")
    dropped.update_state(y_true, y_pred, sample_weight=w)
    kept.update_state(y_true[:3], y_pred[:3])
    if name in ("R2Score",):  # num_samples counts every row, by design
        return
    assert_allclose(dropped.result(), _np(kept.result()), loose=20.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_stateless_update_matches_update_state(name):
    make, y_true, y_pred = CASES[name]
    stateful, stateless = make(), make()
    # Metrics that read their sizes from the data build on the first batch.
    stateful.update_state(y_true[:2], y_pred[:2], sample_weight=SW[:2])
    stateless.update_state(y_true[:2], y_pred[:2], sample_weight=SW[:2])
    before = [v.numpy().copy() for v in stateless.variables]
    values = [v.value for v in stateless.variables]
    new_values = stateless.stateless_update_state(values, y_true, y_pred, sample_weight=SW)
    for v, old in zip(stateless.variables, before):
        np.testing.assert_array_equal(v.numpy(), old)  # nothing was mutated
    stateful.update_state(y_true, y_pred, sample_weight=SW)
    for new, v in zip(new_values, stateful.variables):
        assert_allclose(new, v.numpy(), loose=20.0)
    assert_allclose(stateless.stateless_result(new_values), _np(stateful.result()), loose=20.0)
    reset = stateless.stateless_reset_state()
    assert all(not np.any(_np(r)) for r in reset)


def test_stateless_update_state_checks_the_number_of_values():
    m = metrics.Mean()
    with pytest.raises(ValueError, match="metric_variables"):
        m.stateless_update_state([m.total.value], [1.0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_config_round_trip(name):
    make = CASES[name][0]
    metric = make()
    config = metric.get_config()
    assert config["name"] == metric.name and config["dtype"] == metric.dtype
    clone = type(metric).from_config(config)
    assert clone.get_config() == config
    again = metrics.deserialize(json.loads(json.dumps(metrics.serialize(metric))))
    assert type(again) is type(metric) and again.get_config() == config
    # A rebuilt metric computes the same thing.
    _, y_true, y_pred = CASES[name]
    metric.update_state(y_true, y_pred)
    again.update_state(y_true, y_pred)
    assert_allclose(again.result(), _np(metric.result()))


@pytest.mark.requires(lamina.backend.Capability.JIT)
def test_stateless_update_under_jit():
    backend = lamina.backend.backend()
    if backend != "jax":
        pytest.skip("jit-compiling a stateless metric step is exercised through JAX")
    import jax

    metric = metrics.AUC(num_thresholds=50)
    ref = metrics.AUC(num_thresholds=50)

    @jax.jit
    def step(values, y_true, y_pred):
        values = metric.stateless_update_state(values, y_true, y_pred)
        return values, metric.stateless_result(values)

    values = [v.value for v in metric.variables]
    for lo, hi in ((0, 3), (3, 6)):
        values, result = step(values, BIN[lo:hi], PROBS[lo:hi])
        ref.update_state(BIN[lo:hi], PROBS[lo:hi])
    assert_allclose(result, _np(ref.result()), loose=10.0)


def test_metric_base_class_contract():
    class Counter(metrics.Metric):
        def __init__(self, name=None, dtype=None):
            super().__init__(name=name, dtype=dtype)
            self.n = self.add_variable((), "zeros", name="n")
            self.inner = metrics.Sum(name="inner")

        def update_state(self, values):
            self.n.assign_add(ops.cast(ops.size(values), self.dtype))
            self.inner.update_state(values)

        def result(self):
            return ops.divide(self.inner.result(), self.n.value)

    m = Counter(name="counter")
    assert [v.path for v in m.variables] == ["counter/n", "inner/total"]
    assert_allclose(m([1.0, 2.0, 6.0]), np.float32(3.0))
    assert m.name == "counter" and "counter" in repr(m)
    m.reset_state()
    assert m.n.numpy() == 0 and m.inner.total.numpy() == 0

    class Broken(metrics.Metric):
        def __init__(self):
            self.add_variable((), "zeros")

    with pytest.raises(RuntimeError, match="super"):
        Broken()
    with pytest.raises(NotImplementedError):
        metrics.Metric().update_state(1.0)
    with pytest.raises(TypeError, match="initializer"):
        metrics.Sum().add_variable((), 3)


def test_sum_and_mean_with_weights_and_higher_rank_values():
    values = np.array([[1.0, 3.0], [5.0, 7.0], [2.0, 2.0]], "float32")
    w = np.array([1.0, 0.0, 2.0], "float32")
    s, m = metrics.Sum(), metrics.Mean()
    s.update_state(values, sample_weight=w)
    m.update_state(values, sample_weight=w)
    # Per-sample values are the row means (Mean) or row sums (Sum), then weighted.
    assert_allclose(s.result(), np.float32(4 * 1 + 10 * 0 + 4 * 2))
    assert_allclose(m.result(), np.float32((2 * 1 + 2 * 2) / 3))
    m.update_state(10.0)
    assert_allclose(m.result(), np.float32((2 + 4 + 10) / 4))
    m.update_state(values, sample_weight=values)  # element-wise weights
    expected_total = 16 + (values * values).mean(-1).sum()
    expected_count = 4 + values.mean(-1).sum()
    assert_allclose(m.result(), np.float32(expected_total / expected_count))


def test_mean_metric_wrapper_passes_kwargs_masks_and_configs():
    m = metrics.MeanMetricWrapper(metrics.binary_accuracy, threshold=0.7)
    assert m.name == "binary_accuracy"
    m.update_state([[1.0], [1.0]], [[0.6], [0.8]])
    assert_allclose(m.result(), np.float32(0.5))
    clone = metrics.deserialize(metrics.serialize(m))
    assert clone._fn is metrics.binary_accuracy and clone._fn_kwargs == {"threshold": 0.7}
    with pytest.raises(TypeError, match="fn"):
        metrics.MeanMetricWrapper("mse")
    pred = ops.convert_to_tensor(np.array([[0.0], [5.0], [1.0]], "float32"))
    set_mask(pred, ops.convert_to_tensor([True, False, True]))
    if get_mask(pred) is None:
        return  # this backend's tensors cannot carry a mask
    mse = metrics.MeanSquaredError()
    mse.update_state(np.zeros((3, 1), "float32"), pred)
    assert_allclose(mse.result(), np.float32(0.5))


def test_get_resolves_names_configs_classes_and_callables():
    assert isinstance(metrics.get("mse"), metrics.MeanSquaredError)
    assert isinstance(metrics.get("AUC"), metrics.AUC)
    assert isinstance(metrics.get("binary_accuracy"), metrics.BinaryAccuracy)
    assert isinstance(metrics.get(metrics.Precision), metrics.Precision)
    auc = metrics.AUC(curve="PR")
    assert metrics.get(auc) is auc
    assert metrics.get(metrics.serialize(auc)).curve == "PR"
    assert metrics.get(metrics.binary_accuracy) is metrics.binary_accuracy
    assert metrics.get(None) is None
    assert metrics.deserialize(metrics.serialize(metrics.pearson_correlation)) is (
        metrics.pearson_correlation
    )
    for bad in ("not_a_metric", 3):
        with pytest.raises(ValueError, match="identifier"):
            metrics.get(bad)


def test_compile_utils_names_exist():
    for name in (
        "get", "Metric", "MeanMetricWrapper", "Mean", "BinaryAccuracy", "CategoricalAccuracy",
        "SparseCategoricalAccuracy", "BinaryCrossentropy", "CategoricalCrossentropy",
        "SparseCategoricalCrossentropy",
    ):
        assert hasattr(metrics, name)
    assert inspect.isclass(metrics.Metric)


def test_direction_hints():
    assert metrics.AUC()._direction == "up" and metrics.MeanSquaredError()._direction == "down"
    assert metrics.MeanMetricWrapper(lamina.losses.mean_squared_error)._direction == "down"


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: metrics.Mean(name=5), TypeError, "name"),
        (lambda: metrics.BinaryAccuracy(threshold=1.5), ValueError, "threshold"),
        (lambda: metrics.TopKCategoricalAccuracy(k=0), ValueError, "k"),
        (lambda: metrics.SparseTopKCategoricalAccuracy(from_sorted_ids=1), TypeError,
         "from_sorted_ids"),
        (lambda: metrics.Precision(thresholds=1.5), ValueError, "thresholds"),
        (lambda: metrics.Recall(thresholds=["a"]), TypeError, "thresholds"),
        (lambda: metrics.Precision(top_k=0), ValueError, "top_k"),
        (lambda: metrics.Recall(class_id=-1), ValueError, "class_id"),
        (lambda: metrics.TruePositives(thresholds=[]), ValueError, "thresholds"),
        (lambda: metrics.SensitivityAtSpecificity(1.5), ValueError, "specificity"),
        (lambda: metrics.PrecisionAtRecall(0.5, num_thresholds=0), ValueError,
         "num_thresholds"),
        (lambda: metrics.RecallAtPrecision("high"), TypeError, "precision"),
        (lambda: metrics.AUC(num_thresholds=1), ValueError, "num_thresholds"),
        (lambda: metrics.AUC(curve="XY"), ValueError, "curve"),
        (lambda: metrics.AUC(summation_method="sum"), ValueError, "summation_method"),
        (lambda: metrics.AUC(multi_label="yes"), TypeError, "multi_label"),
        (lambda: metrics.AUC(label_weights=[1.0, -1.0]), ValueError, "label_weights"),
        (lambda: metrics.AUC(multi_label=True, num_labels=3, label_weights=[1.0]), ValueError,
         "label_weights"),
        (lambda: metrics.FBetaScore(average="median"), ValueError, "average"),
        (lambda: metrics.FBetaScore(beta=0.0), ValueError, "beta"),
        (lambda: metrics.F1Score(threshold=0.0), ValueError, "threshold"),
        (lambda: metrics.IoU(0, [0]), ValueError, "num_classes"),
        (lambda: metrics.IoU(2, [2]), ValueError, "target_class_ids"),
        (lambda: metrics.IoU(2, []), TypeError, "target_class_ids"),
        (lambda: metrics.MeanIoU(2, sparse_y_true="no"), TypeError, "sparse_y_true"),
        (lambda: metrics.R2Score(class_aggregation="max"), ValueError, "class_aggregation"),
        (lambda: metrics.R2Score(num_regressors=-1), ValueError, "num_regressors"),
        (lambda: metrics.CosineSimilarity(axis=0.5), TypeError, "axis"),
        (lambda: metrics.PearsonCorrelation(axis="x"), TypeError, "axis"),
        (lambda: metrics.BinaryCrossentropy(from_logits="no"), TypeError, "from_logits"),
        (lambda: metrics.CategoricalCrossentropy(label_smoothing=2.0), ValueError,
         "label_smoothing"),
    ],
)
def test_bad_arguments_are_rejected(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError, match="2-D"):
        metrics.F1Score().update_state(np.ones((4,), "float32"), np.ones((4,), "float32"))
    with pytest.raises(ValueError, match="shape"):
        metrics.R2Score().update_state(np.ones((4, 2), "float32"), np.ones((4, 3), "float32"))
    with pytest.raises(ValueError, match="shape"):
        metrics.MeanIoU(2).update_state(np.ones((4,), "int32"), np.ones((3,), "int32"))
    auc = metrics.AUC(multi_label=True, num_labels=2)
    with pytest.raises(ValueError, match="num_labels"):
        auc.update_state(np.ones((4, 3), "float32"), np.ones((4, 3), "float32"))
