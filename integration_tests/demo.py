"""The demo: train a small CNN on scikit-learn's digits, save it, reload it elsewhere.

It trains on the default backend with a progress bar, prints the test accuracy, saves
``digits.lamina``, then reloads the archive in a fresh interpreter on a different backend
when one is installed (the same one otherwise) and checks that the predictions match.

Usage: python integration_tests/demo.py [--epochs N] [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

RELOAD = """
import sys, numpy as np, lamina
model = lamina.saving.load_model(sys.argv[1])
np.save(sys.argv[3], model.predict(np.load(sys.argv[2]), verbose=0))
print(f"reloaded on {lamina.config.backend()}")
"""


def load_digits() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Digits as 8x8x1 images in [0, 1], split 80/20 with a fixed shuffle."""
    from sklearn.datasets import load_digits as sk_digits

    data = sk_digits()
    x = (data.images / 16.0).astype("float32")[..., None]
    y = data.target.astype("int32")
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return x[:split], y[:split], x[split:], y[split:]


def build_model() -> object:
    import lamina
    from lamina import layers

    return lamina.Sequential(
        [
            layers.Input((8, 8, 1)),
            layers.Conv2D(32, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(2),
            layers.Conv2D(64, 3, padding="same", activation="relu"),
            layers.GlobalAveragePooling2D(),
            layers.Dropout(0.2),
            layers.Dense(10, activation="softmax"),
        ],
        name="digits_cnn",
    )


def other_backend(current: str) -> str:
    """A second installed backend to reload on (the current one when it is alone)."""
    installed = {ep.name for ep in importlib.metadata.entry_points(group="lamina.backends")}
    for name in ("torch", "jax", "tensorflow", "numpy"):
        if name in installed and name != current:
            return name
    return current


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--out", default=None, help="where to keep digits.lamina")
    args = parser.parse_args()

    import lamina

    lamina.utils.set_random_seed(0)
    x_train, y_train, x_test, y_test = load_digits()
    backend = lamina.config.backend()
    print(f"backend: {backend}; train {x_train.shape}, test {x_test.shape}")
    model = build_model()
    model.compile(
        optimizer=lamina.optimizers.Adam(3e-3),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    model.fit(x_train, y_train, batch_size=64, epochs=args.epochs, validation_split=0.1)
    _, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test accuracy: {accuracy:.3f}")

    out_dir = pathlib.Path(args.out or tempfile.mkdtemp())
    path = out_dir / "digits.lamina"
    model.save(path)
    print(f"saved {path} ({path.stat().st_size:,} bytes)")
    expected = model.predict(x_test, verbose=0)

    target = other_backend(backend)
    inputs, got = out_dir / "x_test.npy", out_dir / "reloaded.npy"
    np.save(inputs, x_test)
    subprocess.run(
        [sys.executable, "-c", RELOAD, str(path), str(inputs), str(got)],
        env={**os.environ, "LAMINA_BACKEND": target},
        check=True,
    )
    reloaded = np.load(got)
    same = bool(np.allclose(reloaded, expected, atol=1e-5))
    print(f"predictions after reloading on {target} match: {same}")
    return 0 if same and accuracy >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
