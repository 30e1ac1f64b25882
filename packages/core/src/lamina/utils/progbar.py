"""`Progbar`: the text progress bar `fit`, `evaluate` and `predict` print."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

_DONE = "━"
_REMAINING = "─"
_GREEN = "\x1b[32m"
_DIM = "\x1b[37m"
_RESET = "\x1b[0m"


def _clock() -> float:
    """Seconds from a monotonic clock (a function of its own so tests can replace it)."""
    return time.monotonic()


def _format_duration(seconds: float) -> str:
    """Whole seconds under a minute, ``m:ss`` under an hour, else ``h:mm:ss``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f}s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60}:{whole % 60:02d}"
    return f"{whole // 3600}:{(whole % 3600) // 60:02d}:{whole % 60:02d}"


def _format_per_unit(seconds: float, unit_name: str) -> str:
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s/{unit_name}"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/{unit_name}"
    return f"{seconds * 1e6:.0f}us/{unit_name}"


def _format_value(value: Any) -> str:
    array = np.asarray(value)
    if array.ndim == 0 and array.dtype.kind in "fiub":
        number = float(array)
        return f"{number:.4f}" if abs(number) > 1e-3 or number == 0 else f"{number:.4e}"
    return str(value)


def _is_dynamic(stream: Any) -> bool:
    """Whether `stream` redraws lines in place (a terminal or a notebook)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) or "ipykernel" in sys.modules or bool(
        os.environ.get("LAMINA_PROGBAR_DYNAMIC")
    )


class Progbar:
    """A progress bar with an ETA and running averages of the metrics.

    Args:
        target: the total number of steps, or None when unknown.
        width: the bar's width in characters.
        verbose: 0 silent, 1 a live bar, 2 one line when the target is reached.
        interval: the least time in seconds between two redraws.
        stateful_metrics: names whose values are shown as given rather than averaged.
        unit_name: the unit of `target` ("step", "sample", ...).

    Example:
        ```python
        bar = Progbar(32)
        for i in range(32):
            bar.update(i + 1, [("loss", 0.1)])
        # 32/32 ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - loss: 0.1000
        ```
    """

    def __init__(
        self,
        target: int | None,
        width: int = 30,
        verbose: int = 1,
        interval: float = 0.05,
        stateful_metrics: Iterable[str] | None = None,
        unit_name: str = "step",
    ) -> None:
        if target is not None and (isinstance(target, bool) or target < 0):
            raise ValueError(
                f"Argument `target` must be a non-negative int or None. Received: target={target!r}"
            )
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"Argument `width` must be a positive int. Received: width={width!r}")
        if verbose not in (0, 1, 2):
            raise ValueError(f"Argument `verbose` must be 0, 1 or 2. Received: verbose={verbose!r}")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic = _is_dynamic(sys.stdout)
        # name -> [weighted sum, weight]; stateful metrics keep [value, 1].
        self._values: dict[str, list[Any]] = {}
        self._order: list[str] = []
        self._seen_so_far = 0
        self._start = _clock()
        self._last_update = 0.0
        self._total_width = 0
        self._finalized = False
        # The first update's time and step: later rates are measured from there, so a bar
        # created lazily (at the first batch's end) does not report near-zero step times.
        self._first: tuple[float, int] | None = None

    def add(self, n: int, values: list[tuple[str, Any]] | None = None) -> None:
        """Advance by `n` steps (see `update`)."""
        self.update(self._seen_so_far + n, values)

    def update(
        self,
        current: int,
        values: list[tuple[str, Any]] | None = None,
        finalize: bool | None = None,
    ) -> None:
        """Move the bar to step `current` and record metric values.

        Args:
            current: the index of the current step (1-based count of steps done).
            values: ``(name, value)`` pairs; values of names not in `stateful_metrics`
                are averaged over the steps since the start.
            finalize: whether this is the last update; defaults to ``current >= target``.
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or ():
            if name not in self._values:
                self._order.append(name)
            if name in self.stateful_metrics:
                self._values[name] = [value, 1]
                continue
            steps = max(current - self._seen_so_far, 1)
            total = self._values.setdefault(name, [0.0, 0])
            total[0] = total[0] + np.asarray(value, dtype=np.float64) * steps
            total[1] += steps
        self._seen_so_far = current
        now = _clock()
        if self._first is None:
            self._first = (now, current)
        if self.verbose == 0 or self._finalized:
            return
        if self.verbose == 1:
            if not finalize and now - self._last_update < self.interval:
                return
            at_end = self.target is not None and current >= self.target
            if not finalize and at_end and not self._dynamic:
                return  # the final line follows; printing this one too would repeat it
            self._write_line(self._bar_line(current, now, finalize), finalize)
        elif finalize:
            self._write_line(self._summary_line(current, now), True)
        self._last_update = now
        self._finalized = bool(finalize)

    # --- rendering -------------------------------------------------------------------------
    def _average(self, name: str) -> Any:
        total, weight = self._values[name]
        if name in self.stateful_metrics:
            return total
        return total / max(weight, 1)

    def _metrics_text(self) -> str:
        return "".join(f" - {n}: {_format_value(self._average(n))}" for n in self._order)

    def _time_per_unit(self, current: int, now: float) -> float:
        if self._first is not None and current > self._first[1]:
            return (now - self._first[0]) / (current - self._first[1])
        return (now - self._start) / current if current else 0.0

    def _bar_line(self, current: int, now: float, finalize: bool) -> str:
        per_unit = self._time_per_unit(current, now)
        if self.target is None:
            head = f"{current}/Unknown {_format_duration(now - self._start)}"
            return f"{head} {_format_per_unit(per_unit, self.unit_name)}{self._metrics_text()}"
        digits = len(str(self.target))
        head = f"{current:>{digits}}/{self.target} {self._bar(current)}"
        if finalize:
            shown = now - self._start
        else:
            shown = per_unit * max(self.target - current, 0)  # the ETA
        return (
            f"{head} {_format_duration(shown)} {_format_per_unit(per_unit, self.unit_name)}"
            f"{self._metrics_text()}"
        )

    def _bar(self, current: int) -> str:
        assert self.target is not None
        fraction = min(current / self.target, 1.0) if self.target else 1.0
        done = int(self.width * fraction)
        todo = self.width - done
        if self._dynamic:
            return f"{_GREEN}{_DONE * done}{_RESET}{_DIM}{_DONE * todo}{_RESET}"
        return _DONE * done + _REMAINING * todo

    def _summary_line(self, current: int, now: float) -> str:
        per_unit = self._time_per_unit(current, now)
        count = f"{current}/{self.target}" if self.target is not None else f"{current}"
        return (
            f"{count} - {_format_duration(now - self._start)} - "
            f"{_format_per_unit(per_unit, self.unit_name)}{self._metrics_text()}"
        )

    def _write_line(self, line: str, finalize: bool) -> None:
        out = sys.stdout
        if self._dynamic and self.verbose == 1:
            padding = max(self._total_width - len(line), 0)
            out.write("\r" + line + " " * padding + ("\n" if finalize else ""))
            self._total_width = len(line)
        else:
            out.write(line + "\n")
        out.flush()
