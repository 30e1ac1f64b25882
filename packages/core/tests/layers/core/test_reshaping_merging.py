"""Flatten/Reshape/Permute/RepeatVector and the merging layers: numerics, masks, errors."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import merging
from lamina.layers.core import Embedding
from lamina.layers.layer import Layer
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
from lamina.layers.reshaping import Flatten, Permute, RepeatVector, Reshape
from lamina.testing import assert_allclose

RNG = np.random.default_rng(1)
X = RNG.standard_normal((2, 3, 4)).astype("float32")
A = RNG.standard_normal((2, 3)).astype("float32")
B = RNG.standard_normal((2, 3)).astype("float32")
C = RNG.standard_normal((2, 3)).astype("float32")


def test_flatten_orders_and_keeps_int_dtype():
    assert_allclose(Flatten()(X), X.reshape(2, 12))
    image = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    channels_first = Flatten(data_format="channels_first")(image)
    assert_allclose(channels_first, image.transpose(0, 2, 3, 1).reshape(2, 60))
    assert tuple(Flatten()(np.ones((4,), "float32")).shape) == (4, 1)
    ints = lamina.Input(shape=(3, 2), dtype="int32")
    assert Flatten()(ints).dtype == "int32"
    assert Flatten().compute_output_shape((None, 3, None)) == (None, None)


def test_reshape_with_inferred_axis_and_errors():
    assert_allclose(Reshape((4, -1))(X), X.reshape(2, 4, 3))
    assert_allclose(Reshape((12,))(X), X.reshape(2, 12))
    assert Reshape((-1, 2)).compute_output_shape((None, 3, 4)) == (None, 6, 2)
    assert Reshape((-1, 2)).compute_output_shape((None, None, 4)) == (None, None, 2)
    with pytest.raises(ValueError, match="target_shape"):
        Reshape((5,))(X)
    with pytest.raises(ValueError, match="target_shape"):
        Reshape((-1, -1))
    with pytest.raises(ValueError, match="target_shape"):
        Reshape((0, 3))
    with pytest.raises(ValueError, match="target_shape"):
        Reshape((5, -1))(X)


def test_permute_and_repeat_vector():
    assert_allclose(Permute((2, 1))(X), X.transpose(0, 2, 1))
    assert Permute((2, 1)).get_config()["dims"] == [2, 1]
    with pytest.raises(ValueError, match="dims"):
        Permute((0, 1))
    with pytest.raises(ValueError, match="dims"):
        Permute((1, 3))
    out = RepeatVector(3)(A)
    assert_allclose(out, np.repeat(A[:, None, :], 3, axis=1))
    with pytest.raises(ValueError, match="n"):
        RepeatVector(0)
    with pytest.raises(ValueError):
        RepeatVector(2)(X)


def test_elementwise_merges_match_numpy():
    assert_allclose(Add()([A, B, C]), A + B + C)
    assert_allclose(Subtract()([A, B]), A - B)
    assert_allclose(Multiply()([A, B, C]), A * B * C)
    assert_allclose(Average()([A, B, C]), (A + B + C) / 3)
    assert_allclose(Maximum()([A, B, C]), np.maximum(np.maximum(A, B), C))
    assert_allclose(Minimum()([A, B, C]), np.minimum(np.minimum(A, B), C))
    assert_allclose(Add()([A, A[:, :1]]), A + A[:, :1])


def test_functional_forms():
    assert_allclose(merging.add([A, B]), A + B)
    assert_allclose(merging.subtract([A, B]), A - B)
    assert_allclose(merging.multiply([A, B]), A * B)
    assert_allclose(merging.average([A, B]), (A + B) / 2)
    assert_allclose(merging.maximum([A, B]), np.maximum(A, B))
    assert_allclose(merging.minimum([A, B]), np.minimum(A, B))
    assert_allclose(merging.concatenate([A, B], axis=0), np.concatenate([A, B], 0))
    assert_allclose(merging.dot([A, B], axes=1), (A * B).sum(1, keepdims=True))
    layer_out = merging.add([lamina.Input(shape=(3,)), lamina.Input(shape=(3,))], name="sum")
    assert tuple(layer_out.shape) == (None, 3)


def test_merge_errors():
    with pytest.raises(ValueError, match="list"):
        Add()(A)
    with pytest.raises(ValueError, match="exactly 2"):
        Subtract()([A, B, C])
    with pytest.raises(ValueError, match="element-wise"):
        Add()([A, np.ones((2, 4), "float32")])
    with pytest.raises(ValueError, match="concatenation"):
        Concatenate(axis=1)([A, np.ones((3, 3), "float32")])
    with pytest.raises(ValueError, match="axis"):
        Concatenate(axis="x")
    with pytest.raises(ValueError, match="axes"):
        Dot(axes=0)([A, B])
    with pytest.raises(ValueError, match="sizes"):
        Dot(axes=1)([A, np.ones((2, 4), "float32")])
    with pytest.raises(ValueError, match="axes"):
        Dot(axes="x")


def test_concatenate_matches_numpy():
    wide = RNG.standard_normal((2, 5)).astype("float32")
    assert_allclose(Concatenate()([A, wide]), np.concatenate([A, wide], -1))
    assert Concatenate(axis=1).compute_output_shape([(None, 3), (None, None)]) == (None, None)


def test_dot_matches_numpy():
    assert_allclose(Dot(axes=1)([A, B]), (A * B).sum(1, keepdims=True))
    y = RNG.standard_normal((2, 5, 4)).astype("float32")
    assert_allclose(Dot(axes=2)([X, y]), np.einsum("bik,bjk->bij", X, y))
    assert_allclose(Dot(axes=(1, 1))([X, RNG.standard_normal((2, 3)).astype("float32")]).shape,
                    (2, 4))
    v = RNG.standard_normal((2, 3)).astype("float32")
    assert_allclose(Dot(axes=(1, 1))([X, v]), np.einsum("bik,bi->bk", X, v))
    norm = Dot(axes=1, normalize=True)([A, B])
    expected = (A * B).sum(1) / (np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1))
    assert_allclose(norm, expected[:, None])


class MaskProbe(Layer):
    def call(self, x, mask=None):
        self.seen_mask = mask
        return x


def _masked_pair():
    ids_a = lamina.Input(shape=(3,), dtype="int32")
    ids_b = lamina.Input(shape=(3,), dtype="int32")
    emb_a = Embedding(5, 2, mask_zero=True)(ids_a)
    emb_b = Embedding(5, 2, mask_zero=True)(ids_b)
    return ids_a, ids_b, emb_a, emb_b


IDS_A = np.array([[1, 0, 2], [3, 3, 0]], "int32")
IDS_B = np.array([[1, 1, 0], [0, 3, 4]], "int32")


def test_elementwise_merge_mask_is_logical_and():
    ids_a, ids_b, emb_a, emb_b = _masked_pair()
    probe = MaskProbe()
    model = lamina.Model([ids_a, ids_b], probe(Add()([emb_a, emb_b])))
    model([IDS_A, IDS_B])
    expected = (IDS_A != 0) & (IDS_B != 0)
    np.testing.assert_array_equal(ops.convert_to_numpy(probe.seen_mask), expected)


def test_merge_compute_mask_directly():
    m1 = np.array([[True, False]])
    m2 = np.array([[True, True]])
    out = Multiply().compute_mask([A, B], [m1, None])
    np.testing.assert_array_equal(ops.convert_to_numpy(out), m1)
    assert Average().compute_mask([A, B], None) is None
    assert Average().compute_mask([A, B], [None, None]) is None
    with pytest.raises(ValueError, match="mask"):
        Add().compute_mask([A, B], [m1])
    assert Dot(axes=1).compute_mask([A, B], [m1, m2]) is None


def test_concatenate_masks_along_time_and_features():
    ids_a, ids_b, emb_a, emb_b = _masked_pair()
    time_probe, feat_probe = MaskProbe(), MaskProbe()
    out_t = time_probe(Concatenate(axis=1)([emb_a, emb_b]))
    out_f = feat_probe(Concatenate(axis=-1)([emb_a, emb_b]))
    lamina.Model([ids_a, ids_b], [out_t, out_f])([IDS_A, IDS_B])
    np.testing.assert_array_equal(
        ops.convert_to_numpy(time_probe.seen_mask),
        np.concatenate([IDS_A != 0, IDS_B != 0], axis=1),
    )
    np.testing.assert_array_equal(
        ops.convert_to_numpy(feat_probe.seen_mask), (IDS_A != 0) & (IDS_B != 0)
    )
    x = np.ones((1, 2, 3), "float32")
    only_first = Concatenate(axis=1).compute_mask([x, x], [np.array([[True, False]]), None])
    np.testing.assert_array_equal(ops.convert_to_numpy(only_first), [[True, False, True, True]])
