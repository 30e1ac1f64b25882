"""`GroupNormalization`: per-sample statistics over channel groups and positions."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.layers.normalization import GroupNormalization
from lamina.testing import assert_allclose, check_layer

RNG = np.random.default_rng(2)


def group_norm_ref(x, groups, eps=1e-3, gamma=None, beta=None, mask=None):
    """Channels-last reference: stats per (sample, group) over positions and group channels."""
    b, c = x.shape[0], x.shape[-1]
    grouped = x.reshape(b, -1, groups, c // groups)
    if mask is None:
        weights = np.ones_like(grouped)
    else:
        weights = np.broadcast_to(mask.reshape(b, -1, 1, 1), grouped.shape).astype(x.dtype)
    count = weights.sum(axis=(1, 3), keepdims=True)
    mean = (grouped * weights).sum(axis=(1, 3), keepdims=True) / count
    var = (weights * (grouped - mean) ** 2).sum(axis=(1, 3), keepdims=True) / count
    out = ((grouped - mean) / np.sqrt(var + eps)).reshape(x.shape)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return out


def test_contract():
    check_layer(
        GroupNormalization,
        {"groups": 2},
        (2, 5, 4),
        expected_output_shape=(2, 5, 4),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
        supports_masking=True,
    )


def test_contract_channels_first_image():
    check_layer(
        GroupNormalization,
        {"groups": 3, "axis": 1, "center": False},
        (2, 6, 4, 4),
        expected_output_shape=(2, 6, 4, 4),
        expected_num_trainable_weights=1,
    )


@pytest.mark.parametrize("groups", [1, 2, 6])
def test_formula_channels_last(groups):
    x = RNG.standard_normal((3, 4, 5, 6)).astype("float32") * 2 + 1
    layer = GroupNormalization(groups=groups)
    layer.build(x.shape)
    gamma = RNG.uniform(0.5, 1.5, 6).astype("float32")
    beta = RNG.standard_normal(6).astype("float32")
    layer.gamma.assign(gamma)
    layer.beta.assign(beta)
    assert_allclose(layer(x), group_norm_ref(x, groups, gamma=gamma, beta=beta), loose=10)


def test_channels_first_matches_channels_last():
    x = RNG.standard_normal((2, 6, 3, 3)).astype("float32")
    out = GroupNormalization(groups=3, axis=1)(x)
    last = np.moveaxis(x, 1, -1)
    expected = np.moveaxis(group_norm_ref(last, 3), -1, 1)
    assert_allclose(out, expected, loose=10)


def test_mask_excludes_positions():
    x = RNG.standard_normal((2, 5, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]], bool)
    out = GroupNormalization(groups=2)(x, mask=mask)
    assert_allclose(out, group_norm_ref(x, 2, mask=mask), loose=10)


def test_groups_must_divide_channels():
    with pytest.raises(ValueError, match="groups=3"):
        GroupNormalization(groups=3)(np.ones((2, 4), "float32"))
    with pytest.raises(ValueError, match="groups=8"):
        GroupNormalization(groups=8)(np.ones((2, 4), "float32"))


def test_bad_arguments():
    with pytest.raises(ValueError, match="groups=0"):
        GroupNormalization(groups=0)
    with pytest.raises(ValueError, match="batch axis"):
        GroupNormalization(groups=1, axis=0)(np.ones((2, 4), "float32"))
