"""NumPy references of the attention layers (float64), written from the formulas."""

from __future__ import annotations

import numpy as np


def softmax(x: np.ndarray, axis=-1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def weights_of(layer) -> dict[str, np.ndarray]:
    """A built MultiHeadAttention's kernels and biases by sublayer name."""
    from lamina import ops

    out = {}
    for w in layer.weights:
        sub, name = w.path.split("/")[-2:]
        out[f"{sub}/{name}"] = ops.convert_to_numpy(w.value).astype("float64")
    return out


def mha(query, value, key, weights, num_heads, mask=None, causal=False):
    """Multi-head attention over axis 1 of ``(batch, len, dim)`` inputs.

    `mask` is ``(batch, query_len, key_len)`` bool (True attends). Rows with nothing to
    attend to get zero probabilities, as the layer's masked softmax gives.
    Returns ``(output, probabilities (batch, heads, query_len, key_len))``.
    """
    q = np.einsum("btd,dnh->btnh", query, weights["query/kernel"]) + weights.get("query/bias", 0)
    k = np.einsum("bsd,dnh->bsnh", key, weights["key/kernel"]) + weights.get("key/bias", 0)
    v = np.einsum("bsd,dnh->bsnh", value, weights["value/kernel"]) + weights.get("value/bias", 0)
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(q.shape[-1])
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= np.asarray(mask, bool)[:, None]
    if causal:
        t, s = logits.shape[-2:]
        keep &= np.tril(np.ones((t, s), bool))
    probs = softmax(np.where(keep, logits, -1e30), -1) * keep
    heads = np.einsum("bnts,bsnh->btnh", probs, v)
    out = np.einsum("btnh,nhd->btd", heads, weights["attention_output/kernel"])
    return out + weights.get("attention_output/bias", 0), probs


def padding_mask(query_valid, value_valid) -> np.ndarray:
    """``(batch, query_len, key_len)`` from per-position validity of query and value."""
    return np.asarray(query_valid, bool)[:, :, None] & np.asarray(value_valid, bool)[:, None, :]
