"""TensorflowVariable: tf.Variable state, trainable re-creation, use inside tf.function."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import lamina
from lamina.backend.kit import arrays_offered
from lamina_tensorflow.variable import TensorflowVariable


def test_state_is_a_tf_variable():
    v = lamina.Variable(np.arange(3, dtype="float32"), name="w")
    assert isinstance(v, TensorflowVariable) and isinstance(v.value, tf.Variable)
    assert v.value.trainable and v.value.name.startswith("w")


def test_trainable_change_recreates_keeping_the_value():
    v = lamina.Variable(np.arange(3, dtype="float32"))
    v.assign(np.full(3, 4.0, "float32"))
    old = v.value
    v.trainable = False
    assert v.value is not old and not v.value.trainable
    np.testing.assert_array_equal(v.numpy(), [4.0, 4.0, 4.0])
    v.trainable = False
    assert not v.value.trainable


def test_assign_inside_tf_function():
    v = lamina.Variable(np.zeros(2, "float32"))

    @tf.function
    def step():
        v.assign_add(np.ones(2, "float32"))

    step()
    step()
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0])


def _aligned(values: np.ndarray, shift: int = 0) -> np.ndarray:
    """A copy of `values` whose memory starts `shift` bytes past a 64-byte boundary."""
    raw = np.empty(values.nbytes + 128, np.uint8)
    start = -raw.ctypes.data % 64 + shift
    out = raw[start : start + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


def test_an_offered_aligned_array_becomes_the_variable_memory():
    v = lamina.Variable(np.zeros((2, 3), "float32"))
    offered = _aligned(np.arange(6, dtype="float32").reshape(2, 3))
    with arrays_offered([offered]):
        v.assign(offered)
    offered[0, 0] = 7.0  # the reader never writes again; this shows no copy was made
    assert v.numpy()[0, 0] == 7.0
    v.assign_add(np.ones((2, 3), "float32"))  # TF copies on the first in-place update
    expected = np.arange(6, dtype="float32").reshape(2, 3) + 1.0
    expected[0, 0] = 8.0
    np.testing.assert_array_equal(v.numpy(), expected)


def test_arrays_not_offered_or_misaligned_are_copied():
    v = lamina.Variable(np.zeros(4, "float32"))
    mine = _aligned(np.ones(4, "float32"))
    v.assign(mine)
    misaligned = _aligned(np.full(4, 2.0, "float32"), shift=16)
    with arrays_offered([misaligned]):
        v.assign(misaligned)  # a tensor over it would crash TF's aligned kernels
    mine[:] = 5.0
    misaligned[:] = 5.0
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0, 2.0, 2.0])
    assert v.numpy()[1:3].sum() == 4.0


def test_load_weights_keeps_the_read_buffers_and_training_goes_on(tmp_path, monkeypatch):
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(3)])
    model.save_weights(tmp_path / "m.weights.h5")
    saved = [w.numpy() for w in model.weights]
    for w in model.weights:
        w.assign(np.zeros(w.shape, "float32"))
    kept = []
    wrap = tf.experimental.dlpack.from_dlpack
    monkeypatch.setattr(tf.experimental.dlpack, "from_dlpack", lambda c: kept.append(1) or wrap(c))
    model.load_weights(tmp_path / "m.weights.h5")
    assert len(kept) == 2  # kernel and bias: no copies
    for w, value in zip(model.weights, saved):
        np.testing.assert_array_equal(w.numpy(), value)
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((5, 4), "float32"), np.ones((5, 3), "float32"), verbose=0)
    assert not np.array_equal(model.weights[0].numpy(), saved[0])
