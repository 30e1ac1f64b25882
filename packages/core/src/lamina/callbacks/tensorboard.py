"""`TensorBoard`: write metrics, weight histograms and the model graph for TensorBoard.

Event files are written by `lamina.callbacks._tfevents` in TensorBoard's own format, so
nothing beyond NumPy is needed to log (TensorBoard itself is needed only to view).
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any

import numpy as np

from lamina.callbacks import _tfevents as tfevents
from lamina.callbacks._monitor import scalar
from lamina.callbacks._profiler import Profiler, parse_profile_batch
from lamina.callbacks.callback import Callback


class TensorBoard(Callback):
    """Logs scalars (per epoch, optionally per batch), histograms and images of weights,
    the model's graph, embeddings for the projector and profiles.

    Runs go to ``log_dir/train`` and ``log_dir/validation``; start TensorBoard with
    ``tensorboard --logdir log_dir``.

    Args:
        log_dir: the root folder of the logs.
        histogram_freq: write weight histograms every that many epochs (0: never).
        write_graph: write the model's (Keras-format) graph, shown by TensorBoard's graph
            dashboard.
        write_images: write 1-D/2-D/3-D weights as images (with `histogram_freq`).
        write_steps_per_second: log the training speed as ``steps_per_second``.
        update_freq: "epoch", "batch" (every batch) or an int (every that many batches)
            for the ``batch_*`` scalars.
        profile_batch: a batch number or ``(start, stop)`` range (1-based, counted
            across epochs) to profile with the backend's profiler; 0 disables.
        embeddings_freq: write the embedding tables for the projector every that many
            epochs (0: never).
        embeddings_metadata: ``{layer name: metadata file}`` labels for the projector.

    Raises:
        ValueError: bad `update_freq`, frequencies or `profile_batch`.
    """

    process_zero_only = True

    def __init__(
        self,
        log_dir: Any = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: Any = "epoch",
        profile_batch: Any = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        for arg, value in (("histogram_freq", histogram_freq),
                           ("embeddings_freq", embeddings_freq)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"Argument `{arg}` must be a non-negative int. Received: {arg}={value!r}"
                )
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (
            isinstance(update_freq, bool) or not isinstance(update_freq, int) or update_freq < 1
        ):
            raise ValueError(
                "Argument `update_freq` must be 'epoch', 'batch' or a positive int. "
                f"Received: update_freq={update_freq!r}"
            )
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._start_batch, self._stop_batch = parse_profile_batch(profile_batch)
        self._profiler: Profiler | None = None
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers: dict[str, tfevents.EventFileWriter] = {}
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._epoch_start_time = 0.0
        self._train_batches_this_epoch = 0

    # --- writers --------------------------------------------------------------------------
    def _writer(self, which: str) -> tfevents.EventFileWriter:
        writer = self._writers.get(which)
        if writer is None:
            folder = self._train_dir if which == "train" else self._val_dir
            writer = tfevents.EventFileWriter(folder)
            self._writers[which] = writer
        return writer

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    @staticmethod
    def _scalars(prefix: str, logs: dict[str, Any]) -> list[bytes]:
        out = []
        for name, value in logs.items():
            number = scalar(value)
            if number is not None:
                out.append(tfevents.scalar_value(prefix + name, number))
        return out

    # --- hooks ----------------------------------------------------------------------------
    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        if self.write_graph:
            self._write_keras_graph()

    def _write_keras_graph(self) -> None:
        model = self._model
        try:
            text = model.to_json()
        except Exception as e:  # subclassed models without a config still train
            warnings.warn(
                f"TensorBoard could not write the model graph: {type(e).__name__}: {e}. "
                "Pass `write_graph=False` to silence this.",
                stacklevel=3,
            )
            return
        writer = self._writer("train")
        writer.add_values(0, [tfevents.text_tensor_value("keras", text, "graph_keras_model",
                                                         b"1")])
        writer.flush()

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch_start_time = time.time()
        self._train_batches_this_epoch = 0

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._global_train_batch += 1
        self._train_batches_this_epoch += 1
        if self._start_batch and self._global_train_batch == self._start_batch:
            self._profiler = Profiler(self.log_dir)
            self._profiler.start()

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self._profiler is not None and self._global_train_batch >= self._stop_batch:
            self._profiler.stop()
            self._profiler = None
        if self.update_freq == "epoch" or self._global_train_batch % self.update_freq:
            return
        self._writer("train").add_values(
            self._global_train_batch, self._scalars("batch_", logs or {})
        )

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if "learning_rate" not in train:
            rate = self._learning_rate()
            if rate is not None:
                train["learning_rate"] = rate
        if self.write_steps_per_second:
            elapsed = max(time.time() - self._epoch_start_time, 1e-9)
            train["steps_per_second"] = self._train_batches_this_epoch / elapsed
        values = self._scalars("epoch_", train)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            values.extend(self._weight_summaries())
        writer = self._writer("train")
        writer.add_values(epoch, values)
        writer.flush()
        if val:
            val_writer = self._writer("validation")
            val_writer.add_values(epoch, self._scalars("epoch_", val))
            val_writer.flush()
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._write_embeddings()

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        optimizer = getattr(self._model, "optimizer", None)
        iterations = getattr(optimizer, "iterations", None)
        if iterations is None:
            return
        step = int(np.asarray(iterations.numpy() if hasattr(iterations, "numpy") else iterations))
        values = [
            tfevents.scalar_value(f"evaluation_{name}_vs_iterations", number)
            for name, value in (logs or {}).items()
            if (number := scalar(value)) is not None
        ]
        writer = self._writer("validation")
        writer.add_values(step, values)
        writer.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._profiler is not None:
            self._profiler.stop()
            self._profiler = None
        self._close_writers()

    # --- content --------------------------------------------------------------------------
    def _learning_rate(self) -> float | None:
        optimizer = getattr(self._model, "optimizer", None)
        rate = getattr(optimizer, "learning_rate", None)
        if rate is None:
            return None
        if callable(rate) and not hasattr(rate, "numpy"):
            iterations = getattr(optimizer, "iterations", 0)
            rate = rate(iterations)
        return scalar(rate.numpy() if hasattr(rate, "numpy") else rate)

    def _weight_summaries(self) -> list[bytes]:
        values = []
        for variable in self.model.weights:
            name = str(getattr(variable, "path", variable.name)).replace(":", "_")
            array = np.asarray(variable.numpy())
            values.append(tfevents.histogram_value(f"{name}/histogram", array))
            if self.write_images:
                values.extend(_weight_images(name, array))
        return values

    def _write_embeddings(self) -> None:
        """TSV tables plus ``projector_config.pbtxt`` (read by TensorBoard's projector)."""
        folder = os.path.join(self._train_dir, "embeddings")
        os.makedirs(folder, exist_ok=True)
        entries = []
        for layer in self.model._flatten_layers():
            table = getattr(layer, "embeddings", None)
            if table is None or not hasattr(table, "numpy"):
                continue
            array = np.asarray(table.numpy())
            if array.ndim != 2:
                continue
            tsv = os.path.join(folder, f"{layer.name}.tsv")
            np.savetxt(tsv, array, delimiter="\t", fmt="%.6g")
            entry = (
                f'embeddings {{\n  tensor_name: "{layer.name}/embeddings"\n'
                f'  tensor_path: "embeddings/{layer.name}.tsv"\n'
            )
            metadata = (self.embeddings_metadata or {}).get(layer.name)
            if metadata:
                entry += f'  metadata_path: "{metadata}"\n'
            entries.append(entry + "}\n")
        if entries:
            with open(os.path.join(self._train_dir, "projector_config.pbtxt"), "w",
                      encoding="utf-8") as f:
                f.write("".join(entries))


def _weight_images(name: str, array: np.ndarray[Any, Any]) -> list[bytes]:
    """Grayscale images of a weight: a row for 1-D, the matrix for 2-D (wide side across),
    up to three slices (over the last axis) for 3-D."""
    w = np.squeeze(array)
    if w.ndim == 1:
        return [tfevents.image_value(f"{name}/image", w.reshape(1, -1))]
    if w.ndim == 2:
        if w.shape[0] > w.shape[1]:
            w = w.T
        return [tfevents.image_value(f"{name}/image", w)]
    if w.ndim == 3:
        return [
            tfevents.image_value(f"{name}/image/{i}", w[..., i])
            for i in range(min(3, w.shape[-1]))
        ]
    return []
