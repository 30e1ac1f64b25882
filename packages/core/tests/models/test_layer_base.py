"""The `Layer` base: tracking, build, weights, training flag, masks, losses, dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.layers import Layer
from lamina.testing import assert_allclose


def ones(shape, dtype=None):
    return np.ones(shape, dtype)


class Scale(Layer):
    """Multiplies by a per-feature weight; records the training flag it saw."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer=ones, name="w")

    def call(self, x, training=None):
        self.seen_training = training
        return x * self.w


class Counter(Layer):
    """A non-trainable counter updated on every training call (like moving statistics)."""

    def build(self, input_shape):
        self.count = self.add_weight(shape=(), initializer=ones, trainable=False, name="count")

    def call(self, x, training=None):
        if training:
            self.count.assign(self.count + 1.0)
        return x


class Block(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.first = Scale()
        self.rest = [Scale()]
        self.named = {"counter": Counter()}

    def call(self, x, training=None):
        x = self.first(x)
        for layer in self.rest:
            x = layer(x)
        return self.named["counter"](x)


X = np.arange(6, dtype="float32").reshape(2, 3)


def test_builds_on_first_call_with_nested_paths():
    block = Block(name="block")
    assert not block.built and block.weights == []
    out = block(X)
    assert block.built
    assert_allclose(out, X)
    assert [v.path for v in block.weights] == [
        "block/scale/w",
        "block/scale_1/w",
        "block/counter/count",
    ]


def test_later_list_and_dict_entries_are_tracked_in_order():
    block = Block()
    block.rest.append(Scale())
    block.named["extra"] = Scale()
    block(X)
    block.named["extra"](X)  # not used by `call`: built here
    assert len(block._layers) == 5
    assert len(block.trainable_weights) == 4
    assert len(block.non_trainable_weights) == 1
    del block.named["extra"]
    assert len(block._layers) == 4


def test_freezing_is_recursive_and_keeps_non_trainable_state_frozen():
    block = Block()
    block(X)
    block.trainable = False
    assert block.trainable_weights == []
    assert all(not layer.trainable for layer in block._flatten_layers())
    block.trainable = True
    assert len(block.trainable_weights) == 2
    assert block.named["counter"].count.trainable is False


def test_training_flag_reaches_nested_layers():
    block = Block()
    block(X, training=True)
    assert block.first.seen_training is True
    block(X)
    assert block.first.seen_training is None


def test_stateless_call_is_pure_and_matches_call():
    block = Block()
    block(X)
    trainable = [np.full(v.shape, 2.0, "float32") for v in block.trainable_variables]
    non_trainable = [v.numpy() for v in block.non_trainable_variables]
    out, new_state = block.stateless_call(trainable, non_trainable, X, training=True)
    assert_allclose(out, X * 4.0)
    assert_allclose(new_state[0], np.array(2.0, "float32"))
    assert_allclose(block.named["counter"].count, np.array(1.0, "float32"))
    assert_allclose(block.first.w, np.ones(3, "float32"))
    with pytest.raises(ValueError, match="trainable_variables"):
        block.stateless_call([], non_trainable, X)


def test_get_and_set_weights_check_count_and_shape():
    layer = Scale()
    layer(X)
    layer.set_weights([np.full((3,), 3.0, "float32")])
    assert_allclose(layer(X), X * 3.0)
    with pytest.raises(ValueError, match="expects 1 weight arrays"):
        layer.set_weights([])
    with pytest.raises(ValueError, match=r"shape \(3,\).*\(4,\)"):
        layer.set_weights([np.ones(4, "float32")])
    assert layer.count_params() == 3
    with pytest.raises(ValueError, match="not built"):
        Scale().count_params()


def test_own_variables_round_trip_and_mismatch_errors():
    layer = Scale(name="s")
    layer(X)
    store: dict = {}
    layer.save_own_variables(store)
    other = Scale()
    other(X)
    other.load_own_variables({"0": store["0"] * 5})
    assert_allclose(other.w, np.full(3, 5.0, "float32"))
    with pytest.raises(ValueError, match="expects 1 variables"):
        other.load_own_variables({})
    with pytest.raises(ValueError, match=r"expected shape \(3,\), got \(2,\)"):
        other.load_own_variables({"0": np.ones(2, "float32")})


class WithLoss(Layer):
    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1],), initializer=ones, regularizer=lambda w: ops.sum(w * w)
        )

    def call(self, x):
        self.add_loss(ops.mean(x))
        return x * self.w


def test_losses_collect_add_loss_and_regularization_from_nested_layers():
    outer = Block()
    outer.first = WithLoss()
    outer(X)
    values = sorted(float(ops.convert_to_numpy(v)) for v in outer.losses)
    assert values == [pytest.approx(float(X.mean())), pytest.approx(3.0)]
    outer(X)  # losses from the previous call are cleared, not accumulated
    assert len(outer.losses) == 2


def test_the_first_loss_added_anywhere_is_cleared_by_the_next_call(monkeypatch):
    # Calls skip clearing losses until some layer has added one: the first one added must
    # still be cleared, not accumulated.
    from lamina.layers import layer as layer_module

    monkeypatch.setattr(layer_module, "_LOSS_ADDED", [False])
    outer = Block()
    outer.first = Scale()
    outer(X)
    outer.first.add_loss(ops.convert_to_tensor(5.0))
    assert [float(ops.convert_to_numpy(v)) for v in outer.losses] == [5.0]
    outer(X)
    assert outer.losses == []


class MaskProducer(Layer):
    def compute_mask(self, inputs, previous_mask):
        return ops.not_equal(inputs, 0.0)

    def call(self, x):
        return x


class MaskConsumer(Layer):
    def call(self, x, mask=None):
        self.received = mask
        return x if mask is None else x * ops.cast(mask, x.dtype)


def test_masks_flow_through_a_functional_model():
    inputs = lamina.Input((3,))
    outputs = MaskConsumer()(MaskProducer()(inputs))
    model = lamina.models.Model(inputs, outputs)
    data = np.array([[0.0, 2.0, 3.0]], "float32")
    assert_allclose(model(data), data)
    consumer = model.layers[-1]
    assert consumer.received is not None
    assert ops.convert_to_numpy(consumer.received).tolist() == [[False, True, True]]


def test_mixed_precision_computes_in_half_and_stores_float32():
    layer = Scale(dtype="mixed_float16")
    out = layer(X)
    assert ops.dtype(out) == "float16"
    assert layer.w.dtype == "float32"
    assert layer.compute_dtype == "float16" and layer.variable_dtype == "float32"
    symbolic = layer(lamina.Input((3,)))
    assert symbolic.dtype == "float16"


def test_dtype_policy_errors_name_the_argument():
    with pytest.raises(ValueError, match="dtype"):
        Scale(dtype="not_a_dtype")
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        Scale(units=3)


def test_symbolic_call_gives_shape_and_records_a_node():
    layer = Scale()
    x = lamina.Input((3,))
    y = layer(x)
    assert y.shape == (None, 3)
    assert layer.inbound_nodes and layer.output is y and layer.input is x
    assert layer.compute_output_shape((None, 3)) == (None, 3)


def test_config_captures_simple_constructor_arguments():
    class Custom(Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def call(self, x):
            return x

    layer = Custom(4, name="c")
    config = layer.get_config()
    assert config["units"] == 4 and config["name"] == "c"
    clone = Custom.from_config(config)
    assert clone.units == 4


def test_input_spec_is_checked_again_for_a_new_shape_or_spec():
    layer = Scale()
    layer.input_spec = lamina.layers.InputSpec(ndim=2)
    layer(X)
    layer(X)  # the same kind of input as last time: accepted without a new check
    with pytest.raises(ValueError, match="expected ndim=2"):
        layer(X[0])
    layer.input_spec = lamina.layers.InputSpec(ndim=3)
    with pytest.raises(ValueError, match="expected ndim=3"):
        layer(X)


def test_nested_layers_added_after_a_call_are_seen():
    block = Block()
    block(X)
    assert len(block._flatten_layers()) == 4
    block.rest.append(Scale())
    block.extra = Scale()
    assert len(block._flatten_layers()) == 6
    del block.extra
    assert len(block._flatten_layers()) == 5
    assert [layer.name for layer in block._flatten_layers(include_self=False)] == [
        layer.name for layer in block._flatten_layers()[1:]
    ]


def test_initializers_skipped_starts_float_weights_at_zero_only_inside():
    from lamina.layers.layer import initializers_skipped

    class Mixed(Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(3,), initializer=ones, name="w")
            self.n = self.add_weight(shape=(2,), initializer="ones", dtype="int32", name="n")

    with initializers_skipped():
        inside = Mixed()
        inside.build((None, 3))
    outside = Mixed()
    outside.build((None, 3))
    assert_allclose(inside.w.numpy(), np.zeros(3))
    assert_allclose(inside.n.numpy(), np.ones(2))  # not a float: its initializer ran
    assert_allclose(outside.w.numpy(), np.ones(3))
