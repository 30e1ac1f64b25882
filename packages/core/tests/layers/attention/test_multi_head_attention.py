"""`MultiHeadAttention` against a NumPy reference: projections, masks, axes, configs."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import Embedding, Input, MultiHeadAttention
from lamina.layers.layer import get_mask
from lamina.models import Model
from lamina.testing import assert_allclose, check_layer

_spec = importlib.util.spec_from_file_location(
    "lamina_attention_test_reference", pathlib.Path(__file__).with_name("reference.py")
)
assert _spec is not None and _spec.loader is not None
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)
mha, padding_mask, softmax, weights_of = (
    reference.mha,
    reference.padding_mask,
    reference.softmax,
    reference.weights_of,
)

RNG = np.random.default_rng(11)
Q = RNG.standard_normal((2, 5, 6)).astype("float32")
V = RNG.standard_normal((2, 7, 4)).astype("float32")
K = RNG.standard_normal((2, 7, 3)).astype("float32")


class SelfAttention(MultiHeadAttention):
    """The layer on one input, as `check_layer` calls a layer: ``layer(x)`` is ``mha(x, x)``."""

    def _maybe_build(self, args):
        super()._maybe_build((args[0], args[0]))

    def call(self, x, training=None):
        return super().call(x, x, training=training)


class CrossAttention(MultiHeadAttention):
    """``layer([query, value, key])``: the list form `check_layer` feeds several inputs in."""

    def _maybe_build(self, args):
        super()._maybe_build(tuple(args[0]))

    def call(self, inputs, training=None):
        return super().call(*inputs, training=training)

    def compute_output_shape(self, shapes):
        return super().compute_output_shape(*shapes)

    def compute_output_spec(self, inputs, **kwargs):
        return super().compute_output_spec(*inputs, **kwargs)


def test_self_attention_contract():
    check_layer(
        SelfAttention,
        {"num_heads": 2, "key_dim": 3, "dropout": 0.25, "seed": 5},
        (2, 4, 6),
        expected_output_shape=(2, 4, 6),
        expected_num_trainable_weights=8,
        expected_num_non_trainable_weights=0,
        custom_objects={"SelfAttention": SelfAttention},
    )


def test_cross_attention_contract_output_shape_no_bias():
    check_layer(
        CrossAttention,
        {"num_heads": 2, "key_dim": 3, "value_dim": 5, "use_bias": False, "output_shape": 8},
        [(2, 4, 6), (2, 3, 4), (2, 3, 5)],
        expected_output_shape=(2, 4, 8),
        expected_num_trainable_weights=4,
        custom_objects={"CrossAttention": CrossAttention},
    )


def test_weights_named_and_shaped_as_keras():
    layer = MultiHeadAttention(num_heads=3, key_dim=2, value_dim=5, name="mha")
    layer(Q, V, K)
    got = {w.path: tuple(w.shape) for w in layer.weights}
    assert got == {
        "mha/query/kernel": (6, 3, 2),
        "mha/query/bias": (3, 2),
        "mha/key/kernel": (3, 3, 2),
        "mha/key/bias": (3, 2),
        "mha/value/kernel": (4, 3, 5),
        "mha/value/bias": (3, 5),
        "mha/attention_output/kernel": (3, 5, 6),
        "mha/attention_output/bias": (6,),
    }
    assert layer.query_dense.name == "query" and layer.output_dense.name == "attention_output"


def _randomized(layer, *inputs):
    layer(*inputs)
    for w in layer.weights:
        w.assign(RNG.standard_normal(tuple(w.shape)).astype("float32") * 0.5)
    return weights_of(layer)


@pytest.mark.parametrize("with_key", [False, True])
def test_matches_numpy_reference(with_key):
    layer = MultiHeadAttention(num_heads=2, key_dim=3)
    args = (Q, V, K) if with_key else (Q, V)
    w = _randomized(layer, *args)
    expected, probs = mha(Q, V, K if with_key else V, w, 2)
    assert_allclose(layer(*args), expected)
    out, scores = layer(*args, return_attention_scores=True)
    assert_allclose(out, expected)
    assert_allclose(scores, probs)


def test_causal_mask_fused_and_reference_paths():
    layer = MultiHeadAttention(num_heads=2, key_dim=4)
    w = _randomized(layer, Q, Q)
    expected, probs = mha(Q, Q, Q, w, 2, causal=True)
    assert_allclose(layer(Q, Q, use_causal_mask=True), expected)
    out, scores = layer(Q, Q, use_causal_mask=True, return_attention_scores=True)
    assert_allclose(out, expected)
    assert_allclose(scores, probs)
    rows, cols = np.triu_indices(5, 1)
    assert np.all(ops.convert_to_numpy(scores)[..., rows, cols] == 0)


def test_explicit_mask_and_causal_mask_combine():
    layer = MultiHeadAttention(num_heads=2, key_dim=3)
    w = _randomized(layer, Q, Q)
    explicit = RNG.uniform(size=(2, 5, 5)) > 0.3
    explicit[:, :, 0] = True
    expected, _ = mha(Q, Q, Q, w, 2, mask=explicit, causal=True)
    got = layer(Q, Q, attention_mask=explicit, use_causal_mask=True)
    assert_allclose(got, expected)
    _, scores = layer(Q, Q, attention_mask=explicit, return_attention_scores=True)
    assert_allclose(scores, mha(Q, Q, Q, w, 2, mask=explicit)[1])


def _padded_ids():
    ids = RNG.integers(1, 9, size=(2, 5)).astype("int32")
    ids[0, 3:] = 0
    ids[1, 4:] = 0
    return ids


def test_padding_mask_from_embedding_mask_zero():
    emb = Embedding(10, 6, mask_zero=True)
    layer = MultiHeadAttention(num_heads=2, key_dim=3)
    ids = _padded_ids()
    x = emb(ids)
    w = _randomized(layer, x, x)
    valid = ids != 0
    xs = ops.convert_to_numpy(x).astype("float64")
    expected, probs = mha(xs, xs, xs, w, 2, mask=padding_mask(valid, valid))
    explicit = {"query_mask": valid, "value_mask": valid}
    # Tensors that hold attributes carry the Embedding's mask; NumPy arrays cannot.
    implicit = get_mask(x) is not None
    for masks in [explicit, {}] if implicit else [explicit]:
        out, scores = layer(x, x, return_attention_scores=True, **masks)
        assert_allclose(out, expected)
        assert_allclose(scores, probs)
        # The fused path agrees wherever the query is not padding (padded rows stay masked).
        fused = ops.convert_to_numpy(layer(x, x, **masks))
        assert_allclose(fused[valid], expected[valid])
    if implicit:
        np.testing.assert_array_equal(ops.convert_to_numpy(get_mask(layer(x, x))), valid)


def test_padding_masks_in_a_functional_model():
    ids = _padded_ids()
    inp = Input((5,), dtype="int32")
    x = Embedding(10, 6, mask_zero=True, name="emb")(inp)
    mha_layer = MultiHeadAttention(num_heads=2, key_dim=3, name="mha")
    y = mha_layer(x, x, use_causal_mask=True)
    pooled = lamina.layers.GlobalAveragePooling1D()(y)
    model = Model(inp, pooled)
    w = _randomized(mha_layer, np.zeros((2, 5, 6), "float32"), np.zeros((2, 5, 6), "float32"))
    table = ops.convert_to_numpy(model.get_layer("emb").embeddings).astype("float64")
    xs = table[ids]
    valid = ids != 0
    full, _ = mha(xs, xs, xs, w, 2, mask=padding_mask(valid, valid), causal=True)
    expected = (full * valid[..., None]).sum(1) / valid.sum(1, keepdims=True)
    assert_allclose(model.predict(ids, verbose=0), expected, loose=10)
    assert_allclose(model(ids), expected, loose=10)


def test_value_mask_applies_in_cross_attention():
    emb_q = Embedding(10, 6, mask_zero=True)
    emb_v = Embedding(10, 4, mask_zero=True)
    q_ids, v_ids = _padded_ids(), RNG.integers(0, 9, size=(2, 7)).astype("int32")
    v_ids[:, 0] = 3
    q, v = emb_q(q_ids), emb_v(v_ids)
    layer = MultiHeadAttention(num_heads=2, key_dim=3)
    w = _randomized(layer, q, v)
    mask = padding_mask(q_ids != 0, v_ids != 0)
    qs, vs = (ops.convert_to_numpy(t).astype("float64") for t in (q, v))
    expected, probs = mha(qs, vs, vs, w, 2, mask=mask)
    out, scores = layer(q, v, query_mask=q_ids != 0, value_mask=v_ids != 0,
                        return_attention_scores=True)
    assert_allclose(out, expected)
    assert_allclose(scores, probs)


def test_several_attention_axes():
    x = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    layer = MultiHeadAttention(num_heads=2, key_dim=3, attention_axes=(1, 2))
    out, scores = layer(x, x, return_attention_scores=True)
    assert tuple(out.shape) == (2, 3, 4, 5)
    assert tuple(scores.shape) == (2, 2, 3, 4, 3, 4)
    w = weights_of(layer)
    q = np.einsum("bxyd,dnh->bxynh", x, w["query/kernel"]) + w["query/bias"]
    k = np.einsum("bxyd,dnh->bxynh", x, w["key/kernel"]) + w["key/bias"]
    v = np.einsum("bxyd,dnh->bxynh", x, w["value/kernel"]) + w["value/bias"]
    logits = np.einsum("bxynh,bpqnh->bnxypq", q, k) / np.sqrt(3)
    probs = softmax(logits.reshape(2, 2, 3, 4, 12), -1).reshape(logits.shape)
    heads = np.einsum("bnxypq,bpqnh->bxynh", probs, v)
    expected = np.einsum("bxynh,nhd->bxyd", heads, w["attention_output/kernel"])
    expected += w["attention_output/bias"]
    assert_allclose(scores, probs)
    assert_allclose(out, expected)


def test_single_non_default_axis_on_rank_4():
    x = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    layer = MultiHeadAttention(num_heads=1, key_dim=2, attention_axes=2)
    out, scores = layer(x, x, return_attention_scores=True)
    assert tuple(scores.shape) == (2, 3, 1, 4, 4)
    assert_allclose(layer(x, x), ops.convert_to_numpy(out))


def test_output_shape_tuple():
    layer = MultiHeadAttention(num_heads=2, key_dim=2, output_shape=(3, 2))
    assert tuple(layer(Q, V).shape) == (2, 5, 3, 2)
    assert layer.compute_output_shape(Q.shape, V.shape) == (2, 5, 3, 2)
    sym = layer(Input((5, 6)), Input((7, 4)))
    assert tuple(sym.shape) == (None, 5, 3, 2)


def test_symbolic_scores_and_keyword_call():
    layer = MultiHeadAttention(num_heads=2, key_dim=2)
    q, v = Input((5, 6)), Input((7, 4))
    out, scores = layer(query=q, value=v, return_attention_scores=True)
    assert tuple(out.shape) == (None, 5, 6) and tuple(scores.shape) == (None, 2, 5, 7)
    model = Model([q, v], [out, scores])
    got_out, got_scores = model.predict([Q, V], verbose=0)
    eager_out, eager_scores = layer(Q, V, return_attention_scores=True)
    assert_allclose(got_out, ops.convert_to_numpy(eager_out))
    assert_allclose(got_scores, ops.convert_to_numpy(eager_scores))


def test_dropout_only_in_training():
    layer = MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.5, seed=1)
    inference = ops.convert_to_numpy(layer(Q, V))
    assert_allclose(layer(Q, V, training=False), inference)
    trained = ops.convert_to_numpy(layer(Q, V, training=True))
    assert not np.allclose(trained, inference)


def test_flash_attention_refuses_scores():
    layer = MultiHeadAttention(num_heads=2, key_dim=3, flash_attention=True)
    layer(Q, V)
    with pytest.raises(ValueError, match="return_attention_scores"):
        layer(Q, V, return_attention_scores=True)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_heads": 0, "key_dim": 2}, "num_heads"),
        ({"num_heads": 2, "key_dim": -1}, "key_dim"),
        ({"num_heads": 2, "key_dim": 2, "dropout": 1.5}, "dropout"),
        ({"num_heads": 2, "key_dim": 2, "attention_axes": "x"}, "attention_axes"),
        ({"num_heads": 2, "key_dim": 2, "flash_attention": "yes"}, "flash_attention"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MultiHeadAttention(**kwargs)


def test_value_is_required():
    with pytest.raises(ValueError, match="value"):
        MultiHeadAttention(num_heads=2, key_dim=2)(Q)


def test_config_and_build_config_round_trip():
    layer = MultiHeadAttention(
        num_heads=2,
        key_dim=3,
        value_dim=4,
        dropout=0.1,
        use_bias=False,
        output_shape=(5,),
        attention_axes=(1,),
        kernel_initializer="he_normal",
        kernel_regularizer="l2",
        seed=3,
    )
    layer(Q, V)
    config = layer.get_config()
    assert config["output_shape"] == [5] and config["attention_axes"] == [1]
    clone = MultiHeadAttention.from_config(config)
    assert clone.get_config() == config
    build = layer.get_build_config()
    assert build == {"shapes_dict": {"query_shape": [2, 5, 6], "value_shape": [2, 7, 4]}}
    clone.build_from_config(build)
    assert [tuple(w.shape) for w in clone.weights] == [tuple(w.shape) for w in layer.weights]
    clone.set_weights(layer.get_weights())
    assert_allclose(clone(Q, V), ops.convert_to_numpy(layer(Q, V)))
    assert len(layer.losses) == 4  # the l2 penalty on each of the four kernels


def test_gate_multiplies_heads_by_sigmoid_of_query_projection():
    layer = MultiHeadAttention(num_heads=2, key_dim=3, use_gate=True)
    w = _randomized(layer, Q, V)
    assert [x.path.split("/")[-2] for x in layer.weights][4:6] == ["gate", "gate"]
    plain = MultiHeadAttention(num_heads=2, key_dim=3)
    plain(Q, V)
    for var in plain.weights:
        var.assign(w["/".join(var.path.split("/")[-2:])].astype("float32"))
    _, probs = plain(Q, V, return_attention_scores=True)
    v = np.einsum("bsd,dnh->bsnh", V, w["value/kernel"]) + w["value/bias"]
    heads = np.einsum("bnts,bsnh->btnh", ops.convert_to_numpy(probs), v)
    gate = np.einsum("btd,dnh->btnh", Q, w["gate/kernel"]) + w["gate/bias"]
    gated = heads / (1.0 + np.exp(-gate))
    expected = np.einsum("btnh,nhd->btd", gated, w["attention_output/kernel"])
    assert_allclose(layer(Q, V), expected + w["attention_output/bias"], loose=10)
    assert layer.get_config()["use_gate"] is True


@pytest.mark.parametrize("causal", [False, True])
def test_sliding_window_is_a_band(causal):
    x = RNG.standard_normal((2, 7, 6)).astype("float32")
    layer = MultiHeadAttention(num_heads=2, key_dim=3, sliding_window=3)
    w = _randomized(layer, x, x)
    i, j = np.indices((7, 7))
    band = np.broadcast_to(np.abs(i - j) < 3, (2, 7, 7))
    expected, probs = mha(x, x, x, w, 2, mask=band, causal=causal)
    out, scores = layer(x, x, use_causal_mask=causal, return_attention_scores=True)
    assert_allclose(scores, probs)
    assert_allclose(out, expected)
    assert_allclose(layer(x, x, use_causal_mask=causal), expected)
    with pytest.raises(ValueError, match="sliding_window"):
        MultiHeadAttention(num_heads=2, key_dim=3, sliding_window=0)
