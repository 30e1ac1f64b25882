"""The backends' fused attention kernels against the unfused formula (float32, 1e-5).

`ops.dot_product_attention` runs each backend's fused kernel; the reference is the same
attention written out in `lamina.ops`. Dropout is off throughout.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lamina import ops
from lamina.layers import Input, MultiHeadAttention
from lamina.models import Model
from lamina.ops.nn.conv.attention import reference_dot_product_attention
from lamina.testing import assert_allclose

RNG = np.random.default_rng(5)

CASES = list(
    itertools.product(
        [(4, 4), (4, 2), (4, 1)],  # query heads, key/value heads
        [None, "padding", "full"],  # no mask, a (batch, 1, 1, keys) mask, a full mask
        [False, True],  # causal
        [False, True],  # bias
    )
)


def _ids(case):
    (n, kv), mask, causal, bias = case
    return f"h{n}kv{kv}-{mask or 'nomask'}{'-causal' if causal else ''}{'-bias' if bias else ''}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_fused_matches_reference(case):
    (n, kv), mask_kind, causal, with_bias = case
    t, s = 6, 6 if causal else 7
    q = RNG.standard_normal((2, t, n, 8)).astype("float32")
    k = RNG.standard_normal((2, s, kv, 8)).astype("float32")
    v = RNG.standard_normal((2, s, kv, 8)).astype("float32")
    mask = None
    if mask_kind == "padding":
        valid = np.ones((2, s), bool)
        valid[0, 4:] = False
        mask = valid[:, None, None, :]
    elif mask_kind == "full":
        mask = RNG.uniform(size=(2, 1, t, s)) > 0.3
        mask[1, 0, 2] = False  # one query with every key masked
    bias = RNG.standard_normal((1, n, t, s)).astype("float32") if with_bias else None
    fused = ops.dot_product_attention(q, k, v, bias=bias, mask=mask, is_causal=causal)
    reference = reference_dot_product_attention(q, k, v, bias=bias, mask=mask, is_causal=causal)
    assert_allclose(fused, ops.convert_to_numpy(reference), "float32", loose=1.0)
    assert fused.shape == (2, t, n, 8)


def test_fused_scale_and_soft_cap():
    q, k, v = (RNG.standard_normal((1, 5, 2, 4)).astype("float32") for _ in range(3))
    cases = ({"scale": 0.3}, {"attn_logits_soft_cap": 1.5}, {"scale": 2.0, "is_causal": True})
    for kwargs in cases:
        fused = ops.dot_product_attention(q, k, v, **kwargs)
        reference = reference_dot_product_attention(q, k, v, **kwargs)
        assert_allclose(fused, ops.convert_to_numpy(reference))


def test_mha_fused_path_matches_scores_path_in_a_compiled_model():
    """In `predict` (each backend's compiled step) the layer without scores runs the fused
    kernel; with scores it forms the probabilities: the outputs agree."""
    x = RNG.standard_normal((4, 6, 8)).astype("float32")
    valid = np.ones((4, 6), bool)
    valid[1, 3:] = False
    inp, keep = Input((6, 8)), Input((6,), dtype="bool")
    layer = MultiHeadAttention(num_heads=2, key_dim=4)
    fused = layer(inp, inp, query_mask=keep, value_mask=keep, use_causal_mask=True)
    formed, _ = layer(
        inp, inp, query_mask=keep, value_mask=keep, use_causal_mask=True,
        return_attention_scores=True,
    )
    model = Model([inp, keep], [fused, formed])
    got_fused, got_formed = model.predict([x, valid], verbose=0)
    # Padded query rows differ by design (the kernel averages, the masked softmax zeroes).
    assert_allclose(got_fused[valid], got_formed[valid])
