"""torch.compile's machinery (torch._dynamo, about 1.5 s to import) loads only when a step
is compiled; a compiled step then leaves the optimizer update out of its graph."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import lamina

EAGER_FIT = """
import sys
import numpy as np
import lamina

model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
model.compile(optimizer="adam", loss="mse", jit_compile=False)
model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=1, verbose=0)
print("torch._dynamo" in sys.modules)
"""


def test_eager_training_never_imports_torch_compile():
    env = dict(os.environ, LAMINA_BACKEND="torch", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", EAGER_FIT], env=env, capture_output=True, text=True,
        timeout=300, check=True,
    )  # fmt: skip
    assert done.stdout.split()[-1] == "False"


def _adam_fit(jit_compile: bool) -> list[np.ndarray]:
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse", jit_compile=jit_compile)
    x = np.arange(24, dtype="float32").reshape(8, 3) / 24
    model.fit(x, x[:, :2] * 2, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return model.get_weights()


@pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")  # torch's, as inductor loads
def test_a_compiled_adam_step_trains_as_the_eager_one():
    """Inductor cannot trace Adam's fused in-place kernel: the compiled step must call the
    update, marked to be left out when the first step compiled (not at import)."""
    for got, want in zip(_adam_fit(True), _adam_fit(False), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _dense_batch_norm():
    return [lamina.Input((6,)), lamina.layers.Dense(8, activation="relu"),
            lamina.layers.BatchNormalization(), lamina.layers.Dense(2)]  # fmt: skip


def _conv_pool():
    return [lamina.Input((6, 6, 2)), lamina.layers.Conv2D(4, 3, padding="same"),
            lamina.layers.MaxPooling2D(), lamina.layers.Flatten(),
            lamina.layers.Dense(2)]  # fmt: skip


def _attention():
    inputs = lamina.Input((4, 6))
    x = lamina.layers.MultiHeadAttention(num_heads=2, key_dim=3)(inputs, inputs)
    x = lamina.layers.LayerNormalization()(x + inputs)
    return inputs, lamina.layers.Dense(2)(lamina.layers.GlobalAveragePooling1D()(x))


def _recurrent():
    return [lamina.Input((5, 3)), lamina.layers.LSTM(4, return_sequences=True),
            lamina.layers.GRU(3), lamina.layers.Dense(2)]  # fmt: skip


FAMILIES = {"dense_batch_norm": (_dense_batch_norm, 10), "conv_pool": (_conv_pool, 8),
            "attention": (_attention, 8), "recurrent": (_recurrent, 8)}  # fmt: skip
"""Per family, a model and the number of samples: 10 (batches of 4) adds a partial last
batch, which torch.compile traces again with a dynamic batch size; compiling costs seconds
per trace on a CPU, so the larger models take full batches only."""


def _fit_family(name: str, jit_compile: bool) -> tuple[list[np.ndarray], np.ndarray]:
    lamina.utils.set_random_seed(0)
    make, samples = FAMILIES[name]
    parts = make()
    model = lamina.Model(*parts) if isinstance(parts, tuple) else lamina.Sequential(parts)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(samples, *model.inputs[0].shape[1:])).astype("float32")
    y = rng.normal(size=(samples, 2)).astype("float32")
    model.compile(optimizer="adam", loss="mse", jit_compile=jit_compile)
    model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    return model.get_weights(), model.predict(x, batch_size=4, verbose=0)


@pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_layer_families_train_compiled_as_eagerly(name):
    """Inference statistics, convolution and pooling, attention, fused recurrent kernels
    (which compiled steps call between their graphs): fitted through torch.compile and
    eagerly, the same weights and predictions to float32 rounding (rtol
    1e-4, atol 1e-5: inductor fuses and reorders the arithmetic). `check_layer` fits
    every layer eagerly only, since compiling a model costs seconds."""
    (compiled, compiled_pred), (eager, eager_pred) = (
        _fit_family(name, True), _fit_family(name, False)
    )  # fmt: skip
    for got, want in zip(compiled, eager, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(compiled_pred, eager_pred, rtol=1e-4, atol=1e-5)


@pytest.mark.filterwarnings("ignore::DeprecationWarning:torch")
def test_every_model_compiles_its_own_step():
    """torch.compile caches a few compiled frames per code object (`recompile_limit`, 8 by
    default; 2 here, to need only 3 models), and each step guards on its model: with one
    step code for every model, the models after the limit trained eagerly."""
    import torch._dynamo

    from lamina_torch.trainer import _compiled_graphs

    x = np.ones((8, 3), "float32")  # two steps: the first runs eagerly
    with torch._dynamo.config.patch(recompile_limit=2):
        for _ in range(3):
            model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
            model.compile(optimizer="sgd", loss="mse", jit_compile=True)
            before = _compiled_graphs()
            model.fit(x, x[:, :2], batch_size=4, epochs=1, verbose=0)
            assert _compiled_graphs() > before
