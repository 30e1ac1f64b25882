"""`.keras` and `.weights.h5` files between real Keras 3 and Lamina, both directions.

Every model is built by one function from either framework's module (``K`` is `keras`
or `lamina`), given the same non-trivial weights, saved by one framework and loaded by
the other. Loaded weights must be bit-identical and predictions equal within Lamina's
float32 tolerance (rtol 1e-5, atol 1e-6, `lamina.testing.TOLERANCES`). The files are
made here, by the frameworks themselves: no stored binaries.

Runs in the `keras` nox session (Keras on JAX; Lamina on JAX, then on NumPy); skipped
where Keras is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

import lamina  # noqa: E402
from lamina.testing import assert_allclose  # noqa: E402

RNG = np.random.default_rng


# --- the models, one builder per layer family -----------------------------------------------
def dense(K):
    return K.Sequential([K.Input((6,)), K.layers.Dense(5, activation="relu"), K.layers.Dense(3)])


def einsum_dense(K):
    inputs = K.Input((4, 6))
    x = K.layers.EinsumDense("abc,cd->abd", output_shape=(None, 5), bias_axes="d")(inputs)
    x = K.layers.EinsumDense("abc,cd->ad", output_shape=3)(x)
    return K.Model(inputs, x)


def embedding(K):
    inputs = K.Input((5,), dtype="int32")
    x = K.layers.Embedding(20, 4)(inputs)
    masked = K.layers.Embedding(20, 4, mask_zero=True)(inputs)
    pooled = K.layers.GlobalAveragePooling1D()(masked)  # the mask reaches the pooling
    x = K.layers.Concatenate()([K.layers.Flatten()(x), pooled])
    return K.Model(inputs, K.layers.Dense(2)(x))


def conv1d(K):
    return K.Sequential([
        K.Input((12, 3)),
        K.layers.Conv1D(4, 3, activation="relu"),
        K.layers.SeparableConv1D(4, 3, padding="same"),
        K.layers.DepthwiseConv1D(3, depth_multiplier=2),
        K.layers.Conv1DTranspose(3, 3, strides=2),
        K.layers.MaxPooling1D(2),
        K.layers.AveragePooling1D(2, padding="same"),
        K.layers.Cropping1D((1, 0)),
        K.layers.ZeroPadding1D(1),
        K.layers.UpSampling1D(2),
        K.layers.GlobalMaxPooling1D(),
    ])


def conv2d(K):
    return K.Sequential([
        K.Input((10, 10, 3)),
        K.layers.Conv2D(4, 3, activation="relu"),
        K.layers.DepthwiseConv2D(3, padding="same"),
        K.layers.SeparableConv2D(4, 3, depth_multiplier=2),
        K.layers.Conv2DTranspose(3, 3, strides=2),
        K.layers.MaxPooling2D(2),
        K.layers.AveragePooling2D(2),
        K.layers.Cropping2D(((1, 0), (0, 1))),
        K.layers.ZeroPadding2D(1),
        K.layers.UpSampling2D(2),
        K.layers.AdaptiveAveragePooling2D(2),
        K.layers.GlobalAveragePooling2D(),
    ])


def conv3d(K):
    return K.Sequential([
        K.Input((6, 6, 6, 2)),
        K.layers.Conv3D(3, 3),
        K.layers.Conv3DTranspose(2, 3),
        K.layers.MaxPooling3D(2),
        K.layers.ZeroPadding3D(1),
        K.layers.Cropping3D(1),
        K.layers.UpSampling3D(2),
        K.layers.AveragePooling3D(2),
        K.layers.GlobalAveragePooling3D(),
    ])


def normalization(K):
    return K.Sequential([
        K.Input((6,)),
        K.layers.Dense(8),
        K.layers.BatchNormalization(),
        K.layers.LayerNormalization(),
        K.layers.GroupNormalization(groups=2),
        K.layers.RMSNormalization(),
        K.layers.UnitNormalization(),
        K.layers.Dense(2),
    ])


def preprocessing(K):
    norm = K.layers.Normalization()
    norm.adapt(RNG(3).normal(size=(16, 4)).astype("float32"))
    return K.Sequential([K.Input((4,)), norm, K.layers.Rescaling(0.5, offset=0.1),
                         K.layers.Dense(2)])


def regularization(K):
    return K.Sequential([
        K.Input((6, 4)),
        K.layers.SpatialDropout1D(0.2),
        K.layers.Flatten(),
        K.layers.Dropout(0.3),
        K.layers.GaussianNoise(0.1),
        K.layers.GaussianDropout(0.1),
        K.layers.AlphaDropout(0.1),
        K.layers.ActivityRegularization(l1=0.01),
        K.layers.Dense(2, kernel_regularizer=K.regularizers.L2(0.01)),
    ])


def reshaping(K):
    return K.Sequential([
        K.Input((4, 6)),
        K.layers.Reshape((6, 4)),
        K.layers.Permute((2, 1)),
        K.layers.Flatten(),
        K.layers.RepeatVector(2),
        K.layers.Activation("gelu"),
        K.layers.Identity(),
        K.layers.Flatten(),
        K.layers.Dense(2, activation="tanh"),
    ])


def masking(K):
    return K.Sequential([K.Input((5, 3)), K.layers.Masking(0.0),
                         K.layers.GlobalAveragePooling1D(), K.layers.Dense(2)])


def merging(K):
    a, b = K.Input((4,), name="a"), K.Input((4,), name="b")
    x, y = K.layers.Dense(3)(a), K.layers.Dense(3, activation="relu")(b)
    merged = [
        K.layers.Add()([x, y]), K.layers.Subtract()([x, y]), K.layers.Multiply()([x, y]),
        K.layers.Average()([x, y]), K.layers.Maximum()([x, y]), K.layers.Minimum()([x, y]),
        K.layers.Dot(axes=1)([x, y]),
    ]
    joined = K.layers.Concatenate()(merged)
    shared = K.layers.Dense(2, name="shared")
    return K.Model([a, b], [shared(joined), shared(K.layers.Concatenate()(merged[::-1]))])


def nested(K):
    inner = K.Sequential([K.Input((4,)), K.layers.Dense(3), K.layers.Dropout(0.1),
                          K.layers.Dense(3)], name="inner")
    inputs = K.Input((4,))
    middle = K.Model(inputs, K.layers.Dense(2)(inner(inputs)), name="middle")
    return K.Sequential([K.Input((4,)), middle, K.layers.Dense(1)])


def spectral(K):
    return K.Sequential([K.Input((4,)), K.layers.SpectralNormalization(K.layers.Dense(3))])


def op_graph(K):
    """A functional graph that calls ops directly: Keras 3 records them as graph nodes."""
    ops = K.ops
    images = K.Input((6, 6, 2))
    x = K.layers.Conv2D(3, 3, padding="same")(images)
    x = ops.add(ops.relu(x), 1.0)
    x = ops.clip(x, 0.5, 2.5)
    x = ops.image.crop_images(x, top_cropping=1, left_cropping=2, target_height=4,
                              target_width=3)
    x = ops.transpose(x, (0, 3, 1, 2))
    x = ops.reshape(x, (-1, 3, 12))[:, :, 2:, None][..., 0]
    pooled = ops.concatenate([ops.mean(x, axis=-1), ops.max(x, axis=-1)], axis=-1)
    scores = ops.softmax(K.layers.Dense(4)(pooled), axis=-1)
    return K.Model(images, ops.expand_dims(ops.sum(ops.square(scores), axis=1), -1))


MODELS = [dense, einsum_dense, embedding, conv1d, conv2d, conv3d, normalization,
          preprocessing, regularization, reshaping, masking, merging, nested, spectral,
          op_graph]


def inputs_for(build, model):
    """Inputs for one predict call: integers for embeddings, else normal floats."""
    if build is embedding:
        return RNG(1).integers(0, 20, size=(5, 5)).astype("int32")
    shapes = [tuple(t.shape) for t in model.inputs]
    arrays = [RNG(i + 1).normal(size=(5, *s[1:])).astype("float32") for i, s in enumerate(shapes)]
    if build is masking:
        arrays[0][:, 3:] = 0.0  # masked steps
    return arrays if len(arrays) > 1 else arrays[0]


def randomize(model, seed=0):
    """Non-trivial weights (positive where a variance must be) so layouts can't pass by luck."""
    rng = RNG(seed)
    for v in model.weights:
        if v.name in ("mean", "variance") or not np.issubdtype(np.dtype(v.dtype), np.floating):
            continue  # `Normalization` keeps its adapted statistics (layers cache them)
        low = 0.5 if "variance" in v.name else -1.0
        v.assign(rng.uniform(low, 1.5, size=tuple(v.shape)).astype(v.dtype))


def predict(model, x):
    out = model.predict(x, verbose=0)
    return [np.asarray(o) for o in out] if isinstance(out, list) else [np.asarray(out)]


def weights_of(model):
    """The float weights (Keras' `Normalization` has an integer `count` Lamina's lacks)."""
    arrays = [np.asarray(w) for w in model.get_weights()]
    return [a for a in arrays if np.issubdtype(a.dtype, np.floating)]


def assert_same_model(loaded, source, x):
    got, want = weights_of(loaded), weights_of(source)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(predict(loaded, x), predict(source, x)):
        assert_allclose(g, w, dtype="float32")


# --- Keras saves, Lamina loads ------------------------------------------------------------
@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_keras_archive_loads_in_lamina(tmp_path, build):
    source = build(keras)
    randomize(source)
    source.save(tmp_path / "k.keras")
    loaded = lamina.saving.load_model(tmp_path / "k.keras")  # safe_mode by default
    assert_same_model(loaded, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_keras_weights_load_into_lamina_model(tmp_path, build):
    source = build(keras)
    randomize(source)
    source.save_weights(tmp_path / "k.weights.h5")
    target = build(lamina)
    status = target.load_weights(tmp_path / "k.weights.h5")
    assert status.pending == []
    assert_same_model(target, source, inputs_for(build, source))


def unbuilt_stack(K):
    """A Sequential with no `Input` (an inner one too): Lamina's puts an `InputLayer` first
    when it builds, moving its layers one place on after the weights were read."""
    return K.Sequential([K.Sequential([K.layers.Dense(3), K.layers.Dense(3, activation="relu")]),
                         K.layers.Dense(2)])


def test_keras_weights_load_into_unbuilt_lamina_sequential(tmp_path):
    source = unbuilt_stack(keras)
    source.build((None, 4))
    randomize(source)
    source.save_weights(tmp_path / "k.weights.h5")
    target = unbuilt_stack(lamina)
    assert not target.built
    target.load_weights(tmp_path / "k.weights.h5")
    x = RNG(3).normal(size=(5, 4)).astype("float32")
    for got, want in zip(predict(target, x), predict(source, x)):
        assert_allclose(got, want, dtype="float32")
    assert_same_model(target, source, x)


# --- Lamina saves, Keras loads ------------------------------------------------------------
@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_lamina_archive_loads_in_keras(tmp_path, build):
    source = build(lamina)
    randomize(source)
    source.save(tmp_path / "l.keras")
    loaded = keras.saving.load_model(tmp_path / "l.keras")  # safe_mode by default
    assert_same_model(loaded, source, inputs_for(build, source))


@pytest.mark.parametrize("build", MODELS, ids=lambda b: b.__name__)
def test_lamina_weights_load_into_keras_model(tmp_path, build):
    source = build(lamina)
    randomize(source)
    source.save_weights(tmp_path / "l.weights.h5")
    target = build(keras)
    target.load_weights(tmp_path / "l.weights.h5")
    assert_same_model(target, source, inputs_for(build, source))


# --- subclassed models: weights only --------------------------------------------------------
def subclassed(K):
    """The same subclassed model in either framework: attributes, a list, a private
    attribute, a layer reached through the model's `layers` first (Keras' walk)."""

    class Block(K.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.d = K.layers.Dense(3)
            self.items = [K.layers.Dense(3), K.layers.Dense(3, activation="relu")]
            self._last = K.layers.Dense(3)

        def call(self, x):
            return self._last(self.items[1](self.items[0](self.d(x))))

    class Net(K.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.block = Block()
            self.head = K.layers.Dense(2)
            self.norm = K.layers.BatchNormalization()

        def call(self, x):
            return self.head(self.norm(self.block(x)))

    model = Net()
    model(np.zeros((1, 4), "float32"))
    return model


@pytest.mark.parametrize("direction", ["keras_to_lamina", "lamina_to_keras"])
def test_subclassed_model_weights_both_ways(tmp_path, direction):
    source_k, target_k = (keras, lamina) if direction == "keras_to_lamina" else (lamina, keras)
    source, target = subclassed(source_k), subclassed(target_k)
    randomize(source)
    source.save_weights(tmp_path / "s.weights.h5")
    target.load_weights(tmp_path / "s.weights.h5")
    assert_same_model(target, source, RNG(2).normal(size=(5, 4)).astype("float32"))


# --- a user's own registered layer ----------------------------------------------------------
def scale_layer(K, register):
    """The same custom layer with a weight, registered under one name in either framework."""

    @register(package="KerasFilesTest", name="Scale")
    class Scale(K.layers.Layer):
        def build(self, input_shape):
            self.factor = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.factor

    return Scale


def with_custom_layer(K, scale):
    inputs = K.Input((4,))
    return K.Model(inputs, K.layers.Dense(2)(scale()(inputs)))


@pytest.mark.parametrize("direction", ["keras_to_lamina", "lamina_to_keras"])
def test_registered_custom_layer_moves_both_ways(tmp_path, direction):
    scales = {
        keras: scale_layer(keras, keras.saving.register_keras_serializable),
        lamina: scale_layer(lamina, lamina.saving.register_serializable),
    }
    source_k, target_k = (keras, lamina) if direction == "keras_to_lamina" else (lamina, keras)
    source = with_custom_layer(source_k, scales[source_k])
    randomize(source)
    source.save(tmp_path / "c.keras")
    loaded = target_k.saving.load_model(tmp_path / "c.keras")
    assert [type(layer) for layer in loaded.layers].count(scales[target_k]) == 1
    assert_same_model(loaded, source, RNG(4).normal(size=(5, 4)).astype("float32"))
