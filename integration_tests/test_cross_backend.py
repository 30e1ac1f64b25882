"""Save on one backend, load on every other: the full source x target matrix.

For each installed source backend a fresh interpreter (LAMINA_BACKEND=<source>) builds a
functional model with a fixed seed (a small CNN, a masked bidirectional LSTM and a GRU over
token ids, causal multi-head attention, merged into a Dense head), saves it as ``.lamina``
and saves its outputs on fixed inputs. For each installed target backend another fresh
interpreter loads every source's archive, one after the other, and must reproduce each one's
outputs within 1e-6.

A backend counts as installed when its framework and its Lamina backend package import
in this venv. ``LAMINA_PYTHON_<BACKEND>`` (e.g. ``LAMINA_PYTHON_TORCH=/venv/bin/python``)
points one backend at another interpreter, to run the matrix across separate venvs.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

BACKENDS = ("numpy", "jax", "torch", "tensorflow")
FRAMEWORK = {"numpy": "numpy", "jax": "jax", "torch": "torch", "tensorflow": "tensorflow"}
ATOL = 1e-6
TIMEOUT_S = 300

SAVE = """
import sys
import numpy as np
import lamina
from lamina import layers

lamina.utils.set_random_seed(1234)
image = lamina.Input((8, 8, 2), name="image")
x = layers.Conv2D(4, 3, padding="same", activation="relu", name="conv")(image)
x = layers.MaxPooling2D(2, name="pool")(x)
x = layers.Conv2D(3, 3, activation="tanh", name="conv2")(x)
x = layers.Flatten(name="flat")(x)
tokens = lamina.Input((7,), dtype="int32", name="tokens")
embedded = layers.Embedding(20, 6, mask_zero=True, name="embed")(tokens)
seq = layers.Bidirectional(layers.LSTM(5, return_sequences=True), name="bilstm")(embedded)
seq = layers.GRU(4, name="gru")(seq)
att = layers.MultiHeadAttention(2, 3, name="mha")(embedded, embedded, use_causal_mask=True)
att = layers.GlobalAveragePooling1D(name="att_pool")(att)
x = layers.Concatenate(name="merge")([x, seq, att])
x = layers.Dense(6, activation="relu", name="hidden")(x)
outputs = layers.Dense(3, name="logits")(x)
model = lamina.Model([image, tokens], outputs, name="cnn_rnn_attention")
rng = np.random.default_rng(0)
inputs = {
    "image": rng.uniform(-1, 1, size=(4, 8, 8, 2)).astype("float32"),
    # right-padded token rows of different lengths (0 is the masked padding id)
    "tokens": np.array([[3, 5, 7, 0, 0, 0, 0], [1, 2, 3, 4, 5, 6, 7],
                        [9, 0, 0, 0, 0, 0, 0], [4, 4, 8, 19, 2, 0, 0]], dtype="int32"),
}
model.save(sys.argv[1])
np.save(sys.argv[2], lamina.ops.convert_to_numpy(model([inputs["image"], inputs["tokens"]])))
np.savez(sys.argv[3], **inputs)
print("saved on", lamina.backend.backend())
"""

# One interpreter per target loads every source's archive (arguments: archive, inputs and
# output paths, three per source): each load is its own `load_model`, so the pairs stay
# independent while the target's framework is imported once.
LOAD = """
import sys
import numpy as np
import lamina

args = sys.argv[1:]
for archive, inputs, output in zip(args[0::3], args[1::3], args[2::3]):
    lamina.utils.clear_session()
    model = lamina.saving.load_model(archive)
    data = np.load(inputs)
    np.save(output, lamina.ops.convert_to_numpy(model([data["image"], data["tokens"]])))
print("loaded on", lamina.backend.backend())
"""


def _python(backend: str) -> str:
    return os.environ.get(f"LAMINA_PYTHON_{backend.upper()}", sys.executable)


def _installed(backend: str) -> bool:
    if _python(backend) != sys.executable:
        return True  # the named interpreter is that backend's venv
    return all(
        importlib.util.find_spec(m) is not None
        for m in (FRAMEWORK[backend], f"lamina_{backend}", "lamina_saving")
    )


def _run(backend: str, script: str, *args: str) -> None:
    env = {**os.environ, "LAMINA_BACKEND": backend}
    done = subprocess.run(
        [_python(backend), "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, (
        f"LAMINA_BACKEND={backend} failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
    )
    assert backend in done.stdout, done.stdout


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """{source backend: (archive, expected outputs, input)}, saved once per source."""
    folder = tmp_path_factory.mktemp("cross")
    out = {}
    for source in BACKENDS:
        if not _installed(source):
            continue
        archive = folder / f"from_{source}.lamina"
        expected, image = folder / f"from_{source}_out.npy", folder / f"from_{source}_in.npz"
        _run(source, SAVE, str(archive), str(expected), str(image))
        out[source] = (archive, expected, image)
    return out


@pytest.fixture(scope="module")
def loaded(saved, tmp_path_factory):
    """A function of a target backend: {source: its outputs loaded there}, one run per target."""
    folder = tmp_path_factory.mktemp("loaded")
    done: dict[str, dict[str, object]] = {}

    def on(target: str) -> dict[str, object]:
        if target not in done:
            args, out = [], {}
            for source, (archive, _, image) in saved.items():
                out[source] = folder / f"{source}_on_{target}.npy"
                args += [str(archive), str(image), str(out[source])]
            _run(target, LOAD, *args)
            done[target] = out
        return done[target]

    return on


@pytest.mark.parametrize("target", BACKENDS)
@pytest.mark.parametrize("source", BACKENDS)
def test_save_on_source_load_on_target(saved, loaded, source, target):
    for backend in {source, target}:
        if not _installed(backend):
            pytest.skip(f"backend {backend!r} is not installed in this venv")
    want, got = np.load(saved[source][1]), np.load(loaded(target)[source])
    assert got.shape == want.shape == (4, 3)
    assert np.abs(want).max() > 1e-3  # a real signal, not all zeros
    np.testing.assert_allclose(got, want, rtol=0, atol=ATOL)


def test_at_least_two_backends_are_compared():
    # The integration venv installs several backends; a matrix of one proves nothing.
    installed = [b for b in BACKENDS if _installed(b)]
    assert len(installed) >= 2, f"only {installed} installed"
