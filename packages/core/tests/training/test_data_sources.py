"""Data sources as Keras 3 programs use them: torch loaders' list batches, forked workers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backend import Capability
from lamina.backend.registry import current

X = np.random.default_rng(0).normal(size=(12, 3)).astype("float32")
Y = X.sum(axis=1, keepdims=True)


class TupleChecking(lamina.Sequential):
    """Unpacks each batch as a tuple, as custom steps in Keras programs do."""

    seen: list[str]

    def train_step(self, *args):  # (data,), or (state, data) on JAX
        self.seen.append(type(args[-1]).__name__)
        return super().train_step(*args)

    def test_step(self, data):
        self.seen.append(type(data).__name__)
        x, y = data
        return super().test_step((x, y))


def test_torch_loader_list_batches_reach_the_steps_as_tuples():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=4)
    assert isinstance(next(iter(loader)), list)  # what the loader itself yields
    model = TupleChecking([lamina.Input((3,)), layers.Dense(1)])
    model.seen = []
    model.compile(optimizer="sgd", loss="mse")
    model.evaluate(loader, verbose=0)
    if current().supports(Capability.TRAINING):
        model.fit(loader, epochs=1, verbose=0)
    assert model.seen and set(model.seen) == {"tuple"}


SCRIPT = """
import os
import numpy as np
import lamina
from lamina import layers

class Pids(lamina.utils.PyDataset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.offset = lambda i: 10.0 * i  # a lambda: the dataset cannot be pickled

    def __len__(self):
        return 4

    def __getitem__(self, i):
        pid = np.full((2, 1), os.getpid(), "float32")
        return np.concatenate([pid, np.full((2, 1), self.offset(i), "float32")], axis=1)

model = lamina.Sequential([lamina.Input((2,)), layers.Rescaling(1.0)])
out = model.predict(Pids(workers=2, use_multiprocessing=True), verbose=0)
print("OFFSETS", out[:, 1].tolist())
print("IN_PARENT", os.getpid() in set(out[:, 0].astype(int).tolist()))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork is used on Linux")
def test_multiprocessing_workers_run_from_a_script_without_a_main_guard(tmp_path: Path):
    script = tmp_path / "no_main_guard.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = {**os.environ, "PYTHONWARNINGS": "error::RuntimeWarning"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300,
        env=env, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "OFFSETS [0.0, 0.0, 10.0, 10.0, 20.0, 20.0, 30.0, 30.0]" in done.stdout
    assert "IN_PARENT False" in done.stdout  # computed in the worker processes
    assert "os.fork() was called" not in done.stderr
