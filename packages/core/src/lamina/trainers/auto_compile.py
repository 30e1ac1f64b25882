"""`jit_compile="auto"`: time the step both ways during training and keep the faster.

A backend where compiling the step does not always pay (torch.compile, XLA on
TensorFlow) hands `fit` an `AutoCompile` as its train function. It runs the plain step
first. Once the model has trained `TRIAL_AFTER` steps that took `TRIAL_AFTER_SECONDS`
together, and there is enough training left to win a compilation back, it times
`TRIAL_STEPS` plain steps, then compiles: the first
compiled call (the compilation) is not timed, the next `TRIAL_STEPS` are. Recompiles
inside the timed calls stay in their time, so a step that keeps recompiling loses. The
faster mode becomes the model's train function and `model.jit_compile` its bool. Every
call, timed or not, trains on its batches exactly once: both modes update the same
variables, so the trial loses and repeats no step.

Compiling a step costs from seconds to about a minute on a CPU (a recurrent step with
graph breaks), which a short run never wins back. So the trial waits until the plain work
left in the current `fit` (its remaining steps at the plain pace), or the plain training
the model has done over all its `fit` calls, reaches `TRIAL_WORTH_SECONDS`; a `fit` of
unknown length counts as long. Short runs, tests and quick scripts never compile; a loop
of short `fit` calls compiles once its total makes it worth it.

When compiling fails (the first compiled call raises), the variables are put back as they
were before that call, a warning says why, and the batch runs plain; plain is kept.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

TRIAL_AFTER = 10
TRIAL_AFTER_SECONDS = 5.0
TRIAL_STEPS = 3
TRIAL_WORTH_SECONDS = 30.0


def _no_compilations() -> int:
    return 0


def _no_sync() -> None:
    return None


@dataclass
class StepMode:
    """One way to run the train function.

    Attributes:
        name: how the log line names it ("eager", "torch.compile", "tf.function", "XLA").
        jit_compile: the value `model.jit_compile` takes when this mode is chosen.
        function: ``function(batches) -> logs``, one call per `steps_per_execution` batches.
        compilations: how many times the function has compiled so far (0 for plain).
    """

    name: str
    jit_compile: bool
    function: Callable[[list[Any]], Any]
    compilations: Callable[[], int] = field(default=_no_compilations)


@dataclass
class AutoChoice:
    """What the trial measured and chose (kept as ``model._jit_compile_choice``)."""

    chosen: str
    jit_compile: bool
    plain: str
    compiled: str
    plain_step_s: float
    compiled_step_s: float | None
    recompiles: int
    error: str | None = None

    def message(self) -> str:
        """The one line `fit` prints at ``verbose=2``."""
        plain = f"{self.plain} {self.plain_step_s * 1e3:.3f} ms/step"
        if self.compiled_step_s is None:
            return (
                f"jit_compile='auto' chose {self.chosen}: {self.compiled} failed "
                f"({self.error}); {plain}"
            )
        return (
            f"jit_compile='auto' chose {self.chosen}: {plain}, {self.compiled} "
            f"{self.compiled_step_s * 1e3:.3f} ms/step ({self.recompiles} recompiles)"
        )


class AutoCompile:
    """The train function while ``jit_compile="auto"`` has not chosen yet.

    Args:
        model: the model; its `jit_compile`, `train_function` (and, when the compiled
            mode wins, `test_function`/`predict_function`, rebuilt) are set on the choice.
        plain: the mode run first (eager on torch, `tf.function` on TensorFlow).
        compiled_name: the compiled mode's name ("torch.compile", "XLA").
        make_compiled: builds the compiled mode, called when the trial reaches it.
        sync: waits for the device's queued work, so a timed call is a whole step.
        trial_after: steps to train plainly before the trial starts (default
            `TRIAL_AFTER`, read when the train function is made).
        trial_after_seconds: and the seconds those steps must have taken together (default
            `TRIAL_AFTER_SECONDS`).
        trial_steps: timed calls per mode (default `TRIAL_STEPS`).
        trial_worth_seconds: the plain work left in this `fit`, or done over all, that
            makes a trial worth its compilation (default `TRIAL_WORTH_SECONDS`).
        clock: the timer (seconds).
    """

    def __init__(
        self,
        model: Any,
        plain: StepMode,
        compiled_name: str,
        make_compiled: Callable[[], StepMode],
        sync: Callable[[], None] = _no_sync,
        trial_after: int | None = None,
        trial_after_seconds: float | None = None,
        trial_steps: int | None = None,
        trial_worth_seconds: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._model = model
        self._plain = plain
        self._compiled_name = compiled_name
        self._make_compiled = make_compiled
        self._compiled: StepMode | None = None
        self._sync = sync
        self._trial_after = TRIAL_AFTER if trial_after is None else trial_after
        self._trial_after_s = (
            TRIAL_AFTER_SECONDS if trial_after_seconds is None else trial_after_seconds
        )
        self._trial_steps = TRIAL_STEPS if trial_steps is None else max(trial_steps, 1)
        self._worth_s = TRIAL_WORTH_SECONDS if trial_worth_seconds is None else trial_worth_seconds
        self._left: int | None = None  # steps left in the current fit; None: unknown
        self._clock = clock
        self._steps = 0
        self._plain_elapsed = 0.0
        self._plain_times: list[float] = []
        self._compiled_times: list[float] = []
        self._compilations = 0
        self.choice: AutoChoice | None = None
        self.announce: Callable[[str], None] | None = None

    def plan(self, steps: int | None) -> None:
        """A `fit` starts that will run `steps` steps (None: unknown)."""
        self._left = steps

    def _worth_a_trial(self) -> bool:
        if self._steps < self._trial_after or self._plain_elapsed < self._trial_after_s:
            return False
        if self._left is None or self._plain_elapsed >= self._worth_s:
            return True
        return self._left * self._plain_elapsed / max(self._steps, 1) >= self._worth_s

    def __call__(self, batches: list[Any]) -> Any:
        if self._left is not None:
            self._left -= len(batches)
        if self.choice is not None:
            return self._chosen(batches)
        if not self._plain_times and not self._worth_a_trial():
            # Not synced: waiting for the device at every step would slow these steps.
            start = self._clock()
            logs = self._plain.function(batches)
            self._plain_elapsed += self._clock() - start
            self._steps += len(batches)
            return logs
        if len(self._plain_times) < self._trial_steps:
            logs, seconds = self._timed(self._plain.function, batches)
            self._plain_times.append(seconds)
            return logs
        if self._compiled is None:
            return self._first_compiled_call(batches)
        compiled = self._compiled
        before = compiled.compilations()
        logs, seconds = self._timed(compiled.function, batches)
        self._compilations += compiled.compilations() - before
        self._compiled_times.append(seconds)
        if len(self._compiled_times) >= self._trial_steps:
            plain_s, compiled_s = _mean(self._plain_times), _mean(self._compiled_times)
            winner = compiled if compiled_s < plain_s else self._plain
            self._choose(winner, plain_s, compiled_s)
        return logs

    def _chosen(self, batches: list[Any]) -> Any:
        return self._model.train_function(batches)

    def _timed(self, function: Callable[[list[Any]], Any], batches: list[Any]) -> Any:
        start = self._clock()
        logs = function(batches)
        self._sync()
        return logs, (self._clock() - start) / max(len(batches), 1)

    def _first_compiled_call(self, batches: list[Any]) -> Any:
        saved = _snapshot(self._model)
        try:
            compiled = self._make_compiled()
            logs = compiled.function(batches)
            self._sync()
        except Exception as error:  # any failure to compile or run compiled: stay plain
            _restore(self._model, saved)
            reason = f"{type(error).__name__}: {_first_line(error)}"
            warnings.warn(
                "jit_compile='auto' could not compile the train step, so it runs "
                f"uncompiled ({self._plain.name}). The error was {reason}",
                RuntimeWarning,
                stacklevel=3,
            )
            self._choose(self._plain, _mean(self._plain_times), None, reason)
            return self._plain.function(batches)
        self._compiled = compiled
        return logs

    def _choose(
        self,
        mode: StepMode,
        plain_s: float,
        compiled_s: float | None,
        error: str | None = None,
    ) -> None:
        model = self._model
        set_ = object.__setattr__
        set_(model, "jit_compile", mode.jit_compile)
        set_(model, "train_function", mode.function)
        if mode.jit_compile:  # evaluate and predict compile the same way from now on
            set_(model, "test_function", None)
            set_(model, "predict_function", None)
        self.choice = AutoChoice(
            chosen=mode.name,
            jit_compile=mode.jit_compile,
            plain=self._plain.name,
            compiled=self._compiled_name,
            plain_step_s=plain_s,
            compiled_step_s=compiled_s,
            recompiles=max(self._compilations, 0),
            error=error,
        )
        set_(model, "_jit_compile_choice", self.choice)
        if self.announce is not None:
            self.announce(self.choice.message())


def plan_fit(train_function: Any, verbose: int, steps: int | None) -> None:
    """Tells an undecided ``jit_compile="auto"`` that a `fit` of `steps` steps (None:
    unknown) starts; at ``verbose=2`` it prints one line when it chooses."""
    if isinstance(train_function, AutoCompile):
        train_function.announce = print if verbose == 2 else None
        train_function.plan(steps)


def _first_line(error: Exception) -> str:
    # Wrapped errors (torch's BackendCompilerFailed) say what failed on the next line.
    text = " ".join(line.strip() for line in str(error).strip().splitlines()[:2])
    return text[:300]


def auto_train_function(
    model: Any,
    plain: tuple[str, Callable[[list[Any]], Any]],
    compiled: tuple[str, Callable[[], Callable[[list[Any]], Any]]],
    compilations: Callable[[], int],
    sync: Callable[[], None],
) -> Callable[[list[Any]], Any]:
    """The train function of ``jit_compile="auto"`` a backend's trainer hands `fit`: an
    `AutoCompile` over `plain` and the compiled function (made on first use).

    Args:
        model: the model being trained.
        plain: the plain mode's name and ``run(batches) -> logs``.
        compiled: the compiled mode's name and a function making its ``run``.
        compilations: how many compilations the backend has done so far.
        sync: waits for the device's queued work.
    """
    from lamina.distribution import distribution

    if distribution() is not None:
        # Every replica must run the same step, and timings may differ between them.
        object.__setattr__(model, "jit_compile", False)
        return plain[1]
    name, make = compiled
    return AutoCompile(
        model,
        StepMode(plain[0], False, plain[1]),
        name,
        lambda: StepMode(name, True, make(), compilations),
        sync=sync,
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _state_variables(model: Any) -> list[Any]:
    """Every variable a train step may write: the model's, the optimizer's, the metrics'."""
    seen: set[int] = set()
    out = []
    groups = [model.variables, model.metrics_variables]
    if model.optimizer is not None:
        groups.append(model.optimizer.variables)
    for group in groups:
        for variable in group:
            if id(variable) not in seen:
                seen.add(id(variable))
                out.append(variable)
    return out


def _snapshot(model: Any) -> list[tuple[Any, Any]]:
    """The values of every variable a step writes, copied to NumPy (once per trial)."""
    from lamina.ops.core.conversion import convert_to_numpy

    return [(v, convert_to_numpy(v.value).copy()) for v in _state_variables(model)]


def _restore(model: Any, saved: list[tuple[Any, Any]]) -> None:
    for variable, value in saved:
        variable.assign(value)
