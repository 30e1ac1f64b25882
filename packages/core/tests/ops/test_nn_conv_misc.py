"""Attention, CTC and patch ops against NumPy references (brute force where it is cheap)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops import dtypes
from lamina.testing import assert_allclose

RNG = np.random.default_rng(1)


def _rand(*shape):
    return RNG.normal(size=shape).astype("float32")


# ----------------------------------------------------------------------------- attention


def ref_attention(q, k, v, bias=None, mask=None, scale=None, causal=False, cap=None):
    b, t, n, h = q.shape
    s, kv = k.shape[1], k.shape[2]
    scale = 1 / np.sqrt(h) if scale is None else scale
    out = np.zeros((b, t, n, v.shape[-1]))
    full_bias = np.zeros((b, n, t, s)) if bias is None else np.broadcast_to(bias, (b, n, t, s))
    keep = np.ones((b, n, t, s), bool) if mask is None else np.broadcast_to(mask, (b, n, t, s))
    for bi, ni, ti in itertools.product(range(b), range(n), range(t)):
        kh = ni // (n // kv)
        logits = k[bi, :, kh].astype("float64") @ q[bi, ti, ni] * scale + full_bias[bi, ni, ti]
        if cap is not None:
            logits = cap * np.tanh(logits / cap)
        ok = keep[bi, ni, ti] & ((np.arange(s) <= ti) if causal else True)
        logits = np.where(ok, logits, -0.7 * np.finfo("float32").max)
        p = np.exp(logits - logits.max())
        out[bi, ti, ni] = (p / p.sum()) @ v[bi, :, kh]
    return out


ATTENTION = [
    dict(),
    dict(scale=0.3),
    dict(causal=True),
    dict(cap=2.0),
    dict(bias=True),
    dict(mask=True),
    dict(mask=True, causal=True, bias=True),
]


@pytest.mark.parametrize("heads", [(4, 4), (4, 2)], ids=["mha", "gqa"])
@pytest.mark.parametrize("kw", ATTENTION, ids=lambda d: "-".join(d) or "plain")
def test_attention_matches_reference(kw, heads):
    n, kv = heads
    q, k, v = _rand(2, 3, n, 8), _rand(2, 5, kv, 8), _rand(2, 5, kv, 6)
    bias = _rand(1, n, 3, 5) if kw.get("bias") else None
    mask = RNG.random((2, 1, 3, 5)) > 0.3 if kw.get("mask") else None
    got = ops.dot_product_attention(
        q,
        k,
        v,
        bias,
        mask,
        kw.get("scale"),
        kw.get("causal", False),
        attn_logits_soft_cap=kw.get("cap"),
    )
    want = ref_attention(
        q, k, v, bias, mask, kw.get("scale"), kw.get("causal", False), kw.get("cap")
    )
    assert tuple(got.shape) == (2, 3, n, 6)
    assert_allclose(got, want, "float32", loose=10)


@pytest.mark.half_precision
def test_attention_symbolic_and_promotion():
    q = lamina.KerasTensor((None, 7, 4, 8), "float16")
    kv = lamina.KerasTensor((None, None, 2, 8), "float32")
    out = ops.dot_product_attention(q, kv, kv, mask=lamina.KerasTensor((None, 1, 7, None), "bool"))
    assert out.shape == (None, 7, 4, 8)
    assert out.dtype == dtypes.result_type("float16", "float32")
    x = np.ones((1, 2, 2, 4), "float16")
    assert ops.dtype(ops.dot_product_attention(x, x, x)) == "float16"
    assert ops.dtype(ops.dot_product_attention(x.astype("int32"), x, x)) == "float16"


ATTENTION_ERRORS = [
    lambda: ops.dot_product_attention(np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones((2, 3, 4))),
    lambda: ops.dot_product_attention(
        np.ones((1, 3, 4, 8)), np.ones((1, 5, 3, 8)), np.ones((1, 5, 3, 8))
    ),
    lambda: ops.dot_product_attention(
        np.ones((1, 3, 4, 8)), np.ones((1, 5, 4, 6)), np.ones((1, 5, 4, 8))
    ),
    lambda: ops.dot_product_attention(
        np.ones((1, 3, 4, 8)), np.ones((1, 5, 4, 8)), np.ones((1, 6, 4, 8))
    ),
    lambda: ops.dot_product_attention(
        np.ones((1, 3, 4, 8)),
        np.ones((1, 5, 4, 8)),
        np.ones((1, 5, 4, 8)),
        bias=np.ones((1, 4, 3, 4)),
    ),
    lambda: ops.dot_product_attention(
        np.ones((1, 3, 4, 8)),
        np.ones((1, 5, 4, 8)),
        np.ones((1, 5, 4, 8)),
        attn_logits_soft_cap=-1.0,
    ),
]


@pytest.mark.parametrize("fn", ATTENTION_ERRORS)
def test_attention_bad_inputs(fn):
    with pytest.raises(ValueError, match="`dot_product_attention`"):
        fn()


# ----------------------------------------------------------------------------- CTC


def _log_softmax(x):
    x = x.astype("float64")
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _collapse(path, blank):
    out = []
    prev = None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return tuple(out)


def _label_probs(logits, length, blank):
    """Every label sequence's probability, by enumerating all alignments (tiny inputs)."""
    logp = _log_softmax(logits[:length])
    probs: dict[tuple[int, ...], float] = {}
    for path in itertools.product(range(logits.shape[-1]), repeat=length):
        key = _collapse(path, blank)
        probs[key] = probs.get(key, 0.0) + np.exp(sum(logp[t, c] for t, c in enumerate(path)))
    return probs


@pytest.mark.parametrize("blank", [0, 3])
def test_ctc_loss_matches_brute_force(blank):
    logits = _rand(3, 5, 4)
    labels = [c for c in range(4) if c != blank]
    target = np.array([[labels[0], labels[1]], [labels[2], labels[2]], [labels[1], 0]], "int32")
    tlen = np.array([2, 2, 1], "int32")
    olen = np.array([5, 4, 3], "int32")
    got = ops.ctc_loss(target, logits, tlen, olen, mask_index=blank)
    want = [
        -np.log(_label_probs(logits[i], olen[i], blank)[tuple(target[i, : tlen[i]])])
        for i in range(3)
    ]
    assert ops.dtype(got) == "float32"
    assert_allclose(got, want, "float32", loose=10)


def ref_greedy(logits, lengths, merge, blank):
    out = np.full((1, logits.shape[0], logits.shape[1]), -1)
    scores = np.zeros((logits.shape[0], 1))
    for i in range(logits.shape[0]):
        path = logits[i, : lengths[i]].argmax(-1)
        scores[i, 0] = -logits[i, : lengths[i]].max(-1).sum()
        seq = _collapse(path, blank) if merge else tuple(c for c in path if c != blank)
        out[0, i, : len(seq)] = seq
    return out, scores


@pytest.mark.parametrize(("merge", "blank"), [(True, 0), (False, 0), (True, 2)])
def test_ctc_greedy_decode_matches_reference(merge, blank):
    logits = _rand(3, 8, 4)
    logits[0, 2:4, 1] += 10  # a repeated label
    lengths = np.array([8, 5, 1], "int32")
    decoded, scores = ops.ctc_decode(logits, lengths, merge_repeated=merge, mask_index=blank)
    want_d, want_s = ref_greedy(logits, lengths, merge, blank)
    assert ops.dtype(decoded) == "int32"
    np.testing.assert_array_equal(ops.convert_to_numpy(decoded), want_d)
    assert_allclose(scores, want_s, "float32", loose=10)


def test_ctc_beam_search_finds_the_most_likely_labelings():
    logits = _rand(2, 4, 3)
    lengths = np.array([4, 3], "int32")
    decoded, scores = ops.ctc_decode(logits, lengths, "beam_search", beam_width=30, top_paths=2)
    decoded = ops.convert_to_numpy(decoded)
    assert decoded.shape == (2, 2, 4)
    for i in range(2):
        ranked = sorted(_label_probs(logits[i], lengths[i], 0).items(), key=lambda kv: -kv[1])
        for p in range(2):
            seq, prob = ranked[p]
            assert tuple(decoded[p, i][decoded[p, i] >= 0]) == seq
            assert_allclose(ops.convert_to_numpy(scores)[i, p], np.log(prob), "float32", loose=10)


def test_ctc_symbolic_shapes():
    x = lamina.KerasTensor((None, 20, 5))
    loss = ops.ctc_loss(
        lamina.KerasTensor((None, 6), "int32"),
        x,
        lamina.KerasTensor((None,), "int32"),
        lamina.KerasTensor((None,), "int32"),
    )
    assert (loss.shape, loss.dtype) == ((None,), "float32")
    decoded, scores = ops.ctc_decode(x, lamina.KerasTensor((None,), "int32"))
    assert (decoded.shape, decoded.dtype) == ((1, None, 20), "int32")
    assert scores.shape == (None, 1)
    decoded, scores = ops.ctc_decode(
        x, lamina.KerasTensor((None,), "int32"), "beam_search", top_paths=3
    )
    assert decoded.shape == (3, None, 20) and scores.shape == (None, 3)


CTC_ERRORS = [
    (
        "ctc_loss",
        ValueError,
        lambda: ops.ctc_loss(np.ones((2, 3), "int32"), np.ones((2, 5)), [3, 3], [5, 5]),
    ),
    (
        "ctc_loss",
        ValueError,
        lambda: ops.ctc_loss(np.ones((2, 3), "int32"), np.ones((3, 5, 4)), [3, 3], [5, 5]),
    ),
    (
        "ctc_loss",
        ValueError,
        lambda: ops.ctc_loss(np.ones((2, 3), "int32"), np.ones((2, 5, 4)), [3, 3], [5, 5], 4),
    ),
    (
        "ctc_loss",
        TypeError,
        lambda: ops.ctc_loss(np.ones((2, 3)), np.ones((2, 5, 4)), [3, 3], [5, 5]),
    ),
    ("ctc_decode", ValueError, lambda: ops.ctc_decode(np.ones((2, 5, 4)), [5, 5], "best")),
    ("ctc_decode", ValueError, lambda: ops.ctc_decode(np.ones((2, 5)), [5, 5])),
    (
        "ctc_decode",
        ValueError,
        lambda: ops.ctc_decode(np.ones((2, 5, 4)), [5, 5], "beam_search", 2, 3),
    ),
]


@pytest.mark.parametrize(("name", "exc", "fn"), CTC_ERRORS, ids=[e[0] for e in CTC_ERRORS])
def test_ctc_bad_inputs(name, exc, fn):
    with pytest.raises(exc, match=f"`{name}`"):
        fn()


# ----------------------------------------------------------------------------- patches


def ref_depth_to_space(x, b):
    n, h, w, c = x.shape
    cc = c // (b * b)
    out = np.zeros((n, h * b, w * b, cc), x.dtype)
    for i, j, k in itertools.product(range(b), range(b), range(cc)):
        out[:, i::b, j::b, k] = x[:, :, :, (i * b + j) * cc + k]
    return out


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_depth_space_round_trip_matches_reference(data_format):
    x = _rand(2, 3, 4, 8)
    want = ref_depth_to_space(x, 2)
    to = (lambda a: a) if data_format == "channels_last" else (lambda a: np.moveaxis(a, -1, 1))
    back = (lambda a: a) if data_format == "channels_last" else (lambda a: np.moveaxis(a, 1, -1))
    got = ops.depth_to_space(to(x), 2, data_format)
    assert_allclose(back(ops.convert_to_numpy(got)), want)
    assert_allclose(back(ops.convert_to_numpy(ops.space_to_depth(got, 2, data_format))), x)
    ints = np.arange(2 * 4 * 6 * 3, dtype="int32").reshape(2, 4, 6, 3)
    assert ops.dtype(ops.space_to_depth(ints, 2)) == "int32"


def ref_unfold(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow), x.dtype)
    for i, j, a, b in itertools.product(range(k[0]), range(k[1]), range(oh), range(ow)):
        out[:, :, i, j, a, b] = xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


def ref_fold(cols, size, k, d, p, s):
    n = cols.shape[0]
    c = cols.shape[1] // (k[0] * k[1])
    h, w = size
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    blocks = cols.reshape(n, c, k[0], k[1], oh, ow)
    out = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), cols.dtype)
    for i, j, a, b in itertools.product(range(k[0]), range(k[1]), range(oh), range(ow)):
        out[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]] += blocks[:, :, i, j, a, b]
    return out[:, :, p[0] : p[0] + h, p[1] : p[1] + w]


PATCH_CASES = [
    ((2, 2), (1, 1), (0, 0), (1, 1)),
    ((3, 2), (1, 2), (1, 0), (2, 1)),
    ((2, 3), (2, 1), (1, 2), (1, 2)),
]


@pytest.mark.parametrize(("k", "d", "p", "s"), PATCH_CASES)
def test_unfold_and_fold_match_reference(k, d, p, s):
    x = _rand(2, 3, 7, 6)
    cols = ops.unfold(x, k, d, p, s)
    want = ref_unfold(x, k, d, p, s)
    assert_allclose(cols, want)
    y = _rand(*want.shape)
    assert_allclose(ops.fold(y, (7, 6), k, d, p, s), ref_fold(y, (7, 6), k, d, p, s), loose=10)


def test_patch_symbolic_shapes():
    assert ops.unfold(lamina.KerasTensor((None, 3, 8, 8)), 2, stride=2).shape == (None, 12, 16)
    assert ops.unfold(lamina.KerasTensor((2, 3, None, 8)), 3).shape == (2, 27, None)
    out = ops.fold(lamina.KerasTensor((None, 12, 16), "float16"), (8, 8), 2, stride=2)
    assert (out.shape, out.dtype) == ((None, 3, 8, 8), "float16")
    assert ops.depth_to_space(lamina.KerasTensor((None, None, 4, 8)), 2).shape == (None, None, 8, 2)
    assert ops.space_to_depth(lamina.KerasTensor((None, 2, 4, 4)), 2, "channels_first").shape == (
        None,
        8,
        2,
        2,
    )


PATCH_ERRORS = [
    ("depth_to_space", lambda: ops.depth_to_space(np.ones((1, 2, 2, 6)), 2)),
    ("depth_to_space", lambda: ops.depth_to_space(np.ones((1, 2, 8)), 2)),
    ("space_to_depth", lambda: ops.space_to_depth(np.ones((1, 3, 4, 2)), 2)),
    ("space_to_depth", lambda: ops.space_to_depth(np.ones((1, 4, 4, 2)), 1)),
    ("unfold", lambda: ops.unfold(np.ones((3, 8, 8)), 2)),
    ("unfold", lambda: ops.unfold(np.ones((1, 3, 2, 2)), 3)),
    ("fold", lambda: ops.fold(np.ones((1, 12, 15)), (8, 8), 2, stride=2)),
    ("fold", lambda: ops.fold(np.ones((1, 12, 16)), (8, 8), (2, 2, 2))),
]


@pytest.mark.parametrize(("name", "fn"), PATCH_ERRORS, ids=[e[0] for e in PATCH_ERRORS])
def test_patch_bad_inputs(name, fn):
    with pytest.raises(ValueError, match=f"`{name}`"):
        fn()
