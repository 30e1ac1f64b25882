"""The `Loss` machinery: reductions, weights, masks, wrappers, configs, `get` and errors."""

from __future__ import annotations

import inspect
import json
import pathlib

import numpy as np
import pytest

import lamina
from lamina import losses, ops
from lamina.losses.loss import get_mask, set_mask
from lamina.testing import assert_allclose

RNG = np.random.default_rng(1)
A = RNG.normal(size=(4, 3)).astype("float32")
B = RNG.normal(size=(4, 3)).astype("float32")
SQ = ((A - B) ** 2).mean(-1)  # per-sample MSE


class Absolute(losses.Loss):
    def call(self, y_true, y_pred):
        return ops.abs(ops.subtract(y_true, y_pred))


def test_subclass_reduces_elementwise_values():
    ref = np.abs(A - B)
    assert_allclose(Absolute()(A, B), ref.mean())
    assert_allclose(Absolute(reduction="sum")(A, B), ref.sum())
    assert_allclose(Absolute(reduction=None)(A, B), ref)
    w = np.array([1.0, 2.0, 0.0, 1.0], "float32")
    assert_allclose(Absolute(reduction="sum")(A, B, sample_weight=w), (ref * w[:, None]).sum())


def test_elementwise_sample_weight():
    w = RNG.uniform(size=(4, 3)).astype("float32")
    got = Absolute(reduction="sum_over_batch_size")(A, B, sample_weight=w)
    assert_allclose(got, (np.abs(A - B) * w).mean())


def test_mean_with_sample_weight_divides_by_the_weights():
    w = np.array([1.0, 3.0, 0.0, 0.0], "float32")
    loss = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    assert_allclose(loss(A, B, sample_weight=w), (SQ * w).sum() / w.sum())
    assert_allclose(loss(A, B), SQ.mean())


def test_labels_of_shape_batch_1_line_up_with_rank_1_predictions():
    t = np.array([[1.0], [0.0], [2.0]], "float32")
    p = np.array([1.5, 0.0, 1.0], "float32")
    assert_allclose(losses.MeanSquaredError()(t, p), np.mean((t[:, 0] - p) ** 2))


def test_scalar_and_empty_values_are_returned_as_they_are():
    out = losses.MeanSquaredError()(np.zeros((0, 3), "float32"), np.zeros((0, 3), "float32"))
    assert tuple(out.shape) == (0,)


def test_sample_weight_must_broadcast():
    with pytest.raises(ValueError, match="sample_weight"):
        losses.MeanSquaredError()(A, B, sample_weight=np.ones((3,), "float32"))


def _masked(x, mask):
    x = ops.convert_to_tensor(x)
    set_mask(x, ops.convert_to_tensor(mask))
    if get_mask(x) is None:
        pytest.skip(f"{lamina.backend.backend()} tensors cannot carry a mask attribute")
    return x


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "mean", "sum", "none"])
def test_mask_on_predictions_excludes_entries(reduction):
    mask = np.array([True, False, True, True])
    pred = _masked(B, mask)
    got = losses.MeanSquaredError(reduction=reduction)(A, pred)
    kept = SQ * mask
    if reduction == "sum":
        assert_allclose(got, kept.sum())
    elif reduction == "none":
        assert_allclose(got, kept)
    else:  # averages over the valid entries only
        assert_allclose(got, SQ[mask].mean())


def test_mask_combines_with_sample_weight():
    mask = np.array([True, True, False, True])
    w = np.array([2.0, 1.0, 5.0, 0.5], "float32")
    got = losses.MeanSquaredError()(A, _masked(B, mask), sample_weight=w)
    # The mask is rescaled by total / valid = 4 / 3 for the averaging reduction.
    assert_allclose(got, (SQ * w * mask * (4 / 3)).sum() / 4)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none"])
def test_ignore_class_masks_entries_on_every_backend(reduction):
    labels = np.array([0, 2, -1, 1], "int32")
    probs = np.full((4, 3), 1 / 3, "float32")
    probs[1] = [0.1, 0.1, 0.8]
    per = -np.log(np.array([1 / 3, 0.8, 1.0, 1 / 3], "float32"))
    per[2] = 0.0
    loss = losses.SparseCategoricalCrossentropy(ignore_class=-1, reduction=reduction)
    got = loss(labels, probs)
    if reduction == "none":
        assert_allclose(got, per)
    elif reduction == "sum":
        assert_allclose(got, per.sum())
    else:
        assert_allclose(got, per.sum() / 3)


@pytest.mark.parametrize(
    "labels",
    [
        [1, 2],
        [[1], [2]],
        np.array([1, 2], "int32"),
        np.array([1.0, 2.0], "float32"),
        "int32 tensor",
    ],
    ids=["list", "nested_list", "numpy_int32", "numpy_float32", "tensor"],
)
def test_sparse_labels_in_any_form_stay_class_indices(labels):
    if isinstance(labels, str):
        labels = ops.convert_to_tensor(np.array([1, 2], "int32"))
    probs = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
    expected = -np.log(np.clip([0.95, 0.1], 1e-7, 1.0)).mean()
    assert_allclose(losses.SparseCategoricalCrossentropy()(labels, probs), expected)


def test_loss_function_wrapper_passes_kwargs_and_names():
    loss = losses.LossFunctionWrapper(losses.huber, delta=0.5, reduction="sum")
    assert loss.name == "huber"
    expected = ops.convert_to_numpy(losses.huber(A, B, delta=0.5)).sum()
    assert_allclose(loss(A, B), expected)
    with pytest.raises(TypeError, match="fn"):
        losses.LossFunctionWrapper(3)


def test_nested_outputs_are_reduced_together():
    loss = losses.LossFunctionWrapper(
        lambda t, p: ops.add(
            ops.sum(ops.square(t[0] - p[0]), -1), ops.sum(ops.abs(t[1] - p[1]), -1)
        )
    )
    got = loss((A, A), (B, B))
    assert_allclose(got, (((A - B) ** 2).sum(-1) + np.abs(A - B).sum(-1)).mean())


def test_dtype_and_policy():
    assert losses.MeanSquaredError(dtype="float64").dtype == "float64"
    out = losses.MeanSquaredError(dtype="float16")(A, B)
    assert ops.dtype(out) == "float16"
    assert_allclose(out, SQ.mean().astype("float16"))
    policy = lamina.dtype_policies.DTypePolicy("mixed_float16")
    assert losses.MeanSquaredError(dtype=policy).dtype == "float16"


def _all_classes():
    return [
        obj
        for obj in losses.ALL_OBJECTS
        if inspect.isclass(obj) and obj not in (losses.Loss, losses.LossFunctionWrapper)
    ]


@pytest.mark.parametrize("cls", _all_classes(), ids=lambda c: c.__name__)
def test_config_round_trip(cls):
    loss = cls(reduction="sum", name="custom_name")
    config = loss.get_config()
    assert config["reduction"] == "sum" and config["name"] == "custom_name"
    clone = cls.from_config(config)
    assert clone.get_config() == config
    again = losses.deserialize(losses.serialize(loss))
    assert type(again) is cls and again.get_config() == config


def test_config_round_trip_keeps_arguments():
    loss = losses.CategoricalFocalCrossentropy(alpha=[0.1, 0.2], gamma=3.0, label_smoothing=0.1)
    clone = losses.deserialize(losses.serialize(loss))
    assert clone.get_config()["alpha"] == [0.1, 0.2] and clone.gamma == 3.0
    wrapper = losses.LossFunctionWrapper(losses.huber, delta=0.25, name="h")
    clone = losses.deserialize(losses.serialize(wrapper))
    assert clone.fn is losses.huber and clone._fn_kwargs == {"delta": 0.25}
    assert_allclose(clone(A, B), ops.convert_to_numpy(wrapper(A, B)))


def test_get_resolves_names_configs_and_callables():
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("mean_absolute_error") is losses.mean_absolute_error
    assert isinstance(losses.get("Huber"), losses.Huber)
    assert isinstance(losses.get(losses.Huber), losses.Huber)
    huber = losses.Huber(delta=2.0)
    assert losses.get(huber) is huber
    assert losses.get(losses.serialize(huber)).delta == 2.0
    assert losses.get(None) is None
    assert losses.deserialize("kld") is losses.kl_divergence
    with pytest.raises(ValueError, match="identifier"):
        losses.get("not_a_loss")
    with pytest.raises(ValueError, match="identifier"):
        losses.get(3)


def test_function_serialization_round_trip():
    assert losses.deserialize(losses.serialize(losses.hinge)) is losses.hinge


def _keras_names(namespace):
    path = pathlib.Path("/work/shared/api/keras-3.15-public-names.json")
    if not path.exists():
        pytest.skip("the Keras public-name list is not available here")
    return json.loads(path.read_text())[namespace]


def test_every_keras_loss_name_exists():
    names = _keras_names("losses")
    assert [n for n in names if not hasattr(losses, n)] == []


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: losses.MeanSquaredError(reduction="avg"), ValueError, "reduction"),
        (lambda: losses.MeanSquaredError(name=3), TypeError, "name"),
        (lambda: losses.Huber(delta=-1.0), ValueError, "delta"),
        (lambda: losses.Huber(delta="1"), TypeError, "delta"),
        (lambda: losses.BinaryCrossentropy(from_logits=1), TypeError, "from_logits"),
        (lambda: losses.BinaryCrossentropy(label_smoothing=1.5), ValueError, "label_smoothing"),
        (lambda: losses.CategoricalCrossentropy(axis=1.0), TypeError, "axis"),
        (lambda: losses.BinaryFocalCrossentropy(alpha=2.0), ValueError, "alpha"),
        (lambda: losses.BinaryFocalCrossentropy(gamma=-1.0), ValueError, "gamma"),
        (lambda: losses.CategoricalFocalCrossentropy(alpha=[0.1, -1.0]), ValueError, "alpha"),
        (lambda: losses.SparseCategoricalCrossentropy(ignore_class=0.5), TypeError, "ignore_class"),
        (lambda: losses.CategoricalGeneralizedCrossEntropy(q=1.0), ValueError, "q"),
        (lambda: losses.CosineSimilarity(axis="x"), TypeError, "axis"),
        (lambda: losses.Dice(axis=[1.5]), TypeError, "axis"),
        (lambda: losses.Tversky(alpha=-0.1), ValueError, "alpha"),
        (lambda: losses.Circle(remove_diagonal="yes"), TypeError, "remove_diagonal"),
        (lambda: losses.Circle(gamma=-2.0), ValueError, "gamma"),
    ],
)
def test_bad_arguments_are_rejected(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_single_class_categorical_crossentropy_warns():
    with pytest.warns(UserWarning, match="binary_crossentropy"):
        losses.categorical_crossentropy([[1.0]], [[0.7]])
