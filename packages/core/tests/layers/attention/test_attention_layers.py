"""`GroupQueryAttention`, `Attention`, `AdditiveAttention`, `ReversibleEmbedding`: NumPy
references, masks, configs and the layer contract."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import (
    AdditiveAttention,
    Attention,
    GroupedQueryAttention,
    GroupQueryAttention,
    Input,
    ReversibleEmbedding,
)
from lamina.models import Model
from lamina.testing import assert_allclose, check_layer

RNG = np.random.default_rng(21)
Q = RNG.standard_normal((2, 4, 6)).astype("float32")
V = RNG.standard_normal((2, 5, 6)).astype("float32")
K = RNG.standard_normal((2, 5, 6)).astype("float32")


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_value(x):
    return ops.convert_to_numpy(x).astype("float64")


# --- GroupQueryAttention ------------------------------------------------------------------
class GroupedPair(GroupedQueryAttention):
    """``layer([query, value])`` for `check_layer`."""

    def _maybe_build(self, args):
        super()._maybe_build(tuple(args[0]))

    def call(self, inputs, training=None):
        return super().call(*inputs, training=training)

    def compute_output_shape(self, shapes):
        return super().compute_output_shape(*shapes)

    def compute_output_spec(self, inputs, **kwargs):
        return super().compute_output_spec(*inputs, **kwargs)


def test_gqa_contract():
    check_layer(
        GroupedPair,
        {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2, "dropout": 0.1, "seed": 2},
        [(2, 4, 6), (2, 5, 6)],
        expected_output_shape=(2, 4, 6),
        expected_num_trainable_weights=8,
        custom_objects={"GroupedPair": GroupedPair},
    )


def gqa_ref(layer, q_in, v_in, k_in, mask=None, causal=False):
    w = {"/".join(x.path.split("/")[-2:]): np_value(x.value) for x in layer.weights}
    q = np.einsum("bqm,muh->bquh", q_in, w["query/kernel"]) + w["query/bias"]
    k = np.einsum("bkm,mvh->bkvh", k_in, w["key/kernel"]) + w["key/bias"]
    v = np.einsum("bkm,mvh->bkvh", v_in, w["value/kernel"]) + w["value/bias"]
    groups = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, groups, axis=2), np.repeat(v, groups, axis=2)
    logits = np.einsum("bquh,bkuh->buqk", q, k) / np.sqrt(q.shape[-1])
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask[:, None]
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    probs = softmax(np.where(keep, logits, -1e30)) * keep
    out = np.einsum("buqk,bkuh->bquh", probs, v)
    return np.einsum("bquh,uhm->bqm", out, w["attention_output/kernel"]) + w[
        "attention_output/bias"
    ], probs


@pytest.mark.parametrize("kv_heads", [1, 2, 4])
def test_gqa_matches_numpy(kv_heads):
    layer = GroupQueryAttention(head_dim=3, num_query_heads=4, num_key_value_heads=kv_heads)
    layer(Q, V, K)
    for w in layer.weights:
        w.assign(RNG.standard_normal(tuple(w.shape)).astype("float32") * 0.5)
    expected, probs = gqa_ref(layer, Q, V, K)
    assert_allclose(layer(Q, V, K), expected)
    out, scores = layer(Q, V, K, return_attention_scores=True)
    assert_allclose(out, expected)
    assert_allclose(scores, probs)
    assert tuple(layer.key_dense.kernel.shape) == (6, kv_heads, 3)


def test_gqa_masks_fused_and_reference_agree():
    layer = GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2)
    x = RNG.standard_normal((2, 5, 6)).astype("float32")
    layer(x, x)
    valid = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    mask = valid[:, :, None] & valid[:, None, :]
    expected, probs = gqa_ref(layer, x, x, x, mask=mask, causal=True)
    kwargs = {"query_mask": valid, "value_mask": valid, "use_causal_mask": True}
    out, scores = layer(x, x, return_attention_scores=True, **kwargs)
    assert_allclose(out, expected)
    assert_allclose(scores, probs)
    assert_allclose(ops.convert_to_numpy(layer(x, x, **kwargs))[valid], expected[valid])


def test_gqa_config_and_alias():
    assert GroupQueryAttention is GroupedQueryAttention
    with pytest.raises(ValueError, match="num_key_value_heads"):
        GroupQueryAttention(head_dim=2, num_query_heads=3, num_key_value_heads=2)
    layer = GroupQueryAttention(2, 4, 2, use_bias=False, kernel_initializer="ones", seed=1)
    layer(Q, V)
    config = layer.get_config()
    assert config["num_query_heads"] == 4 and config["head_dim"] == 2
    clone = GroupQueryAttention.from_config(config)
    assert clone.get_config() == config
    clone.build_from_config(layer.get_build_config())
    assert len(clone.weights) == 4
    assert_allclose(clone(Q, V), ops.convert_to_numpy(layer(Q, V)))


# --- Attention and AdditiveAttention ------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"use_scale": True, "score_mode": "concat", "dropout": 0.2, "seed": 4}],
)
def test_attention_contract(kwargs):
    check_layer(
        Attention,
        kwargs,
        [(2, 4, 6), (2, 5, 6)],
        expected_output_shape=(2, 4, 6),
        expected_num_trainable_weights=len(kwargs) and 2,
    )


def test_additive_attention_contract():
    check_layer(
        AdditiveAttention,
        {"dropout": 0.1},
        [(2, 4, 6), (2, 5, 6), (2, 5, 6)],
        expected_output_shape=(2, 4, 6),
        expected_num_trainable_weights=1,
    )


def attention_ref(q, v, k, scores, q_mask=None, v_mask=None, causal=False):
    keep = np.ones(scores.shape, bool)
    if v_mask is not None:
        keep &= v_mask[:, None, :]
    if causal:
        keep &= np.tril(np.ones(scores.shape[-2:], bool))
    probs = softmax(np.where(keep, scores, scores - 1e9))
    out = probs @ v
    if q_mask is not None:
        out = out * q_mask[..., None]
    return out, probs


def test_attention_dot_scaled_with_masks():
    layer = Attention(use_scale=True)
    layer([Q, V, K])
    layer.scale.assign(np.float32(0.7))
    q_mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool)
    v_mask = np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 1]], bool)
    scores = 0.7 * np.einsum("bqd,bkd->bqk", Q, K)
    expected, probs = attention_ref(Q, V, K, scores, q_mask, v_mask, causal=True)
    out, got = layer(
        [Q, V, K], mask=[q_mask, v_mask], return_attention_scores=True, use_causal_mask=True
    )
    assert_allclose(out, expected)
    assert_allclose(got, probs)


def test_attention_concat_scores():
    layer = Attention(score_mode="concat", use_scale=True)
    layer([Q, V])
    layer.scale.assign(np.float32(0.5))
    layer.concat_score_weight.assign(np.float32(1.5))
    scores = 1.5 * np.tanh(0.5 * (Q[:, :, None] + V[:, None])).sum(-1)
    expected, _ = attention_ref(Q, V, V, scores)
    assert_allclose(layer([Q, V]), expected, loose=10)


def test_additive_attention_formula():
    layer = AdditiveAttention()
    layer([Q, V, K])
    scale = np_value(layer.scale.value)
    scores = (scale * np.tanh(Q[:, :, None] + K[:, None])).sum(-1)
    expected, _ = attention_ref(Q, V, K, scores)
    assert_allclose(layer([Q, V, K]), expected, loose=10)
    assert "score_mode" not in layer.get_config()
    assert AdditiveAttention.from_config(layer.get_config()).use_scale


def test_attention_query_mask_propagates_in_functional_model():
    ids = np.array([[3, 4, 0, 0], [5, 6, 7, 0]], "int32")
    inp = Input((4,), dtype="int32")
    x = lamina.layers.Embedding(10, 6, mask_zero=True)(inp)
    y = Attention()([x, x])
    out = lamina.layers.GlobalAveragePooling1D()(y)
    model = Model(inp, out)
    emb = np_value(model.layers[1].embeddings)[ids]
    valid = ids != 0
    scores = np.einsum("bqd,bkd->bqk", emb, emb)
    full, _ = attention_ref(emb, emb, emb, scores, valid, valid)
    expected = full.sum(1) / valid.sum(1, keepdims=True)
    assert_allclose(model.predict(ids, verbose=0), expected, loose=10)


def test_attention_bad_arguments():
    with pytest.raises(ValueError, match="score_mode"):
        Attention(score_mode="add")
    with pytest.raises(ValueError, match="list"):
        Attention()(Q)


# --- ReversibleEmbedding ------------------------------------------------------------------
@pytest.mark.parametrize("tie_weights", [True, False])
def test_reversible_embedding_contract(tie_weights):
    check_layer(
        ReversibleEmbedding,
        {"input_dim": 10, "output_dim": 4, "tie_weights": tie_weights},
        input_data=np.array([[1, 2, 3], [4, 0, 9]], "int32"),
        expected_output_shape=(2, 3, 4),
        expected_num_trainable_weights=1 if tie_weights else 2,
    )


@pytest.mark.parametrize("tie_weights", [True, False])
def test_reversible_embedding_reverse(tie_weights):
    layer = ReversibleEmbedding(10, 4, tie_weights=tie_weights, logit_soft_cap=2.0)
    ids = np.array([[1, 2, 3]], "int32")
    vectors = layer(ids)
    table = np_value(layer.embeddings)
    assert_allclose(vectors, table[ids])
    kernel = table.T if tie_weights else np_value(layer.reverse_embeddings.value)
    logits = np.tanh(table[ids] @ kernel / 2.0) * 2.0
    assert_allclose(layer(vectors, reverse=True), logits)
    sym = layer(Input((3, 4)), reverse=True)
    assert tuple(sym.shape) == (None, 3, 10)


@pytest.mark.half_precision
def test_reversible_embedding_config_and_mixed_reverse_dtype():
    layer = ReversibleEmbedding(
        8, 4, tie_weights=False, reverse_dtype="float32", mask_zero=True, dtype="mixed_float16"
    )
    vectors = layer(np.array([[1, 0]], "int32"))
    assert lamina.ops.dtype(vectors) == "float16"
    assert lamina.ops.dtype(layer(vectors, reverse=True)) == "float32"
    config = layer.get_config()
    assert config["tie_weights"] is False and config["reverse_dtype"] == "float32"
    assert ReversibleEmbedding.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="logit_soft_cap"):
        ReversibleEmbedding(8, 4, logit_soft_cap=-1.0)
