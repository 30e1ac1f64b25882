"""Composites: written once in core, overridden by a backend's own kernel where it has one."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from lamina import ops
from lamina.backend.protocols import (
    control_flow,
    image,
    linalg,
    math,
    nn_activations,
    nn_conv,
    numpy_creation,
    numpy_elementwise,
    numpy_linear,
    numpy_reduction,
    numpy_shape,
)
from lamina.ops import composites
from lamina.ops.dispatch import backend
from lamina.testing import assert_allclose

RNG = np.random.default_rng(7)

_PROTOCOLS = {
    "control_flow": [control_flow.ControlFlowOps],
    "image": [image.ImageOps],
    "linalg": [linalg.LinalgOps],
    "math": [math.MathOps],
    "nn": [nn_activations.NNActivationOps, nn_conv.NNConvOps],
    "numpy": [
        numpy_creation.NumpyCreationOps,
        numpy_elementwise.NumpyElementwiseOps,
        numpy_linear.NumpyLinearOps,
        numpy_reduction.NumpyReductionOps,
        numpy_shape.NumpyShapeOps,
    ],
}


def _composite_names(space):
    module = composites._MODULES[space]
    return [
        name
        for name, fn in vars(module).items()
        if inspect.isfunction(fn)
        and not name.startswith("_")
        and fn.__module__.startswith("lamina.ops.composites")
    ]


@pytest.mark.parametrize("space", sorted(_PROTOCOLS))
def test_composites_are_not_protocol_members(space):
    # A composite that is still a required member would make every backend write it again.
    required = {n for proto in _PROTOCOLS[space] for n in dir(proto) if not n.startswith("_")}
    assert not required & set(_composite_names(space))


def test_a_backend_function_wins_over_the_composite(monkeypatch):
    def native(x):
        return ops.convert_to_tensor(np.full(np.shape(x), 42.0, "float32"))

    monkeypatch.setattr(backend().nn, "relu6", native, raising=False)
    assert composites.composite("nn", "relu6") is native
    assert_allclose(ops.relu6(np.array([1.0, 9.0], "float32")), [42.0, 42.0])


def test_without_a_backend_function_the_core_composite_runs(monkeypatch):
    monkeypatch.delattr(backend().nn, "relu6", raising=False)
    assert composites.composite("nn", "relu6") is composites.fallback("nn", "relu6")
    assert_allclose(ops.relu6(np.array([-1.0, 3.0, 9.0], "float32")), [0.0, 3.0, 6.0])


def test_an_attention_kernel_returning_none_hands_over_to_the_formula(monkeypatch):
    calls = []

    def kernel(*args):
        calls.append(args)
        return None

    monkeypatch.setattr(backend().nn, "dot_product_attention", kernel, raising=False)
    q = RNG.normal(size=(1, 3, 2, 4)).astype("float32")
    k = RNG.normal(size=(1, 5, 2, 4)).astype("float32")
    v = RNG.normal(size=(1, 5, 2, 4)).astype("float32")
    logits = np.einsum("btnh,bsnh->bnts", q, k) / 2.0
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    want = np.einsum("bnts,bsnh->btnh", weights / weights.sum(-1, keepdims=True), v)
    assert_allclose(ops.dot_product_attention(q, k, v), want)
    assert len(calls) == 1


@pytest.mark.parametrize(("space", "name"), [("numpy", "tril"), ("math", "logsumexp")])
def test_composites_keep_numpys_floating_point_warnings_quiet(space, name):
    # NumPy warns on inf - inf and 0 / 0 where the other frameworks stay silent; the core
    # composites reach those through array operators and must stay silent too.
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.0]], "float32")
    fn = composites.fallback(space, name)
    out = (
        fn(ops.convert_to_tensor(x), 0)
        if name == "tril"
        else fn(ops.convert_to_tensor(x), (1,), False)
    )
    assert np.shape(ops.convert_to_numpy(out))[0] == 2
