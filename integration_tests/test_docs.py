"""Every Python block of the getting-started guide runs, in order, in one namespace."""

from __future__ import annotations

import pathlib
import re

GUIDE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "getting-started.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_getting_started_blocks_run(capsys):
    blocks = python_blocks(GUIDE.read_text())
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), namespace)
    assert "Total params" in capsys.readouterr().out


def test_readme_example_runs(tmp_path, monkeypatch):
    readme = GUIDE.parent.parent / "README.md"
    blocks = python_blocks(readme.read_text())
    assert blocks
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(readme), "exec"), namespace)
    model, x, y = namespace["model"], namespace["x"], namespace["y"]
    accuracy = model.evaluate(x[1500:], y[1500:], verbose=0)[1]
    assert accuracy > 0.85
    assert (tmp_path / "digits.lamina").exists()
