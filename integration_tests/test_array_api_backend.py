"""The third-party adapter in `array_api_backend/`: found through its entry point, built on
nothing of Lamina's but the adapter kit, and usable end to end in a fresh process.

(The shared op and layer suites run on it in the nox `integration` session.)
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import pathlib
import subprocess
import sys

import pytest

SRC = pathlib.Path(__file__).parent / "array_api_backend" / "src" / "lamina_array_api"

pytest.importorskip("array_api_strict")


def test_registered_through_the_entry_point() -> None:
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="lamina.backends")}
    assert found.get("array_api") == "lamina_array_api:backend", found
    from lamina.backend.registry import installed_backends

    assert "array_api" in installed_backends()


def _lamina_imports(path: pathlib.Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return [(line, m) for line, m in out if m.split(".")[0] == "lamina"]


def test_imports_nothing_of_lamina_but_the_kit() -> None:
    modules = sorted(SRC.rglob("*.py"))
    assert len(modules) > 10
    seen = set()
    for path in modules:
        for line, module in _lamina_imports(path):
            seen.add(module)
            assert module == "lamina.backend.kit", f"{path.name}:{line} imports {module!r}"
    assert seen == {"lamina.backend.kit"}


_PROGRAM = """
import numpy as np
import lamina
from lamina import layers
from lamina.backend.registry import current

assert current().name == "array_api" and not current().supports(lamina.backend.Capability.TRAINING)
rng = np.random.default_rng(0)
inputs = lamina.Input((6, 6, 2))
x = layers.Conv2D(3, 3, activation="relu")(inputs)
x = layers.GlobalAveragePooling2D()(x)
model = lamina.Model(inputs, layers.Dense(2, activation="softmax")(x))
model.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"])
images = rng.normal(size=(4, 6, 6, 2)).astype("float32")
probs = model.predict(images, verbose=0)
kernel, bias, dense, dense_bias = (lamina.ops.convert_to_numpy(w) for w in model.weights)
windows = np.lib.stride_tricks.sliding_window_view(images, (3, 3), axis=(1, 2))
conv = np.maximum(np.einsum("bhwcij,ijco->bhwo", windows, kernel) + bias, 0)
logits = conv.mean(axis=(1, 2)) @ dense + dense_bias
want = np.exp(logits - logits.max(-1, keepdims=True))
np.testing.assert_allclose(probs, want / want.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
loss, accuracy = model.evaluate(images, np.array([0, 1, 0, 1]), verbose=0)
assert np.isfinite(loss) and 0.0 <= accuracy <= 1.0
try:
    model.fit(images, np.array([0, 1, 0, 1]), verbose=0)
except TypeError as error:
    assert "cannot train" in str(error)
else:
    raise AssertionError("fit ran on an inference-only backend")
print("ok")
"""


def test_predicts_like_numpy_and_refuses_fit_in_a_fresh_process() -> None:
    env = {**os.environ, "LAMINA_BACKEND": "array_api"}
    run = subprocess.run(
        [sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-3000:]
