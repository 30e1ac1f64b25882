"""Augmentation throughput: `RandomFlip` + `RandomRotation` + `RandomZoom` on 224x224 RGB
batches of 32, in images per second, per backend, Lamina beside Keras 3.

Two places an augmentation runs:

- ``in_model``: inside a model, as a training-mode call compiled the backend's way (a
  layer that calls the three with ``training=True``, run by `predict`: jitted on JAX, a
  `tf.function` on TensorFlow, eager on PyTorch and NumPy);
- ``in_tf_data``: inside a `tf.data` pipeline (``dataset.map``), where Keras 3 switches its
  layers to TensorFlow ops and Lamina, on a backend other than TensorFlow, runs each layer
  as a host node with the active backend.

The same worker source runs once with ``import lamina as keras`` (``LAMINA_BACKEND`` set)
and, when Keras 3 is installed, once with ``import keras`` (``KERAS_BACKEND`` set), each in
its own interpreter: Lamina never imports Keras. Ratios are Lamina / Keras seconds per
batch (above 1: Lamina is slower). `LAMINA_BENCH_AUG_BATCHES` (default 16) sets how many
batches each measure times, after a warm-up pass over the same batches (compiling and
tracing happen there); the images are random.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from per_backend import installed_backends

BACKENDS = ("jax", "torch", "tensorflow", "numpy")

WORKER = r"""
import json, os, sys, time
import numpy as np
import {module} as keras

BATCHES = int(os.environ.get("LAMINA_BENCH_AUG_BATCHES", "16"))
BATCH, SIZE = 32, 224
images = np.random.default_rng(0).uniform(0, 255, (BATCHES * BATCH, SIZE, SIZE, 3))
images = images.astype("float32")


def augmentations():
    return (keras.layers.RandomFlip(seed=1), keras.layers.RandomRotation(0.1, seed=2),
            keras.layers.RandomZoom(0.1, seed=3))


class Augment(keras.layers.Layer):
    # The three layers in training mode, whatever mode the caller runs in.
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flip, self.rotate, self.zoom = augmentations()

    def call(self, x):
        for layer in (self.flip, self.rotate, self.zoom):
            x = layer(x, training=True)
        return x


def report(measure, seconds):
    print(json.dumps({{"framework": "{framework}", "backend": sys.argv[1], "measure": measure,
                      "batches": BATCHES, "s_per_batch": seconds / BATCHES,
                      "images_per_s": BATCHES * BATCH / seconds}}), flush=True)


def in_model():
    model = keras.Sequential([keras.Input((SIZE, SIZE, 3)), Augment()])
    model.compile()
    model.predict(images, batch_size=BATCH, verbose=0)  # compiles and warms up
    start = time.perf_counter()
    model.predict(images, batch_size=BATCH, verbose=0)
    return time.perf_counter() - start


def in_tf_data():
    import tensorflow as tf

    flip, rotate, zoom = augmentations()
    dataset = tf.data.Dataset.from_tensor_slices(images).batch(BATCH)
    dataset = dataset.map(lambda x: zoom(rotate(flip(x))))
    for _ in dataset:  # warms up
        pass
    start = time.perf_counter()
    for _ in dataset:
        pass
    return time.perf_counter() - start


for measure, run in (("in_model", in_model), ("in_tf_data", in_tf_data)):
    try:
        report(measure, run())
    except Exception as error:  # a measure this backend cannot run is reported, not fatal
        message = f"{{type(error).__name__}}: {{error}}"[:300]
        print(json.dumps({{"framework": "{framework}", "backend": sys.argv[1],
                          "measure": measure, "error": message}}), flush=True)
"""


def _run_worker(framework: str, backend: str) -> list[dict[str, Any]]:
    """The records the worker prints for one framework ("lamina" or "keras") and backend."""
    module = "lamina" if framework == "lamina" else "keras"
    source = WORKER.format(module=module, framework=framework)
    variable = "LAMINA_BACKEND" if framework == "lamina" else "KERAS_BACKEND"
    out = subprocess.run(
        [sys.executable, "-c", source, backend],
        env={**os.environ, variable: backend},
        capture_output=True,
        text=True,
        check=False,
    )
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not records:
        tail = out.stderr.strip().splitlines()[-1:] or ["no output"]
        records = [{"framework": framework, "backend": backend, "error": tail[0][:300]}]
    return records


def bench_augmentation() -> Iterator[dict[str, Any]]:
    """Per installed backend and measure: Lamina's and Keras 3's throughput and their
    ratio (Keras' side only when `keras` is importable)."""
    keras = importlib.util.find_spec("keras") is not None
    installed = installed_backends()
    for backend in BACKENDS:
        if backend not in installed:
            continue
        ours = _run_worker("lamina", backend)
        theirs = {r.get("measure"): r for r in _run_worker("keras", backend)} if keras else {}
        for record in ours:
            row: dict[str, Any] = {"backend": backend, "measure": record.get("measure")}
            # A Keras worker that failed to start reports once, under no measure.
            other = theirs.get(record.get("measure"), theirs.get(None, {}))
            for side, rec in (("lamina", record), ("keras", other)):
                if "error" in rec:
                    row[f"{side}_error"] = rec["error"]
                elif rec:
                    row[f"{side}_images_per_s"] = round(rec["images_per_s"], 1)
                    row[f"{side}_s_per_batch"] = round(rec["s_per_batch"], 5)
            if "lamina_s_per_batch" in row and "keras_s_per_batch" in row:
                row["ratio"] = round(row["lamina_s_per_batch"] / row["keras_s_per_batch"], 3)
            yield row
