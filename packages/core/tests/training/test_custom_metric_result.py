"""A custom `Metric.result()` may return its state `Variable` itself, even in compiled steps.

Keras 3 rejects this under `jit` (a variable is not a value a jitted function can return);
Lamina reads the variable's value inside the step, so the metric works in a jitted JAX
`fit`, a `tf.function` and a `torch.compile`d step alike.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backend import Capability
from lamina.backend.registry import current
from lamina.variables.variable import Variable

X = np.random.default_rng(0).normal(size=(10, 3)).astype("float32")
Y = np.arange(10, dtype="float32").reshape(10, 1)


class LabelTotal(lamina.metrics.Metric):
    """The sum of every label seen; `result` hands back the state variable."""

    def __init__(self, name="label_total", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(ops.cast(ops.sum(y_true), self.total.dtype))

    def result(self):
        return self.total


def _model(jit_compile="auto"):
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=[LabelTotal()], jit_compile=jit_compile)
    return model


@pytest.mark.requires(Capability.TRAINING)
def test_variable_result_in_fit():
    # jit_compile="auto": a jitted step on JAX, a tf.function on TensorFlow
    model = _model()
    # 4 batches, the last one partial: the total is over every label of each epoch
    history = model.fit(X, Y, batch_size=3, epochs=2, verbose=0).history
    assert history["label_total"] == [45.0, 45.0]


def _c_compiler_missing():
    return current().name == "torch" and not any(
        shutil.which(cc) for cc in ("cc", "gcc", "clang")
    )


@pytest.mark.requires(Capability.TRAINING)
@pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")  # torch.compile's imports
def test_variable_result_in_a_jit_compiled_step():
    if _c_compiler_missing():
        pytest.skip("torch.compile's inductor needs a C compiler; none is on PATH")
    model = _model(jit_compile=True)  # XLA on JAX and TensorFlow, torch.compile on torch
    assert model.train_on_batch(X, Y, return_dict=True)["label_total"] == 45.0
    # train_on_batch adds to the state without a reset, as in Keras 3
    assert model.train_on_batch(X, Y, return_dict=True)["label_total"] == 90.0


@pytest.mark.parametrize("jit_compile", [True, False])
def test_variable_result_in_evaluate(jit_compile):
    model = _model(jit_compile)
    logs = model.evaluate(X, Y, batch_size=4, verbose=0, return_dict=True)
    assert logs["label_total"] == 45.0


def test_stateless_result_returns_a_value_not_the_variable():
    metric = LabelTotal()
    values = metric.stateless_update_state([np.float32(0.0)], Y, Y)
    result = metric.stateless_result(values)
    assert not isinstance(result, Variable)
    np.testing.assert_allclose(ops.convert_to_numpy(result), 45.0)
