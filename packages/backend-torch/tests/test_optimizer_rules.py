"""torch's fused Adam rule: the same updates as `Adam.update_step`, only where it applies."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from lamina import optimizers
from lamina.variables import Variable
from lamina_torch import optimizers as rules

RNG = np.random.default_rng(0)
SHAPES = [(3, 4), (4,), (2, 2, 3)]
GRADS = [[RNG.normal(size=s).astype("float32") for s in SHAPES] for _ in range(5)]


def _variables(dtype: str = "float32") -> list[Variable]:
    start = np.random.default_rng(1)
    return [Variable(start.normal(size=s).astype(dtype)) for s in SHAPES]


def _train(make: Any, dtype: str = "float32") -> tuple[list[Any], list[Any]]:
    """Weights and optimizer state after applying `GRADS`."""
    variables = _variables(dtype)
    optimizer = make()
    for grads in GRADS:
        optimizer.apply([g.astype(dtype) for g in grads], variables)
    return [v.numpy() for v in variables], [v.numpy() for v in optimizer.variables]


def _without_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(rules.RULES, optimizers.Adam)


MAKERS = [
    lambda: optimizers.Adam(learning_rate=0.1),
    lambda: optimizers.Adam(learning_rate=0.05, beta_1=0.5, epsilon=1e-3, amsgrad=True),
    lambda: optimizers.AdamW(learning_rate=0.1, weight_decay=0.1, clipnorm=1.0),
    lambda: optimizers.Adam(learning_rate=0.1, gradient_accumulation_steps=2, use_ema=True),
]


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("path", ["fused_cpu", "multi_tensor"])
def test_rule_matches_the_update_step_loop(make, path, monkeypatch):
    if path == "multi_tensor":  # the path for devices other than the CPU, run on the CPU
        monkeypatch.setattr(rules, "_fused_cpu", rules._multi_tensor)
    fused_weights, fused_state = _train(make)
    monkeypatch.undo()
    _without_rule(monkeypatch)
    loop_weights, loop_state = _train(make)
    for got, want in zip(fused_weights + fused_state, loop_weights + loop_state):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_rule_declines_what_it_does_not_handle():
    optimizer = optimizers.Adam()
    variables = _variables("float64")
    optimizer.build(variables)
    grads = [torch.ones(s, dtype=torch.float64) for s in SHAPES]
    assert rules.adam(optimizer, grads, variables, 0.1) is False
    assert rules.adam(optimizer, [], [], 0.1) is False
    # Applied through the optimizer, float64 variables take the loop and still update.
    weights, _ = _train(optimizers.Adam, "float64")
    assert all(np.isfinite(w).all() for w in weights)
    assert not np.allclose(weights[0], _variables("float64")[0].numpy())


def test_a_subclass_with_its_own_rule_never_gets_the_fused_one(monkeypatch):
    def refuse(*args: Any) -> bool:
        raise AssertionError("the fused Adam rule ran for a different update_step")

    monkeypatch.setitem(rules.RULES, optimizers.Adam, refuse)

    class HalfStepAdam(optimizers.Adam):
        def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
            super().update_step(gradient, variable, learning_rate * 0.5)

    weights, _ = _train(lambda: HalfStepAdam(learning_rate=0.1))
    assert not np.allclose(weights[0], _variables()[0].numpy())


def test_parameters_that_require_grad_update_outside_no_grad():
    variables = _variables()
    assert all(v.value.requires_grad for v in variables)
    optimizers.Adam(learning_rate=0.1).apply(GRADS[0], variables)
    assert torch.is_grad_enabled()


@pytest.mark.parametrize("make", [optimizers.Adam, optimizers.AdamW])
def test_adam_and_adamw_take_the_rule(make, monkeypatch):
    calls = []

    def counted(*args: Any) -> bool:
        calls.append(1)
        return rules.adam(*args)

    monkeypatch.setitem(rules.RULES, optimizers.Adam, counted)
    _train(make)
    assert len(calls) == len(GRADS)
