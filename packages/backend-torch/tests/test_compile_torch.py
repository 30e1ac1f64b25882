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
