"""lamina.activations: values vs NumPy references, arguments, symbolic use, get/serialize.

References are computed in float64 on float32 inputs; comparisons use the float32 row of
`lamina.testing.TOLERANCES` (rtol 1e-5, atol 1e-6), loosened 10x for compositions.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import special

import lamina
from lamina import activations, ops
from lamina.testing import assert_allclose

KERAS_NAMES = [
    "celu", "deserialize", "elu", "exponential", "gelu", "get", "glu", "hard_shrink",
    "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear",
    "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "serialize", "sigmoid",
    "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid",
    "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink", "threshold",
]  # fmt: skip

X = np.array(
    [[-7.0, -3.0, -1.0, -0.5, -0.25, 0.0], [0.25, 0.5, 1.0, 2.5, 3.0, 8.0]], "float32"
)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _sig(x):
    return special.expit(x)


def _softplus(x):
    return np.logaddexp(0.0, x)


def _elu(x, a=1.0):
    return np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


ELEMENTWISE = {
    "relu": (lambda x: np.maximum(x, 0), {}),
    "relu6": (lambda x: np.clip(x, 0, 6), {}),
    "leaky_relu": (lambda x: np.where(x > 0, x, 0.2 * x), {}),
    "elu": (lambda x: _elu(x, 0.5), {"alpha": 0.5}),
    "selu": (lambda x: SELU_SCALE * _elu(x, SELU_ALPHA), {}),
    "celu": (lambda x: np.maximum(x, 0) + np.minimum(0, 2.0 * np.expm1(x / 2.0)), {"alpha": 2.0}),
    "gelu": (lambda x: x * 0.5 * (1 + special.erf(x / np.sqrt(2))), {}),
    "sigmoid": (_sig, {}),
    "hard_sigmoid": (lambda x: np.clip(x + 3, 0, 6) / 6, {}),
    "log_sigmoid": (lambda x: -_softplus(-x), {}),
    "sparse_sigmoid": (lambda x: np.clip((x + 1) / 2, 0, 1), {}),
    "silu": (lambda x: x * _sig(x), {}),
    "swish": (lambda x: x * _sig(x), {}),
    "hard_silu": (lambda x: x * np.clip(x + 3, 0, 6) / 6, {}),
    "hard_swish": (lambda x: x * np.clip(x + 3, 0, 6) / 6, {}),
    "mish": (lambda x: x * np.tanh(_softplus(x)), {}),
    "softplus": (_softplus, {}),
    "softsign": (lambda x: x / (1 + np.abs(x)), {}),
    "sparse_plus": (
        lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)), {},
    ),
    "squareplus": (lambda x: (x + np.sqrt(x**2 + 2.0)) / 2, {"b": 2.0}),
    "tanh": (np.tanh, {}),
    "tanh_shrink": (lambda x: x - np.tanh(x), {}),
    "hard_tanh": (lambda x: np.clip(x, -1, 1), {}),
    "soft_shrink": (
        lambda x: np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0)), {"threshold": 0.3},
    ),
    "hard_shrink": (lambda x: np.where(np.abs(x) > 0.3, x, 0), {"threshold": 0.3}),
    "threshold": (lambda x: np.where(x > 0.5, x, -2.0), {"threshold": 0.5, "default_value": -2.0}),
    "exponential": (np.exp, {}),
    "linear": (lambda x: x, {}),
}  # fmt: skip


def test_every_keras_name_exists():
    assert [n for n in KERAS_NAMES if not hasattr(activations, n)] == []


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_matches_numpy(name):
    ref, kwargs = ELEMENTWISE[name]
    got = getattr(activations, name)(ops.convert_to_tensor(X), **kwargs)
    assert ops.dtype(got) == "float32"
    assert_allclose(got, ref(X.astype("float64")), dtype="float32", loose=10.0)


def test_gelu_approximate_uses_the_tanh_formula():
    x = X.astype("float64")
    want = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    assert_allclose(activations.gelu(X, approximate=True), want, dtype="float32", loose=10.0)


def _relu_ref(x, slope=0.0, cap=None, thr=0.0):
    out = np.where(x > thr, x, slope * (x - thr))
    return out if cap is None else np.minimum(out, cap)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_value": 6.0},
        {"max_value": 2.0},
        {"negative_slope": 0.1},
        {"threshold": 0.5},
        {"negative_slope": 0.1, "threshold": 0.5, "max_value": 2.5},
        {"negative_slope": 0.2, "max_value": 1.0},
    ],
)
def test_relu_arguments(kwargs):
    want = _relu_ref(
        X.astype("float64"),
        kwargs.get("negative_slope", 0.0),
        kwargs.get("max_value"),
        kwargs.get("threshold", 0.0),
    )
    assert_allclose(activations.relu(X, **kwargs), want, dtype="float32")


def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
def test_softmax_and_log_softmax(axis):
    want = _softmax(X.astype("float64"), axis)
    assert_allclose(activations.softmax(X, axis=axis), want, dtype="float32", loose=10.0)
    assert_allclose(
        activations.log_softmax(X, axis=axis), np.log(want), dtype="float32", loose=10.0
    )


def test_softmax_over_a_size_one_axis_warns():
    with pytest.warns(UserWarning, match="size 1"):
        activations.softmax(np.ones((2, 1), "float32"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        activations.softmax(np.ones((2, 3), "float32"))


def test_glu_splits_the_axis():
    a, b = X[:, :3].astype("float64"), X[:, 3:].astype("float64")
    assert_allclose(activations.glu(X), a * _sig(b), dtype="float32")
    with pytest.raises(ValueError, match="even"):
        activations.glu(np.ones((2, 3), "float32"))


def _sparsemax(z):
    out = np.empty_like(z)
    for i, row in enumerate(z):
        s = np.sort(row)[::-1]
        k = np.arange(1, len(s) + 1)
        support = 1 + k * s > np.cumsum(s)
        kz = k[support][-1]
        tau = (np.cumsum(s)[kz - 1] - 1) / kz
        out[i] = np.maximum(row - tau, 0)
    return out


def test_sparsemax_projects_onto_the_simplex():
    x = X / 4
    got = ops.convert_to_numpy(activations.sparsemax(x))
    np.testing.assert_allclose(got, _sparsemax(x.astype("float64")), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0, atol=1e-6)


def test_int_inputs_give_float_outputs():
    got = activations.sigmoid(np.array([0, 1], "int32"))
    assert ops.dtype(got) == lamina.config.floatx()
    assert_allclose(got, _sig(np.array([0.0, 1.0])), dtype="float32")


def test_activations_work_on_symbolic_tensors():
    inputs = lamina.Input((6,))
    for name in ("relu", "softmax", "gelu", "mish", "glu"):
        out = activations.get(name)(inputs)
        assert out.shape[-1] == (3 if name == "glu" else 6)
    assert activations.relu(inputs, max_value=1.0, negative_slope=0.1).shape == inputs.shape


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: activations.relu(X, negative_slope=-1.0), ValueError, "negative_slope"),
        (lambda: activations.relu(X, max_value="6"), TypeError, "max_value"),
        (lambda: activations.relu(X, threshold=None), TypeError, "threshold"),
        (lambda: activations.softmax(X, axis=1.5), TypeError, "axis"),
        (lambda: activations.gelu(X, approximate="yes"), TypeError, "approximate"),
        (lambda: activations.celu(X, alpha=0.0), ValueError, "alpha"),
        (lambda: activations.soft_shrink(X, threshold=-0.1), ValueError, "threshold"),
        (lambda: activations.squareplus(X, b=-1.0), ValueError, "b"),
        (lambda: activations.sparsemax(X, axis=(0, 1)), TypeError, "axis"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --- get / serialize / deserialize --------------------------------------------------------
def test_get_none_is_linear_and_names_resolve():
    assert activations.get(None) is activations.linear
    assert activations.get("swish") is activations.silu
    assert activations.get("hard_swish") is activations.hard_silu
    for name in KERAS_NAMES:
        if name not in ("get", "serialize", "deserialize"):
            assert activations.get(name) is getattr(activations, name)


def test_get_passes_callables_and_rejects_the_rest():
    def custom(x):
        return x * 2

    assert activations.get(custom) is custom
    for bad in ("relux", 3, {"class_name": "NoSuchThing", "config": {}}):
        with pytest.raises(ValueError):
            activations.get(bad)


@pytest.mark.parametrize("name", sorted(n for n in ELEMENTWISE))
def test_serialize_round_trip(name):
    fn = getattr(activations, name)
    config = activations.serialize(fn)
    assert config == fn.__name__
    assert activations.deserialize(config) is fn
    assert activations.get(config) is fn


def scaled_tanh(x):
    return 1.7 * ops.tanh(x)


def test_keras_style_function_config_and_registered_custom_function():
    config = {
        "module": "keras.activations",
        "class_name": "function",
        "config": "relu",
        "registered_name": "relu",
    }
    assert activations.deserialize(config) is activations.relu
    config = activations.serialize(scaled_tanh)
    assert isinstance(config, dict)
    restored = activations.deserialize(config, custom_objects={"scaled_tanh": scaled_tanh})
    assert restored is scaled_tanh
