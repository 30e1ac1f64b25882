"""`Progbar` output (captured stdout, which is not a terminal: plain characters)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from lamina.utils import Progbar


def test_verbose_1_final_line(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progbar(4, width=8, interval=10.0)
    for i in range(4):
        bar.update(i + 1, [("loss", 1.0 + i)])
    out = capsys.readouterr().out
    lines = out.splitlines()
    # The first update draws, the throttled middle ones do not, the last one always does.
    assert len(lines) == 2
    assert lines[0].startswith("1/4 ━━────── ")
    assert re.fullmatch(r"4/4 ━{8} \d+s \d+(us|ms|s)/step - loss: 2\.5000", lines[1])
    assert out.endswith("\n")


def test_metrics_are_averaged_by_steps(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progbar(10, interval=0.0, stateful_metrics=["acc"])
    bar.update(2, [("loss", 1.0), ("acc", 0.1)])
    bar.update(10, [("loss", 2.0), ("acc", 0.9)])
    last = capsys.readouterr().out.splitlines()[-1]
    # loss: (1.0 * 2 steps + 2.0 * 8 steps) / 10; acc is stateful: shown as given.
    assert last.endswith(" - loss: 1.8000 - acc: 0.9000")


def test_add_and_small_values(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progbar(3, interval=0.0, unit_name="sample")
    bar.add(1, [("lr", 1e-5)])
    bar.add(2, [("lr", 1e-5)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1/3 ")
    assert lines[-1].startswith("3/3 ")
    assert "/sample - lr: 1.0000e-05" in lines[-1]


def test_verbose_2_prints_once(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progbar(5, verbose=2)
    for i in range(5):
        bar.update(i + 1, [("loss", np.float32(0.5))])
    out = capsys.readouterr().out
    assert re.fullmatch(r"5/5 - \d+s - \d+(us|ms|s)/step - loss: 0\.5000\n", out)


def test_verbose_0_and_unknown_target(capsys: pytest.CaptureFixture[str]) -> None:
    quiet = Progbar(3, verbose=0)
    quiet.update(3, [("loss", 1.0)])
    assert capsys.readouterr().out == ""
    bar = Progbar(None, interval=0.0)
    bar.update(7, [("loss", 0.25)])
    bar.update(9, [("loss", 0.25)], finalize=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("7/Unknown ")
    assert lines[-1].startswith("9/Unknown ") and lines[-1].endswith("- loss: 0.2500")


def test_nothing_after_finalize(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progbar(2, interval=0.0)
    bar.update(2)
    bar.update(2)
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_dynamic_display_redraws_in_place(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAMINA_PROGBAR_DYNAMIC", "1")
    bar = Progbar(2, width=4, interval=0.0)
    bar.update(1)
    bar.update(2)
    out = capsys.readouterr().out
    assert out.startswith("\r1/2 ") and "\r2/2 " in out and out.endswith("\n")
    assert out.count("\n") == 1 and "\x1b[32m" in out


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"target": -1}, "target"), ({"target": 3, "width": 0}, "width"),
     ({"target": 3, "verbose": 3}, "verbose")],
)
def test_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=rf"`{message}`.*Received: {message}="):
        Progbar(**kwargs)


def test_step_time_is_measured_between_updates(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter([100.0, 100.0, 100.5, 101.0])  # construction, then three updates
    monkeypatch.setattr("lamina.utils.progbar._clock", lambda: next(clock))
    bar = Progbar(3, interval=0.0)
    bar.update(1)
    bar.update(2)
    bar.update(3)
    lines = capsys.readouterr().out.splitlines()
    # 0.5 s per step after the first update; the ETA at step 2 is one step away.
    assert lines[1].startswith("2/3 ") and " 0s 500ms/step" in lines[1]
    assert lines[2].startswith("3/3 ") and " 1s 500ms/step" in lines[2]


def test_non_final_update_at_target_is_not_repeated(capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progbar(2, interval=0.0)
    bar.update(1, [("loss", 1.0)])
    bar.update(2, [("loss", 1.0)], finalize=False)
    bar.update(2, [("val_loss", 3.0)], finalize=True)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["1/2", "2/2"]
    assert lines[-1].endswith("loss: 1.0000 - val_loss: 3.0000")
