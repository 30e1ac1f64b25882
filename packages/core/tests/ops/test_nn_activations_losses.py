"""Cross-entropy losses and PSNR against NumPy: values, specs, promotion, errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import config, ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(1)
LOGITS = RNG.normal(size=(4, 3)).astype("float32") * 2
PROBS = special.softmax(LOGITS.astype("float64"), axis=-1).astype("float32")
LABELS = np.array([0, 2, 1, 2], dtype="int32")
ONE_HOT = np.eye(3, dtype="float32")[LABELS]
BIN_TARGET = (RNG.uniform(size=(4, 3)) > 0.5).astype("float32")


def _clip(p):
    eps = config.epsilon()
    return np.clip(p, eps, 1 - eps)


def _bce(t, o, from_logits):
    if from_logits:
        return -(t * -np.logaddexp(0, -o) + (1 - t) * -np.logaddexp(0, o))
    p = _clip(o)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def _cce(t, o, from_logits, axis=-1):
    if from_logits:
        logp = special.log_softmax(o, axis=axis)
    else:
        logp = np.log(_clip(o / o.sum(axis=axis, keepdims=True)))
    return -(t * logp).sum(axis=axis)


@pytest.mark.parametrize("from_logits", [False, True])
def test_binary_crossentropy_matches_numpy(from_logits):
    out = BIN_TARGET, LOGITS if from_logits else PROBS
    got = ops.binary_crossentropy(*out, from_logits=from_logits)
    assert (ops.dtype(got), tuple(got.shape)) == ("float32", (4, 3))
    assert_allclose(got, _bce(out[0].astype("float64"), out[1].astype("float64"), from_logits))


def test_binary_crossentropy_clips_with_config_epsilon():
    target = np.array([1.0, 0.0, 1.0], "float32")
    output = np.array([0.0, 1.0, 1.0], "float32")
    assert_allclose(ops.binary_crossentropy(target, output), _bce(target, output, False), loose=10)


@pytest.mark.parametrize(("from_logits", "axis"), [(False, -1), (True, -1), (True, 0), (False, 0)])
def test_categorical_crossentropy_matches_numpy(from_logits, axis):
    output = LOGITS if from_logits else PROBS
    got = ops.categorical_crossentropy(ONE_HOT, output, from_logits=from_logits, axis=axis)
    assert ops.dtype(got) == "float32"
    expected = _cce(ONE_HOT.astype("float64"), output.astype("float64"), from_logits, axis)
    assert_allclose(got, expected)


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_categorical_crossentropy_matches_numpy(from_logits):
    output = LOGITS if from_logits else PROBS
    expected = _cce(ONE_HOT.astype("float64"), output.astype("float64"), from_logits)
    got = ops.sparse_categorical_crossentropy(LABELS, output, from_logits=from_logits)
    assert (ops.dtype(got), tuple(got.shape)) == ("float32", (4,))
    assert_allclose(got, expected)
    # A trailing size-1 label dim is dropped; float labels are cast to ints.
    assert_allclose(
        ops.sparse_categorical_crossentropy(LABELS[:, None], output, from_logits), expected
    )
    assert_allclose(
        ops.sparse_categorical_crossentropy(LABELS.astype("float32"), output, from_logits), expected
    )


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_categorical_crossentropy_gives_0_for_labels_out_of_range(from_logits):
    output = LOGITS if from_logits else PROBS
    expected = _cce(ONE_HOT.astype("float64"), output.astype("float64"), from_logits)
    labels = LABELS.copy()
    labels[1], labels[2] = -1, output.shape[-1]  # one below the classes, one above
    got = ops.sparse_categorical_crossentropy(labels, output, from_logits=from_logits)
    assert_allclose(got, np.where([True, False, False, True], expected, 0.0))
    # The same with a time axis: (batch, steps, classes) and labels (batch, steps).
    got = ops.sparse_categorical_crossentropy(
        np.stack([labels, LABELS]), np.stack([output, output]), from_logits=from_logits
    )
    assert_allclose(got, np.stack([np.where([True, False, False, True], expected, 0.0), expected]))


def test_sparse_categorical_crossentropy_on_axis_0():
    got = ops.sparse_categorical_crossentropy(LABELS, LOGITS.T, from_logits=True, axis=0)
    expected = _cce(ONE_HOT.T.astype("float64"), LOGITS.T.astype("float64"), True, axis=0)
    assert_allclose(got, expected)


@pytest.mark.parametrize(
    ("t", "o"),
    [
        pytest.param("int32", "float16", marks=pytest.mark.half_precision),
        ("float16", "float32"),
        pytest.param("bool", "bfloat16", marks=pytest.mark.half_precision),
        ("int8", "int8"),
    ],
)
def test_crossentropy_promotes_by_the_shared_lattice(t, o):
    expected = dtypes.result_type(t, o)
    expected = expected if expected in dtypes.FLOATS else "float32"
    target = ONE_HOT.astype(t)
    output = PROBS.astype(o) if o in dtypes.FLOATS else (ONE_HOT + 1).astype(o)
    assert ops.dtype(ops.binary_crossentropy(target, output)) == expected
    assert ops.dtype(ops.categorical_crossentropy(target, output)) == expected
    spec = ops.categorical_crossentropy(
        lamina.KerasTensor((None, 3), t), lamina.KerasTensor((None, 3), o)
    )
    assert (spec.shape, spec.dtype) == ((None,), expected)


def test_loss_symbolic_specs():
    t, o = lamina.KerasTensor((None, 5, 3), "float16"), lamina.KerasTensor((2, None, 3), "float16")
    bce = ops.binary_crossentropy(t, o)
    assert (bce.shape, bce.dtype) == ((2, 5, 3), "float16")
    cce = ops.categorical_crossentropy(t, o, axis=1)
    assert (cce.shape, cce.dtype) == ((2, 3), "float16")
    scce = ops.sparse_categorical_crossentropy(lamina.KerasTensor((None, 5, 1), "int32"), o)
    assert (scce.shape, scce.dtype) == ((2, 5), "float16")
    p = ops.psnr(lamina.KerasTensor((None, 8, 8, 3)), lamina.KerasTensor((None, 8, 8, 3)), 1.0)
    assert (p.shape, p.dtype) == ((), "float32")


def test_psnr_matches_numpy():
    x1 = RNG.uniform(size=(2, 8, 8, 3)).astype("float32")
    x2 = RNG.uniform(size=(2, 8, 8, 3)).astype("float32")
    mse = np.mean((x1.astype("float64") - x2) ** 2)
    for max_val in (1.0, 255):
        got = ops.psnr(x1, x2, max_val)
        assert (ops.dtype(got), tuple(got.shape)) == ("float32", ())
        assert_allclose(got, 20 * np.log10(max_val) - 10 * np.log10(mse))
    ints = ops.psnr(np.full((4,), 10, "uint8"), np.full((4,), 12, "uint8"), 255)
    assert ops.dtype(ints) == "float32"
    assert_allclose(ints, 20 * np.log10(255) - 10 * np.log10(4.0))


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: ops.binary_crossentropy(PROBS, PROBS[:, :2]), ValueError, "binary_crossentropy"),
        (
            lambda: ops.binary_crossentropy(PROBS, PROBS, from_logits="no"),
            TypeError,
            "binary_crossentropy",
        ),
        (
            lambda: ops.categorical_crossentropy(ONE_HOT, PROBS[:2]),
            ValueError,
            "categorical_crossentropy",
        ),
        (
            lambda: ops.categorical_crossentropy(ONE_HOT, PROBS, axis=2),
            ValueError,
            "categorical_crossentropy",
        ),
        (
            lambda: ops.categorical_crossentropy(ONE_HOT.astype("complex64"), PROBS),
            TypeError,
            "categorical_crossentropy",
        ),
        (
            lambda: ops.sparse_categorical_crossentropy(LABELS[:3], PROBS),
            ValueError,
            "sparse_categorical_crossentropy",
        ),
        (
            lambda: ops.sparse_categorical_crossentropy(
                lamina.KerasTensor((None, 2), "int32"), lamina.KerasTensor((None, 3))
            ),
            ValueError,
            "sparse_categorical_crossentropy",
        ),
        (
            lambda: ops.sparse_categorical_crossentropy(LABELS, np.float32(1.0)),
            ValueError,
            "sparse_categorical_crossentropy",
        ),
        (lambda: ops.psnr(PROBS, PROBS[:2], 1.0), ValueError, "psnr"),
        (lambda: ops.psnr(PROBS, PROBS, 0.0), ValueError, "psnr"),
        (lambda: ops.psnr(PROBS, PROBS, "1"), TypeError, "psnr"),
    ],
)
def test_loss_errors(call, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        call()
