"""Gradients flow through every conv, pooling and spatial reshaping layer (one fit step)."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina.backend import Capability
from lamina.layers.convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
)
from lamina.layers.core import Dense
from lamina.layers.pooling import (
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from lamina.layers.reshaping.cropping import Cropping2D
from lamina.layers.reshaping.up_sampling import UpSampling2D
from lamina.layers.reshaping.zero_padding import ZeroPadding2D


def _fit_changes_every_weight(inputs, outputs, x):
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer="sgd", loss="mse")
    before = [w.numpy().copy() for w in model.trainable_weights]
    y = np.ones((x.shape[0], 2), "float32")
    model.fit(x, y, epochs=1, batch_size=x.shape[0], verbose=0)
    after = [w.numpy() for w in model.trainable_weights]
    for w, a, b in zip(model.trainable_weights, before, after):
        assert np.all(np.isfinite(b)), w.path
        assert not np.allclose(a, b), f"{w.path} did not train"


@pytest.mark.requires(Capability.TRAINING)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_image_stack_trains(data_format):
    shape = (8, 8, 2) if data_format == "channels_last" else (2, 8, 8)
    kw = {"data_format": data_format}
    inputs = lamina.Input(shape)
    h = ZeroPadding2D(1, **kw)(inputs)
    h = Conv2D(4, 3, activation="tanh", **kw)(h)
    h = AveragePooling2D(**kw)(h)
    h = DepthwiseConv2D(3, padding="same", **kw)(h)
    h = UpSampling2D(2, interpolation="bilinear", **kw)(h)
    h = SeparableConv2D(3, 3, padding="same", **kw)(h)
    h = MaxPooling2D(**kw)(h)
    h = Conv2DTranspose(3, 3, strides=2, padding="same", **kw)(h)
    h = Cropping2D(1, **kw)(h)
    h = GlobalMaxPooling2D(**kw)(h)
    outputs = Dense(2)(h)
    x = np.random.default_rng(0).normal(size=(4, *shape)).astype("float32")
    _fit_changes_every_weight(inputs, outputs, x)


@pytest.mark.requires(Capability.TRAINING)
def test_sequence_stack_trains():
    inputs = lamina.Input((10, 3))
    h = Conv1D(4, 3, padding="causal", activation="tanh")(inputs)
    h = MaxPooling1D()(h)
    h = SeparableConv1D(4, 2)(h)
    h = GlobalAveragePooling1D()(h)
    outputs = Dense(2)(h)
    x = np.random.default_rng(1).normal(size=(4, 10, 3)).astype("float32")
    _fit_changes_every_weight(inputs, outputs, x)
