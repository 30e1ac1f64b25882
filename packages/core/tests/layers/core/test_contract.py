"""The shared layer contract (`check_layer`) for every layer of this task."""

from __future__ import annotations

import pytest

from lamina.layers.core import Activation, Dense, EinsumDense, Embedding, Identity, Masking
from lamina.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
)
from lamina.layers.preprocessing import Normalization, Rescaling
from lamina.layers.regularization import (
    ActivityRegularization,
    AlphaDropout,
    Dropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from lamina.layers.reshaping import Flatten, Permute, RepeatVector, Reshape
from lamina.testing import check_layer

CASES = [
    (Dense, {"units": 4}, (2, 3), (2, 4), {"expected_num_trainable_weights": 2}),
    (Dense, {"units": 4, "use_bias": False, "activation": "relu"}, (2, 5, 3), (2, 5, 4), {}),
    (
        Dense,
        {"units": 4, "lora_rank": 2},
        (2, 3),
        (2, 4),
        {"expected_num_trainable_weights": 3, "expected_num_non_trainable_weights": 1},
    ),
    (
        Dense,
        {"units": 2, "kernel_regularizer": "l2", "activity_regularizer": "l1"},
        (2, 3),
        (2, 2),
        {"expected_num_losses": 2},
    ),
    (
        EinsumDense,
        {"equation": "abc,cd->abd", "output_shape": (None, 5), "bias_axes": "d"},
        (2, 3, 4),
        (2, 3, 5),
        {"expected_num_trainable_weights": 2},
    ),
    (EinsumDense, {"equation": "ab,bc->ac", "output_shape": 6}, (2, 3), (2, 6), {}),
    (EinsumDense, {"equation": "...b,bc->...c", "output_shape": 5}, (2, 3, 4), (2, 3, 5), {}),
    (
        EinsumDense,
        {"equation": "ab...,bc->ac...", "output_shape": 5, "bias_axes": "c"},
        (2, 3, 4),
        (2, 5, 4),
        {},
    ),
    (
        EinsumDense,
        {"equation": "abc,cde->abde", "output_shape": (None, 2, 3), "lora_rank": 1},
        (2, 3, 4),
        (2, 3, 2, 3),
        {"expected_num_trainable_weights": 2},
    ),
    (
        Embedding,
        {"input_dim": 10, "output_dim": 3},
        (2, 4),
        (2, 4, 3),
        {"input_dtype": "int32", "run_mixed_precision_check": False},
    ),
    (
        Embedding,
        {"input_dim": 10, "output_dim": 3, "mask_zero": True, "lora_rank": 2},
        (2, 4),
        (2, 4, 3),
        {"input_dtype": "int32", "run_mixed_precision_check": False},
    ),
    (Activation, {"activation": "tanh"}, (2, 3), (2, 3), {"supports_masking": True}),
    (Identity, {}, (2, 3), (2, 3), {"supports_masking": True}),
    (Masking, {"mask_value": 0.5}, (2, 3, 4), (2, 3, 4), {"supports_masking": True}),
    (Dropout, {"rate": 0.5, "seed": 1}, (2, 3), (2, 3), {"supports_masking": True}),
    (Dropout, {"rate": 0.3, "noise_shape": (None, 1, None), "seed": 3}, (2, 3, 4), (2, 3, 4), {}),
    (SpatialDropout1D, {"rate": 0.5, "seed": 1}, (2, 3, 4), (2, 3, 4), {}),
    (SpatialDropout2D, {"rate": 0.5, "seed": 1}, (2, 3, 4, 5), (2, 3, 4, 5), {}),
    (
        SpatialDropout3D,
        {"rate": 0.5, "seed": 1, "data_format": "channels_first"},
        (2, 3, 4, 5, 6),
        (2, 3, 4, 5, 6),
        {},
    ),
    (GaussianNoise, {"stddev": 0.5, "seed": 1}, (2, 3), (2, 3), {"supports_masking": True}),
    (GaussianDropout, {"rate": 0.5, "seed": 1}, (2, 3), (2, 3), {}),
    (AlphaDropout, {"rate": 0.5, "seed": 1}, (2, 3), (2, 3), {}),
    (
        ActivityRegularization,
        {"l1": 0.1, "l2": 0.1},
        (2, 3),
        (2, 3),
        {"expected_num_losses": 1},
    ),
    (Flatten, {}, (2, 3, 4), (2, 12), {}),
    (Flatten, {"data_format": "channels_first"}, (2, 3, 4, 5), (2, 60), {}),
    (Reshape, {"target_shape": (4, -1)}, (2, 3, 4), (2, 4, 3), {}),
    (Permute, {"dims": (2, 1)}, (2, 3, 4), (2, 4, 3), {}),
    (RepeatVector, {"n": 3}, (2, 4), (2, 3, 4), {}),
    (Add, {}, [(2, 3), (2, 3)], (2, 3), {}),
    (Subtract, {}, [(2, 3), (2, 3)], (2, 3), {}),
    (Multiply, {}, [(2, 3), (2, 3), (2, 3)], (2, 3), {}),
    (Average, {}, [(2, 3), (2, 1)], (2, 3), {}),
    (Maximum, {}, [(2, 3), (2, 3)], (2, 3), {}),
    (Minimum, {}, [(2, 3), (2, 3)], (2, 3), {}),
    (Concatenate, {"axis": 1}, [(2, 3), (2, 4)], (2, 7), {}),
    (Dot, {"axes": 1}, [(2, 3), (2, 3)], (2, 1), {}),
    (Dot, {"axes": (2, 2), "normalize": True}, [(2, 3, 4), (2, 5, 4)], (2, 3, 5), {}),
    (Rescaling, {"scale": 0.5, "offset": 1.0}, (2, 3), (2, 3), {}),
    (Rescaling, {"scale": [1.0, 2.0, 3.0]}, (2, 3), (2, 3), {}),
    (Normalization, {"mean": 1.0, "variance": 4.0}, (2, 3), (2, 3), {}),
    (Normalization, {"axis": None}, (2, 3), (2, 3), {"expected_num_non_trainable_weights": 2}),
    (Normalization, {"axis": (1, 2)}, (2, 3, 4), (2, 3, 4), {}),
]


@pytest.mark.parametrize(
    ("layer_cls", "kwargs", "input_shape", "output_shape", "extra"),
    CASES,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)],
)
def test_layer_contract(layer_cls, kwargs, input_shape, output_shape, extra):
    check_layer(layer_cls, kwargs, input_shape, expected_output_shape=output_shape, **extra)
