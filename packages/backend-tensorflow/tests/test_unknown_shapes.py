"""Shapes that are tensors: a user's `tf.function` with an unknown batch size, and `fit`.

Inside such a trace ``ops.shape(x)[0]`` is a scalar tensor; every op that takes a shape must
accept it, and `Dropout` must draw its mask at the batch size the step runs with.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import lamina
from lamina import layers, ops, random

RNG = np.random.default_rng(0)


def _unknown_batch(fn, *trailing, dtype=tf.float32):
    """`fn` traced once with the batch dim unknown (None in its input signature)."""
    signature = [tf.TensorSpec((None, *trailing), dtype)]
    return tf.function(fn, input_signature=signature)


def test_ops_shape_gives_a_tensor_for_the_unknown_batch_dim():
    seen = []

    def fn(x):
        seen.append(ops.shape(x))
        return x

    _unknown_batch(fn, 3)(tf.zeros((2, 3)))
    batch, features = seen[0]
    assert tf.is_tensor(batch) and features == 3


def test_reshape_with_the_traced_batch_dim():
    f = _unknown_batch(lambda x: ops.reshape(x, (ops.shape(x)[0], -1, 4, 8)), 64)
    x = RNG.standard_normal((5, 64)).astype("float32")
    np.testing.assert_array_equal(f(x).numpy(), x.reshape(5, -1, 4, 8))
    # As in Keras 3, the -1 stays unknown beside an unknown batch dim; the others are static.
    assert f.get_concrete_function().structured_outputs.shape.as_list()[2:] == [4, 8]


@pytest.mark.parametrize(
    "make",
    [
        lambda x: random.normal(shape=ops.shape(x), seed=1),
        lambda x: random.normal((ops.shape(x)[0], 32), seed=1),
        lambda x: random.uniform((ops.shape(x)[0], 32), seed=1),
        lambda x: random.truncated_normal((ops.shape(x)[0], 32), seed=1),
        lambda x: random.randint((ops.shape(x)[0], 32), 0, 5, seed=1),
    ],
    ids=["normal-like", "normal", "uniform", "truncated_normal", "randint"],
)
def test_random_sampling_at_the_traced_batch_size(make):
    f = _unknown_batch(make, 32)
    for n in (3, 5):
        assert f(tf.zeros((n, 32))).shape == (n, 32)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda x: ops.zeros((ops.shape(x)[0], 2)), lambda n: np.zeros((n, 2))),
        (lambda x: ops.ones((ops.shape(x)[0], 2), "int32"), lambda n: np.ones((n, 2))),
        (lambda x: ops.full((ops.shape(x)[0], 2), 7.0), lambda n: np.full((n, 2), 7.0)),
        (
            lambda x: ops.broadcast_to(ops.arange(3.0), (ops.shape(x)[0], 3)),
            lambda n: np.broadcast_to(np.arange(3.0), (n, 3)),
        ),
        (
            lambda x: ops.tile(ops.arange(2.0)[None], (ops.shape(x)[0], 2)),
            lambda n: np.tile(np.arange(2.0)[None], (n, 2)),
        ),
        (
            lambda x: ops.reshape(x, ops.shape(x)[::-1]),
            lambda n: np.arange(n * 3.0).reshape(3, n),
        ),
    ],
    ids=["zeros", "ones", "full", "broadcast_to", "tile", "reshape-from-shape"],
)
def test_shape_taking_ops_accept_the_traced_batch_dim(make, expected):
    f = _unknown_batch(make, 3)
    for n in (2, 4):
        x = np.arange(n * 3.0, dtype="float32").reshape(n, 3)
        np.testing.assert_array_equal(f(x).numpy(), expected(n))


def test_a_float_tensor_dim_is_refused():
    def fn(x):
        return ops.zeros((tf.cast(ops.shape(x)[0], tf.float32), 2))

    with pytest.raises(TypeError, match="argument `shape` must hold integers"):
        _unknown_batch(fn, 3)(tf.zeros((2, 3)))


@pytest.mark.parametrize("noise_shape", [None, (None, 1, None), (None, 1, 4)])
def test_dropout_in_a_users_tf_function(noise_shape):
    layer = layers.Dropout(0.5, noise_shape=noise_shape, seed=3)
    f = _unknown_batch(lambda x: layer(x, training=True), 3, 4)
    out = f(tf.ones((6, 3, 4))).numpy()
    assert out.shape == (6, 3, 4)
    assert set(np.unique(out)) <= {0.0, 2.0} and 0 < (out == 0).sum() < out.size
    if noise_shape is not None:  # one mask for every step of a sample
        np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1], out.shape))


def test_dropout_with_a_tensor_in_noise_shape():
    f = _unknown_batch(
        lambda x: random.dropout(x, 0.5, noise_shape=(ops.shape(x)[0], 1, 4), seed=2), 3, 4
    )
    out = f(tf.ones((5, 3, 4))).numpy()
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1], out.shape))


def test_noise_layers_in_a_users_tf_function():
    stack = [
        layers.GaussianNoise(0.1, seed=1),
        layers.GaussianDropout(0.3, seed=1),
        layers.AlphaDropout(0.3, noise_shape=(None, 1), seed=1),
        layers.SpatialDropout1D(0.3, seed=1),
    ]

    def fn(x):
        for layer in stack[:3]:
            x = layer(x, training=True)
        return stack[3](ops.expand_dims(x, 1), training=True)

    assert _unknown_batch(fn, 4)(tf.ones((3, 4))).shape == (3, 1, 4)


def test_sequential_with_dropout_fits_with_a_partial_last_batch():
    # The crash of issue 13: 50 samples in batches of 16 leave a batch of 2, whose retrace
    # has an unknown batch size.
    model = lamina.Sequential(
        [lamina.Input((8,)), layers.Dense(16), layers.Dropout(0.5), layers.Dense(1)]
    )
    model.compile("adam", "mse")
    x = RNG.random((50, 8)).astype("float32")
    y = RNG.random((50, 1)).astype("float32")
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    assert np.isfinite(model.evaluate(x, y, batch_size=16, verbose=0))
    assert model.predict(x, batch_size=16, verbose=0).shape == (50, 1)


def test_user_tf_function_over_a_model_with_unknown_batch():
    model = lamina.Sequential([lamina.Input((8,)), layers.Dense(4), layers.Dropout(0.5)])
    f = _unknown_batch(lambda x: model(x, training=False), 8)
    x = RNG.random((5, 8)).astype("float32")
    np.testing.assert_allclose(f(x).numpy(), model.predict(x, verbose=0), rtol=1e-6)


IMAGES = RNG.random((3, 6, 8, 2)).astype("float32")


CROP_AND_PAD = {
    "crop": lambda x: ops.image.crop_images(x, 1, 2, target_height=3, target_width=4),
    "crop-from-end": lambda x: ops.image.crop_images(
        x, bottom_cropping=1, right_cropping=2, target_height=3, target_width=4
    ),
    "pad": lambda x: ops.image.pad_images(x, 1, 2, target_height=9, target_width=12),
    "pad-from-end": lambda x: ops.image.pad_images(
        x, bottom_padding=2, right_padding=1, target_height=9, target_width=12
    ),
}
RESIZE = {
    "resize-crop": lambda x: ops.image.resize(x, (4, 4), crop_to_aspect_ratio=True),
    "resize-pad": lambda x: ops.image.resize(x, (4, 4), pad_to_aspect_ratio=True),
}
CASES = [(name, fn, (6, 8, 2)) for name, fn in {**CROP_AND_PAD, **RESIZE}.items()] + [
    (f"{name}-unknown-size", fn, (None, None, 2)) for name, fn in CROP_AND_PAD.items()
]


@pytest.mark.parametrize(("fn", "trailing"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_image_crop_and_pad_with_unknown_sizes(fn, trailing):
    f = tf.function(fn, input_signature=[tf.TensorSpec((None, *trailing), tf.float32)])
    np.testing.assert_allclose(f(IMAGES).numpy(), np.asarray(fn(IMAGES)), rtol=1e-6)


def test_resize_refuses_unknown_heights_and_widths():
    f = tf.function(
        lambda x: ops.image.resize(x, (4, 4)),
        input_signature=[tf.TensorSpec((None, None, None, 2), tf.float32)],
    )
    with pytest.raises(ValueError, match="height and width of `images` must be known"):
        f(IMAGES)
