"""`jit_compile="auto"`: the chooser (with a fake clock) and the real trial in `fit`."""

from __future__ import annotations

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability
from lamina.testing import assert_allclose
from lamina.trainers import auto_compile
from lamina.trainers.auto_compile import AutoCompile, StepMode

training = pytest.mark.requires(Capability.TRAINING)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 4)).astype("float32")
Y = (X[:, :1] > 0).astype("float32")


def _model(seed: int = 3) -> lamina.Model:
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=lamina.optimizers.SGD(0.1), loss="binary_crossentropy")
    return model


class _Clock:
    """Time that moves only when a fake step runs."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _modes(clock, ran, plain_s, compiled_s, recompile_at=None, fail=False):
    """A plain and a compiled fake step that log which mode ran each batch."""
    count = [0]

    def plain(batches):
        for b in batches:
            ran.append(("plain", b))
            clock.now += plain_s
        return {"mode": "plain"}

    def compiled(batches):
        if fail:
            raise RuntimeError("cannot trace this step\nthe op is not supported")
        calls = sum(1 for mode, _ in ran if mode == "compiled")
        if calls == 0 or calls == recompile_at:
            count[0] += 1
            clock.now += 10.0  # a compilation
        for b in batches:
            ran.append(("compiled", b))
            clock.now += compiled_s
        return {"mode": "compiled"}

    def make():
        return StepMode("fast", True, compiled, lambda: count[0])

    return StepMode("plain", False, plain), make


def _chooser(model, clock, ran, plain_s, compiled_s, **kwargs):
    plain, make = _modes(clock, ran, plain_s, compiled_s, **kwargs)
    return AutoCompile(
        model, plain, "fast", make, trial_after=2, trial_after_seconds=0.0, clock=clock
    )


@pytest.mark.parametrize("compiled_s, winner", [(1.0, "fast"), (3.0, "plain")])
def test_chooser_keeps_the_faster_mode_and_runs_every_batch_once(compiled_s, winner):
    model, clock, ran = _model(), _Clock(), []
    object.__setattr__(model, "jit_compile", "auto")
    object.__setattr__(model, "test_function", "stale")
    chooser = _chooser(model, clock, ran, plain_s=2.0, compiled_s=compiled_s)
    object.__setattr__(model, "train_function", chooser)
    for step in range(12):
        model.train_function([step])
    # 2 untimed plain + 3 timed plain, 1 compiling + 3 timed compiled, then the winner.
    assert [b for _, b in ran] == list(range(12))
    assert [m for m, _ in ran[:9]] == ["plain"] * 5 + ["compiled"] * 4
    chosen = "compiled" if winner == "fast" else "plain"
    assert {m for m, _ in ran[9:]} == {chosen}
    choice = chooser.choice
    assert choice is not None and choice.chosen == winner
    assert model.jit_compile is (winner == "fast")
    assert model._jit_compile_choice is choice
    assert choice.plain_step_s == 2.0 and choice.compiled_step_s == compiled_s
    assert model.train_function is not chooser
    assert (model.test_function is None) is (winner == "fast")  # rebuilt compiled


def test_chooser_counts_recompiles_against_the_compiled_mode():
    model, clock, ran = _model(), _Clock(), []
    chooser = _chooser(model, clock, ran, plain_s=2.0, compiled_s=1.0, recompile_at=2)
    messages = []
    chooser.announce = messages.append
    for step in range(10):
        chooser([step, step])  # steps_per_execution=2: times are per step
    choice = chooser.choice
    # 1.0 per step, plus one 10 s recompile inside 3 timed calls of 2 steps: 1 + 10/6.
    assert choice.recompiles == 1 and choice.chosen == "plain"
    np.testing.assert_allclose(choice.compiled_step_s, 1.0 + 10.0 / 6, rtol=1e-9)
    assert messages == [choice.message()]
    assert "chose plain" in messages[0] and "1 recompiles" in messages[0]


def test_chooser_waits_for_the_plain_steps_to_take_long_enough():
    model, clock, ran = _model(), _Clock(), []
    plain, make = _modes(clock, ran, plain_s=2.0, compiled_s=1.0)
    chooser = AutoCompile(
        model, plain, "fast", make, trial_after=1, trial_after_seconds=7.0, clock=clock
    )
    for step in range(4):
        chooser([step])
    assert [m for m, _ in ran] == ["plain"] * 4  # 8 s of plain steps before the trial
    chooser([4])
    assert ran[-1][0] == "plain" and chooser.choice is None


def test_chooser_tries_compiling_only_when_enough_training_is_left_or_done():
    model, clock, ran = _model(), _Clock(), []
    plain, make = _modes(clock, ran, plain_s=2.0, compiled_s=1.0)
    chooser = AutoCompile(
        model,
        plain,
        "fast",
        make,
        trial_after=1,
        trial_after_seconds=0.0,
        trial_steps=1,
        trial_worth_seconds=30.0,
        clock=clock,
    )
    chooser.plan(10)  # 20 s of plain steps in all: never 30 s left, nor 30 s done
    for step in range(10):
        chooser([step])
    assert [m for m, _ in ran] == ["plain"] * 10 and chooser.choice is None
    chooser.plan(10)  # a loop of short fits: after 15 steps, 30 s of plain training
    for step in range(10, 20):
        chooser([step])
    assert [m for m, _ in ran[10:]] == ["plain"] * 6 + ["compiled"] * 4
    assert chooser.choice is not None and chooser.choice.chosen == "fast"


def test_chooser_tries_early_in_a_fit_with_enough_left():
    model, clock, ran = _model(), _Clock(), []
    plain, make = _modes(clock, ran, plain_s=2.0, compiled_s=1.0)
    chooser = AutoCompile(
        model, plain, "fast", make, trial_after=2, trial_after_seconds=0.0, trial_steps=1,
        trial_worth_seconds=30.0, clock=clock,
    )  # fmt: skip
    chooser.plan(40)  # after 2 steps, 37 left: 74 s of plain work
    for step in range(4):
        chooser([step])
    assert [m for m, _ in ran] == ["plain", "plain", "plain", "compiled"]


@training
def test_failing_compile_restores_the_weights_and_stays_plain_with_a_warning():
    model = _model()
    model.fit(X[:16], Y[:16], batch_size=16, epochs=1, verbose=0)  # builds every variable
    before = [v.numpy().copy() for v in model.weights]
    clock, ran = _Clock(), []
    plain, _ = _modes(clock, ran, plain_s=2.0, compiled_s=1.0)

    def broken(batches):
        model.weights[0].assign(np.full((4, 1), 7.0, "float32"))  # a half-run step
        raise RuntimeError("cannot trace this step\nthe op is not supported")

    chooser = AutoCompile(
        model,
        plain,
        "fast",
        lambda: StepMode("fast", True, broken),
        trial_after=0,
        trial_after_seconds=0.0,
        trial_steps=1,
        clock=clock,
    )
    chooser([0])
    with pytest.warns(RuntimeWarning, match="could not compile.*the op is not supported"):
        chooser([1])
    assert [b for _, b in ran] == [0, 1]  # the failed batch ran plain, once
    for v, b in zip(model.weights, before):
        assert_allclose(v, b)
    assert model.jit_compile is False and chooser.choice.compiled_step_s is None
    assert "fast failed" in chooser.choice.message()


def test_jit_compile_rejects_values_other_than_bools_and_auto():
    model = _model()
    with pytest.raises(ValueError, match=r"`jit_compile`.*Received: jit_compile='yes'"):
        model.compile(loss="mse", jit_compile="yes")
    model.compile(loss="mse", jit_compile="auto", run_eagerly=True)
    assert model.jit_compile is False


def _fit(model, epochs=2):
    history = model.fit(X, Y, batch_size=8, epochs=epochs, shuffle=False, verbose=2)
    return history.history["loss"], [w.copy() for w in model.get_weights()]


@training
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.compile's own imports
def test_auto_chooses_during_fit_and_trains_as_the_plain_step(monkeypatch, capsys):
    model = _model(seed=5)
    if model.jit_compile != "auto":
        pytest.skip("this backend resolves jit_compile='auto' at compile time")
    monkeypatch.setattr(auto_compile, "TRIAL_AFTER", 1)
    monkeypatch.setattr(auto_compile, "TRIAL_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(auto_compile, "TRIAL_STEPS", 2)
    monkeypatch.setattr(auto_compile, "TRIAL_WORTH_SECONDS", 0.0)
    losses, weights = _fit(model)  # 16 steps: 1 plain, 2 timed plain, 3 compiled, chosen
    choice = model._jit_compile_choice
    assert choice is not None, "the trial did not finish within 16 steps"
    assert model.jit_compile is choice.jit_compile
    out = capsys.readouterr().out
    assert out.count("jit_compile='auto' chose") == 1 and choice.message() in out
    reference = _model(seed=5)
    reference.compile(
        optimizer=lamina.optimizers.SGD(0.1), loss="binary_crossentropy", jit_compile=False
    )
    ref_losses, ref_weights = _fit(reference)
    # Compiled kernels may reorder float32 sums: a few ulps per step over 16 steps.
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    for w, r in zip(weights, ref_weights):
        assert_allclose(w, r, loose=10)
