"""Kit 1.8 to 1.11: `ModuleBackend.assemble` (a backend from its `Namespaces` and its three
classes), `TrainableStateVariable`, `InLayout` and `fused_attention`."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lamina.backend import Capability, generic_runtime, kit
from lamina.ops.dispatch import backend


def _namespaces_of(b: kit.Backend, **runtime: kit.RuntimeOps) -> kit.Namespaces:
    return kit.Namespaces(
        b.core, b.control_flow, b.numpy, b.nn, b.math, b.linalg, b.image, b.random, **runtime
    )


def test_assemble_gives_the_backend_the_namespaces_classes_and_capabilities() -> None:
    active = backend()
    made = kit.ModuleBackend.assemble(
        "copy",
        [Capability.FLOAT64, Capability.FLOAT64],
        _namespaces_of(active, runtime=active.runtime),
        (active.variable_class, active.layer_mixin, active.trainer_mixin),
        fused=active.fused,
    )
    assert made.name == "copy" and made.capabilities == frozenset({Capability.FLOAT64})
    for field in dataclasses.fields(kit.Namespaces):
        assert getattr(made, field.name) is getattr(active, field.name), field.name
    assert made.variable_class is active.variable_class
    assert made.trainer_mixin is active.trainer_mixin
    assert made.fused is active.fused


def test_assemble_defaults_are_the_fields_defaults() -> None:
    active = backend()
    made = kit.ModuleBackend.assemble(
        "bare",
        (),
        _namespaces_of(active),
        (active.variable_class, active.layer_mixin, active.trainer_mixin),
    )
    assert made.runtime is generic_runtime
    assert (made.fused, made.distribution, made.export) == (None, None, None)
    assert dict(made.optimizer_rules) == {} and made.step_modes == ({},)
    assert made.api_version == kit.ModuleBackend.__dataclass_fields__["api_version"].default
    assert not made.supports(Capability.TRAINING)


def test_trainable_state_variables_follow_each_change_of_the_flag() -> None:
    # kit 1.9: torch's and TensorFlow's variables keep the flag on their native state.
    cls = backend().variable_class
    if not issubclass(cls, kit.TrainableStateVariable):
        pytest.skip("this backend's variables keep no trainable flag of their own")
    seen = []

    class Watched(cls):  # type: ignore[valid-type,misc]
        def _follow_trainable(self) -> None:
            seen.append(self.trainable)
            super()._follow_trainable()

    v = Watched(np.ones((2,), "float32"), trainable=False)
    v.trainable = True
    assert seen == [False, True] and v.trainable


def test_in_layout_moves_the_channel_axis_around_a_one_layout_kernel() -> None:
    # kit 1.10: the kernel sees its own layout; the member takes either data_format.
    seen = []

    def kernel(x, size, strides, pads):
        seen.append(x.shape)
        return x[:, :: strides[0], :]

    pool = kit.InLayout("channels_last", np.moveaxis).pool(kernel)
    x = np.arange(2 * 3 * 4).reshape(2, 3, 4)  # (batch, channels, steps)
    out = pool(x, (1,), (2,), ((0, 0),), "channels_first")
    np.testing.assert_array_equal(out, x[:, :, ::2])
    assert seen == [(2, 4, 3)]
    first = kit.InLayout("channels_first", np.moveaxis)
    assert first.to(x, "channels_first") is x
    np.testing.assert_array_equal(first.back(first.to(x, "channels_last"), "channels_last"), x)


def test_fused_attention_hands_soft_capped_calls_to_the_formula() -> None:
    # kit 1.11: the kernel sees one AttentionCall, never a soft cap.
    calls = []

    @kit.fused_attention
    def member(call: kit.AttentionCall) -> str:
        calls.append(call)
        return "fused"

    q = np.zeros((1, 2, 1, 4), "float32")
    assert member(q, q, q, None, None, 0.5, True, 30.0) is None
    assert member(q, q, q, None, None, 0.5, True, None) == "fused"
    assert len(calls) == 1 and calls[0].scale == 0.5 and calls[0].is_causal
