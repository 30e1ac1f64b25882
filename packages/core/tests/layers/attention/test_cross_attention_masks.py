"""Cross-attention in a functional model gets the value's padding mask in compiled steps.

The functional graph hands a layer the masks of its tensor arguments as ``<name>_mask``
(Keras 3's rule); inside a jitted JAX step the masks cannot ride on the arrays, so this is
the only way `value_mask` reaches `MultiHeadAttention` there.
"""

from __future__ import annotations

import numpy as np

import lamina
from lamina import layers, ops
from lamina.testing import assert_allclose

QUERY = np.array([[1, 2, 3, 0], [4, 5, 0, 0]], dtype="int32")
VALUE = np.array([[6, 7, 0, 0, 0], [8, 9, 1, 2, 0]], dtype="int32")


def test_value_padding_mask_reaches_attention_in_predict() -> None:
    lamina.utils.set_random_seed(0)
    q_in, v_in = lamina.Input((4,), dtype="int32"), lamina.Input((5,), dtype="int32")
    q = layers.Embedding(10, 8, mask_zero=True)(q_in)
    v = layers.Embedding(10, 8, mask_zero=True)(v_in)
    attention = layers.MultiHeadAttention(num_heads=2, key_dim=4)
    model = lamina.Model([q_in, v_in], attention(q, v))
    model.compile(loss="mse")  # predict then runs the backend's compiled step (jit on JAX)
    got = model.predict([QUERY, VALUE], verbose=0)
    # The same call with the masks given by hand (on fresh tensors that carry none).
    q_eager = ops.convert_to_tensor(ops.convert_to_numpy(model.layers[2](QUERY)))
    v_eager = ops.convert_to_tensor(ops.convert_to_numpy(model.layers[3](VALUE)))
    want = attention(
        q_eager, v_eager, query_mask=ops.not_equal(QUERY, 0), value_mask=ops.not_equal(VALUE, 0)
    )
    assert_allclose(got, ops.convert_to_numpy(want), dtype="float32")
    # And not what attending to the padding gives.
    unmasked = attention(q_eager, v_eager, query_mask=ops.not_equal(QUERY, 0))
    assert not np.allclose(got, ops.convert_to_numpy(unmasked), atol=1e-4)
