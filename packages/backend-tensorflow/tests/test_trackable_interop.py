"""Lamina layers are TF trackables: tf.train.Checkpoint and SavedModel see every variable."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from lamina import ops
from lamina.layers import Input, Layer
from lamina.models import Sequential


class Affine(Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], 2),
            initializer=lambda s, dtype=None: np.full(s, 0.5, dtype),
            name="kernel",
        )
        self.count = self.add_weight(
            shape=(), initializer="zeros", trainable=False, name="count"
        )

    def call(self, x):
        return ops.matmul(x, self.kernel)


def test_checkpoint_round_trip(tmp_path):
    model = Sequential([Input((3,)), Affine(name="a"), Affine(name="b")])
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    names = {name for name, _ in tf.train.list_variables(path)}
    assert {n for n in names if n.startswith("model/")} == {
        "model/a/kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "model/a/count/.ATTRIBUTES/VARIABLE_VALUE",
        "model/b/kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "model/b/count/.ATTRIBUTES/VARIABLE_VALUE",
    }
    expected = model.get_weights()
    for w in model.weights:
        w.assign(np.zeros(w.shape, "float32"))
    tf.train.Checkpoint(model=model).restore(path).assert_consumed()
    for got, want in zip(model.get_weights(), expected):
        np.testing.assert_array_equal(got, want)


def test_saved_model_sees_every_variable(tmp_path):
    model = Sequential([Input((3,)), Affine(name="a")])
    tf.saved_model.save(model, str(tmp_path / "sm"))
    loaded = tf.saved_model.load(str(tmp_path / "sm"))
    values = sorted(float(tf.reduce_sum(v)) for v in loaded.variables)
    assert values == [0.0, 3.0]
