"""Functional, Sequential and subclassed models: structure, calls, summary, cloning."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import Input, Layer
from lamina.models import Model, Sequential, clone_model
from lamina.testing import assert_allclose


class Affine(Layer):
    """x @ W + b with deterministic weights, so outputs have a NumPy reference."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        n = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(n, self.units),
            initializer=lambda shape, dtype=None: np.linspace(-1, 1, n * self.units)
            .reshape(shape)
            .astype(dtype),
            name="kernel",
        )
        self.bias = self.add_weight(
            shape=(self.units,), initializer=lambda s, dtype=None: np.zeros(s, dtype), name="bias"
        )

    def call(self, x):
        return ops.matmul(x, self.kernel) + self.bias

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units)


def reference(x, *units):
    for u in units:
        n = x.shape[-1]
        x = x @ np.linspace(-1, 1, n * u).reshape(n, u).astype("float32")
    return x


X = np.random.default_rng(0).normal(size=(4, 3)).astype("float32")


def test_functional_multi_io_dicts_shared_layers_and_nesting():
    a = Input((3,), name="a")
    b = Input((3,), name="b")
    shared = Affine(2)
    merged = ops.concatenate([shared(a), shared(b)], axis=-1)
    model = Model({"a": a, "b": b}, {"sum": Affine(1)(merged), "left": shared(a)})
    out = model({"a": X, "b": 2 * X})
    left = reference(X, 2)
    assert_allclose(out["left"], left)
    both = np.concatenate([left, reference(2 * X, 2)], axis=-1)
    assert_allclose(out["sum"], reference(both, 1), loose=10)
    assert len(model.weights) == 4  # the shared layer counts once
    inner_in = Input((3,))
    nested = Model(inner_in, model({"a": inner_in, "b": inner_in})["left"])
    assert_allclose(nested(X), left)
    assert nested.compute_output_shape((None, 3)) == (None, 2)


def test_functional_errors_are_clear():
    x = Input((3,))
    model = Model(x, Affine(2)(x))
    with pytest.raises(ValueError, match="expects 1 input"):
        model([X, X])
    other = Input((3,))
    with pytest.raises(ValueError, match="disconnected"):
        Model(other, Affine(2)(x))


def test_get_layer_by_name_and_index():
    x = Input((3,))
    model = Model(x, Affine(2, name="head")(x))
    assert model.get_layer("head") is model.get_layer(index=-1)
    with pytest.raises(ValueError, match="No layer named 'missing'"):
        model.get_layer("missing")
    with pytest.raises(ValueError, match="exactly one"):
        model.get_layer()


def test_sequential_input_first_deferred_add_and_pop():
    model = Sequential([Input((3,)), Affine(4), Affine(2)])
    assert model.built
    assert_allclose(model(X), reference(X, 4, 2), loose=10)
    deferred = Sequential([Affine(4)])
    assert not deferred.built
    deferred.add(Affine(2))
    assert_allclose(deferred(X), reference(X, 4, 2), loose=10)
    assert deferred.built and deferred.inputs[0].shape == (None, 3)
    popped = deferred.pop()
    assert isinstance(popped, Affine) and len(deferred.layers) == 1
    assert_allclose(deferred(X), reference(X, 4))
    with pytest.raises(ValueError, match="Only layers"):
        deferred.add("dense")
    with pytest.raises(ValueError, match="unique names"):
        deferred.add(deferred.layers[0])


def test_sequential_build_from_shape():
    model = Sequential([Affine(2)])
    model.build((None, 3))
    assert model.built and model.count_params() == 8


class TwoStep(Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.first = Affine(4)
        self.second = Affine(2)

    def call(self, x, training=None):
        return self.second(self.first(x))


def test_subclassed_model_lifecycle_stage_by_stage():
    model = TwoStep()
    assert (model.built, model.variables, model.optimizer, model.compiled) == (
        False,
        [],
        None,
        False,
    )
    assert model.train_function is None
    model.build((None, 3))
    assert model.built and len(model.variables) == 4
    assert_allclose(model(X), reference(X, 4, 2), loose=10)
    assert [layer.name for layer in model.layers] == ["affine", "affine_1"]


def test_summary_lists_layers_shapes_and_counts():
    model = Sequential([Input((3,)), Affine(4, name="hidden"), Affine(2, name="out")], name="s")
    lines: list[str] = []
    model.summary(print_fn=lines.append, line_length=70)
    text = "\n".join(lines)
    assert 'Model: "s"' in text and "hidden (Affine)" in text and "(None, 4)" in text
    assert "Total params: 26" in text and "Trainable params: 26" in text
    assert all(len(line) <= 70 for line in lines)
    outer_in = Input((3,))
    outer = Model(outer_in, model(outer_in))
    lines.clear()
    outer.summary(print_fn=lines.append, expand_nested=True, show_trainable=True)
    assert any(line.startswith("  hidden") for line in lines)


def test_clone_model_has_new_weights_and_same_architecture():
    x = Input((3,))
    model = Model(x, Affine(2)(Affine(4)(x)))
    model.weights[0].assign(np.zeros((3, 4), "float32"))
    clone = clone_model(model)
    assert clone is not model and len(clone.weights) == 4
    assert all(a is not b for a, b in zip(clone.weights, model.weights))
    assert_allclose(clone(X), reference(X, 4, 2), loose=10)
    seq = Sequential([Input((3,)), Affine(2)])
    assert_allclose(clone_model(seq)(X), reference(X, 2))
    with pytest.raises(ValueError, match="must be a lamina Model"):
        clone_model(Affine(2))


def test_non_trainable_model_reports_no_trainable_weights():
    model = Sequential([Input((3,)), Affine(2)])
    model.trainable = False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 2
    assert lamina.Model is Model
