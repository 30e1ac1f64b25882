"""TorchVariable: Parameter state, requires_grad following trainable, meta tracing."""

from __future__ import annotations

import numpy as np
import torch

import lamina
from lamina import ops
from lamina_torch.core import compute_output_spec
from lamina_torch.variable import TorchVariable


def test_state_is_a_parameter_not_aliasing_the_input():
    init = np.arange(3, dtype="float32")
    v = lamina.Variable(init)
    assert isinstance(v, TorchVariable) and isinstance(v.value, torch.nn.Parameter)
    v.assign(np.zeros(3, "float32"))
    np.testing.assert_array_equal(init, [0.0, 1.0, 2.0])
    module = torch.nn.Module()
    module.w = v.value
    assert [p is v.value for p in module.parameters()] == [True]


def test_trainable_toggles_requires_grad():
    v = lamina.Variable(np.ones(2, "float32"), trainable=False)
    assert not v.value.requires_grad
    v.trainable = True
    assert v.value.requires_grad
    v.trainable = False
    assert not v.value.requires_grad
    i = lamina.Variable(np.ones(2, "int32"))
    assert i.trainable and not i.value.requires_grad


def test_meta_tracing_reads_variables_and_keeps_new_ones_real():
    v = lamina.Variable(np.ones((3, 2), "float32"))
    made = []

    def fn(x):
        assert x.device.type == "meta" and v.value.device.type == "meta"
        w = lamina.Variable(np.full((2,), 5.0, "float32"))
        made.append(w)
        return ops.add(ops.matmul(x, v), w)

    out = compute_output_spec(fn, lamina.KerasTensor((None, 3)))
    assert out.shape == (None, 2)
    assert v.value.device.type == "cpu"
    assert all(w.value.device.type == "cpu" for w in made)
    np.testing.assert_array_equal(made[0].numpy(), [5.0, 5.0])


def test_restored_weights_keep_the_read_buffer_and_the_parameter(tmp_path):
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3)])
    model.save_weights(tmp_path / "m.weights.h5")
    saved = [w.numpy() for w in model.weights]
    for w in model.weights:
        w.assign(np.zeros(w.shape, "float32"))
    parameters = [w.value for w in model.weights]
    pointers = [p.data_ptr() for p in parameters]
    model.load_weights(tmp_path / "m.weights.h5")
    assert [w.value for w in model.weights] == parameters  # the same Parameter objects
    assert all(p.data_ptr() != old for p, old in zip(parameters, pointers))  # no copy
    for w, value in zip(model.weights, saved):
        np.testing.assert_array_equal(w.numpy(), value)
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((5, 4), "float32"), np.ones((5, 3), "float32"), verbose=0)
    assert not np.array_equal(model.weights[0].numpy(), saved[0])


def test_an_assigned_user_array_is_still_copied():
    v = lamina.Variable(np.zeros(3, "float32"))
    mine = np.ones(3, "float32")
    v.assign(mine)
    mine[:] = 5.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0, 1.0])


def test_counters_and_totals_add_in_place_into_the_same_parameter():
    step = lamina.Variable(np.array(0, "int64"), trainable=False)
    total = lamina.Variable(np.zeros(3, "float32"), trainable=False)
    parameters = (step.value, total.value)
    pointers = [p.data_ptr() for p in parameters]
    step.assign_add(1)
    total.assign_add(torch.ones(3))
    total.assign_sub(0.5)
    assert (step.value, total.value) == parameters
    assert [p.data_ptr() for p in parameters] == pointers
    assert step.numpy() == 1 and step.value.dtype == torch.int64
    np.testing.assert_array_equal(total.numpy(), [0.5, 0.5, 0.5])
    total.assign_add(2**40)  # what the in-place path does not take goes the generic way
    assert total.numpy()[0] == np.float32(2**40 + 0.5)
