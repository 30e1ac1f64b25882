"""The shared machinery of `Optimizer`: clipping, decay, EMA, accumulation, loss scaling,
the stateless form, configs, saving and argument errors. NumPy references use the same
formulas in float64; tolerance rtol 1e-5 unless stated."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import ops, optimizers
from lamina.optimizers import schedules

G1 = np.array([3.0, 4.0], "float32")  # norm 5
G2 = np.array([0.5, -0.25], "float32")


def var(value=(1.0, 2.0), name="w", **kwargs):
    return lamina.Variable(np.array(value, "float32"), name=name, **kwargs)


def close(actual, expected, rtol=1e-5, atol=1e-7):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol)


def test_clipnorm_clips_each_gradient():
    a, b = var(), var((0.0, 0.0), name="b")
    optimizers.SGD(learning_rate=1.0, clipnorm=1.0).apply([G1, G2], [a, b])
    close(a.numpy(), np.array([1.0, 2.0]) - G1 / 5.0)
    close(b.numpy(), -G2)  # norm 0.56 < 1: unchanged


def test_global_clipnorm_scales_all_gradients_together():
    a, b = var(), var((0.0, 0.0), name="b")
    optimizers.SGD(learning_rate=1.0, global_clipnorm=2.0).apply([G1, G2], [a, b])
    total = np.sqrt((G1.astype("float64") ** 2).sum() + (G2.astype("float64") ** 2).sum())
    close(a.numpy(), np.array([1.0, 2.0]) - G1 * 2.0 / total)
    close(b.numpy(), -G2 * 2.0 / total)


def test_clipvalue():
    a = var()
    optimizers.SGD(learning_rate=1.0, clipvalue=3.5).apply([G1], [a])
    close(a.numpy(), [1.0 - 3.0, 2.0 - 3.5])


def test_zero_gradient_survives_clipnorm():
    a = var()
    optimizers.SGD(learning_rate=1.0, clipnorm=1.0).apply([np.zeros(2, "float32")], [a])
    close(a.numpy(), [1.0, 2.0])


def test_weight_decay_and_exclusions():
    a, b, c = var(name="kernel"), var(name="bias"), var(name="gamma")
    opt = optimizers.SGD(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_list=[c], var_names=["bias"])
    opt.apply([G2, G2, G2], [a, b, c])
    w = np.array([1.0, 2.0])
    close(a.numpy(), w - w * 0.5 * 0.1 - 0.1 * G2)
    close(b.numpy(), w - 0.1 * G2)
    close(c.numpy(), w - 0.1 * G2)
    with pytest.raises(ValueError, match="before"):
        opt.exclude_from_weight_decay(var_names=["x"])


def test_ema_and_finalize():
    a = var()
    opt = optimizers.SGD(learning_rate=0.1, use_ema=True, ema_momentum=0.9)
    w, ema = np.array([1.0, 2.0]), None
    for g in (G1, G2, G1):
        opt.apply([g], [a])
        w = w - 0.1 * g
        ema = w.copy() if ema is None else 0.9 * ema + 0.1 * w
    close(a.numpy(), w)
    opt.finalize_variable_values([a])
    close(a.numpy(), ema)


def test_ema_overwrite_frequency():
    a = var()
    opt = optimizers.SGD(
        learning_rate=0.1, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2
    )
    opt.apply([G1], [a])
    w1 = np.array([1.0, 2.0]) - 0.1 * G1
    close(a.numpy(), w1)
    opt.apply([G1], [a])
    w2 = w1 - 0.1 * G1
    close(a.numpy(), 0.5 * w1 + 0.5 * w2)


def test_gradient_accumulation_updates_every_n_steps():
    a = var()
    opt = optimizers.SGD(learning_rate=0.1, gradient_accumulation_steps=3)
    w = np.array([1.0, 2.0])
    for g in (G1, G2):
        opt.apply([g], [a])
        close(a.numpy(), w)
    opt.apply([G1], [a])
    w = w - 0.1 * (G1 + G2 + G1) / 3
    close(a.numpy(), w)
    assert int(opt.iterations.numpy()) == 3
    acc = next(v for v in opt.variables if "accumulator" in v.path)
    close(acc.numpy(), [0.0, 0.0])


def test_adam_state_unchanged_during_accumulation():
    a = var()
    opt = optimizers.Adam(learning_rate=0.1, gradient_accumulation_steps=2)
    opt.apply([G1], [a])
    momentum = next(v for v in opt.variables if v.path.endswith("_momentum"))
    close(momentum.numpy(), [0.0, 0.0])
    opt.apply([G2], [a])
    close(momentum.numpy(), 0.1 * (G1 + G2) / 2)


def test_loss_scale_factor():
    a = var()
    opt = optimizers.SGD(learning_rate=1.0, loss_scale_factor=4.0)
    close(ops.convert_to_numpy(opt.scale_loss(ops.convert_to_tensor(2.0))), 8.0)
    opt.apply([G1 * 4.0], [a])
    close(a.numpy(), np.array([1.0, 2.0]) - G1)


def test_loss_scale_optimizer_skips_and_adjusts():
    a = var()
    opt = optimizers.LossScaleOptimizer(
        optimizers.Adam(learning_rate=0.1), initial_scale=8.0, dynamic_growth_steps=2
    )
    close(ops.convert_to_numpy(opt.scale_loss(ops.convert_to_tensor(1.5))), 12.0)
    opt.apply([np.array([np.inf, 1.0], "float32")], [a])
    close(a.numpy(), [1.0, 2.0])
    close(opt.dynamic_scale.numpy(), 4.0)
    assert int(opt.iterations.numpy()) == 0
    assert all(np.all(v.numpy() == 0) for v in opt.variables if "momentum" in v.path)
    opt.apply([G1 * 4.0], [a])  # unscaled: G1
    assert int(opt.iterations.numpy()) == 1 and int(opt.step_counter.numpy()) == 1
    close(opt.dynamic_scale.numpy(), 4.0)
    close(a.numpy(), np.array([1.0, 2.0]) - 0.1 * np.sign(G1), rtol=1e-4)
    opt.apply([G1 * 4.0], [a])
    close(opt.dynamic_scale.numpy(), 8.0)
    assert int(opt.step_counter.numpy()) == 0
    opt.apply([np.array([np.nan, 0.0], "float32")], [a])
    close(opt.dynamic_scale.numpy(), 4.0)
    assert int(opt.iterations.numpy()) == 2


def test_none_gradients_are_ignored_and_constraints_applied():
    a = var(constraint=lambda x: ops.clip(x, 0.0, 1.5))
    b = var(name="b")
    opt = optimizers.SGD(learning_rate=1.0)
    opt.apply([-G2, None], [a, b])
    close(a.numpy(), [1.5, 1.5])
    close(b.numpy(), [1.0, 2.0])
    opt.apply_gradients([(None, a), (None, b)])  # nothing to do
    assert int(opt.iterations.numpy()) == 1


def test_learning_rate_property_setter_and_schedule():
    opt = optimizers.SGD(learning_rate=0.5)
    close(np.asarray(opt.learning_rate), 0.5)
    opt.learning_rate = 0.25
    close(np.asarray(opt.learning_rate), 0.25)
    sched = schedules.ExponentialDecay(1.0, decay_steps=1, decay_rate=0.5)
    opt2 = optimizers.SGD(learning_rate=sched)
    a = var()
    opt2.apply([G2], [a])
    opt2.apply([G2], [a])
    close(a.numpy(), np.array([1.0, 2.0]) - 1.0 * G2 - 0.5 * G2)
    close(ops.convert_to_numpy(opt2.learning_rate), 0.25)
    with pytest.raises(TypeError, match="schedule"):
        opt2.learning_rate = 0.1
    assert [v.path.split("/")[-1] for v in opt2.variables][:1] == ["iteration"]


@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizers.Adam(learning_rate=0.1, amsgrad=True, use_ema=True),
        lambda: optimizers.SGD(momentum=0.9, gradient_accumulation_steps=2, clipnorm=1.0),
        lambda: optimizers.LossScaleOptimizer(optimizers.RMSprop(centered=True)),
        lambda: optimizers.Nadam(weight_decay=0.01),
        lambda: optimizers.MultiOptimizer(
            optimizers.OptimizerMap(optimizers.SGD(learning_rate=0.1), {"^b$": optimizers.Adam()})
        ),
    ],
)
def test_stateless_apply_equals_apply(make):
    opt_a, opt_b = make(), make()
    va = [var(name="a"), var((0.5, -0.5), name="b")]
    vb = [var(name="a"), var((0.5, -0.5), name="b")]
    opt_a.build(va)
    opt_b.build(vb)
    opt_values = [v.value for v in opt_b.variables]
    tv_values = [v.value for v in vb]
    before = [v.numpy().copy() for v in opt_b.variables]
    for grads in ([G1, G2], [G2, G1], [G1 * 0.5, G2 * 3.0]):
        opt_a.apply(grads, va)
        tv_values, opt_values = opt_b.stateless_apply(
            opt_values, [ops.convert_to_tensor(g) for g in grads], tv_values
        )
    for v, new in zip(va, tv_values):
        close(ops.convert_to_numpy(new), v.numpy(), rtol=1e-6)
    for v, new in zip(opt_a.variables, opt_values):
        close(ops.convert_to_numpy(new), v.numpy(), rtol=1e-6)
    for v, old in zip(opt_b.variables, before):  # nothing was mutated
        close(v.numpy(), old)
    close(vb[0].numpy(), [1.0, 2.0])


def test_stateless_apply_errors():
    opt = optimizers.SGD()
    with pytest.raises(ValueError, match="built"):
        opt.stateless_apply([], [G1], [G1])
    opt.build([var()])
    with pytest.raises(ValueError, match="optimizer_variables_values"):
        opt.stateless_apply([], [G1], [G1])
    with pytest.raises(ValueError, match="trainable_variables_values"):
        opt.stateless_apply([v.value for v in opt.variables], [G1], [])


ALL = [
    optimizers.SGD,
    optimizers.Adam,
    optimizers.AdamW,
    optimizers.Adamax,
    optimizers.Nadam,
    optimizers.RMSprop,
    optimizers.Adagrad,
    optimizers.Adadelta,
    optimizers.Ftrl,
    optimizers.Lion,
    optimizers.Lamb,
    optimizers.Adafactor,
    optimizers.Muon,
    optimizers.ScheduleFreeAdamW,
]


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_config_round_trip(cls):
    opt = cls(learning_rate=0.05, clipnorm=2.0, name="o")
    config = opt.get_config()
    clone = cls.from_config(config)
    assert clone.get_config() == config
    restored = optimizers.deserialize(optimizers.serialize(opt))
    assert type(restored) is cls and restored.get_config() == config


def test_config_with_schedule_and_wrappers():
    opt = optimizers.Adam(learning_rate=schedules.CosineDecay(0.1, 100))
    restored = optimizers.deserialize(optimizers.serialize(opt))
    assert isinstance(restored._learning_rate, schedules.CosineDecay)
    lso = optimizers.LossScaleOptimizer(optimizers.SGD(momentum=0.5), initial_scale=64.0)
    back = optimizers.deserialize(optimizers.serialize(lso))
    assert isinstance(back.inner_optimizer, optimizers.SGD)
    assert back.inner_optimizer.momentum == 0.5 and back.initial_scale == 64.0
    multi = optimizers.MultiOptimizer(
        optimizers.OptimizerMap(optimizers.SGD(), {"enc": optimizers.Adam(learning_rate=0.3)})
    )
    back = optimizers.deserialize(optimizers.serialize(multi))
    assert isinstance(back.optimizer_map["enc"], optimizers.Adam)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_save_and_load_own_variables(cls):
    kernel = lamina.Variable(np.ones((2, 3), "float32"), name="k")
    opt = cls(learning_rate=0.01)
    for _ in range(2):
        opt.apply([np.full((2, 3), 0.3, "float32")], [kernel])
    store: dict = {}
    opt.save_own_variables(store)
    assert sorted(store) == sorted(str(i) for i in range(len(opt.variables)))
    fresh = cls(learning_rate=0.01)
    fresh.build([lamina.Variable(np.ones((2, 3), "float32"), name="k")])
    fresh.load_own_variables(store)
    for a, b in zip(opt.variables, fresh.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="store holds"):
        fresh.load_own_variables({**store, str(len(store)): np.zeros(())})


def test_get_and_names():
    assert isinstance(optimizers.get("adam"), optimizers.Adam)
    assert isinstance(optimizers.get("RMSprop"), optimizers.RMSprop)
    sgd = optimizers.SGD()
    assert optimizers.get(sgd) is sgd
    assert isinstance(optimizers.get(optimizers.Lion), optimizers.Lion)
    got = optimizers.get({"class_name": "adam", "config": {"learning_rate": 0.3}})
    close(np.asarray(got.learning_rate), 0.3)
    with pytest.raises(ValueError, match="identifier"):
        optimizers.get("nope")
    with pytest.raises(ValueError, match="identifier"):
        optimizers.get(3)
    with pytest.raises(TypeError, match="optimizer"):
        optimizers.serialize("adam")
    with pytest.raises(ImportError, match=r"lamina\.optimizers\.Adam"):
        optimizers.legacy.Adam()


def test_multi_optimizer_routes_variables():
    enc = var(name="encoder_kernel")
    dec = var(name="decoder_kernel")
    mapping = optimizers.OptimizerMap(
        optimizers.SGD(learning_rate=1.0), {"encoder": optimizers.SGD(learning_rate=0.1)}
    )
    opt = optimizers.MultiOptimizer(mapping)
    opt.apply([G2, G2], [enc, dec])
    close(enc.numpy(), np.array([1.0, 2.0]) - 0.1 * G2)
    close(dec.numpy(), np.array([1.0, 2.0]) - G2)
    assert len(opt.optimizers) == 2
    with pytest.raises(AttributeError, match="learning_rate"):
        _ = opt.learning_rate
    by_fn = optimizers.MultiOptimizer(
        lambda v: mapping["encoder"] if "encoder" in v.path else mapping.default_optimizer
    )
    by_fn.apply([G2, G2], [enc, dec])
    close(enc.numpy(), np.array([1.0, 2.0]) - 0.2 * G2)
    mapping["enc"] = optimizers.Adam()
    with pytest.raises(ValueError, match="several"):
        mapping.get("encoder_kernel")


def test_bad_arguments():
    with pytest.raises(ValueError, match="only one of"):
        optimizers.SGD(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="ema_momentum"):
        optimizers.Adam(ema_momentum=1.5)
    with pytest.raises(ValueError, match="gradient_accumulation_steps"):
        optimizers.Adam(gradient_accumulation_steps=1)
    with pytest.raises(ValueError, match="learning_rate"):
        optimizers.Adam(lr=0.1)
    with pytest.raises(TypeError, match="unrecognized"):
        optimizers.Adam(foo=1)
    with pytest.raises(ValueError, match="learning_rate"):
        optimizers.Adam(learning_rate="fast")
    with pytest.raises(ValueError, match="beta_1"):
        optimizers.Adam(beta_1=2.0)
    with pytest.raises(ValueError, match="momentum"):
        optimizers.SGD(momentum=-0.1)
    with pytest.raises(ValueError, match="learning_rate_power"):
        optimizers.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="weight_decay"):
        optimizers.AdamW(weight_decay=None)
    with pytest.raises(TypeError, match="inner_optimizer"):
        optimizers.LossScaleOptimizer("adam")
    with pytest.raises(ValueError, match="ns_steps"):
        optimizers.Muon(ns_steps=0)
    opt = optimizers.SGD()
    with pytest.raises(ValueError, match="same length"):
        opt.apply([G1, G2], [var()])
    with pytest.raises(ValueError, match="not built"):
        opt.apply([G1])
    opt.build([var()])
    with pytest.raises(ValueError, match="not one of the variables"):
        opt.apply([G1], [var(name="other")])
    with pytest.raises(ValueError, match="var_list"):
        optimizers.SGD().build([np.zeros(2)])
