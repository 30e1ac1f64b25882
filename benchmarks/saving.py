"""Save and load cost: Lamina's weights files and archives vs raw writers and readers.

Two models per backend: a 784-512-512-10 MLP (0.67M parameters) and eight Dense(2048)
layers on a 2048-wide input (33.6M parameters, 128 MiB of float32). Two references each:

* ``raw_h5py``: the model's arrays (``get_weights()``) written into one dataset each with
  h5py and read back into NumPy, the least any HDF5-based format has to do
  (``time_ratio`` = Lamina / that).
* ``target``: what the issue's goal is measured against (``target_ratio`` = Lamina /
  that): for ``save_weights`` and ``save_model``, ``np.savez`` of the same arrays followed
  by an ``os.fsync`` of its file; for ``load_weights``, h5py reading every dataset of the
  very file Lamina loads; for ``load_model``, the same read of the archive's weights
  member, extracted beside it.

Why the fsync on the raw side: Lamina's saves are crash-safe (a save that fails or is cut
by a power loss leaves the previous file intact), which takes one fsync of the new file
before it is renamed over the old one; ``np.savez`` overwrites in place and syncs nothing.
Timing one against the other would measure the disk's flush, not the format, so the
target pays the same flush. ``unsynced_ratio`` still reports Lamina / plain ``np.savez``.
Every timed run starts with no dirty data in the page cache (an untimed ``os.sync()``):
an fsync on ext4 commits the journal, which flushes every file's pending writes, so one
op would otherwise pay for the writes of the ops timed before it.

Times are medians of `LAMINA_BENCH_REPEATS` (default 3) interleaved runs. Peak memory is
reported as a multiple of the model's size, two ways: `rss` is the process' resident set
growth during the operation (sampled every millisecond; it sees backend buffers too),
`heap` is Python's traced allocation peak (tracemalloc, a separate run; it sees NumPy and
h5py but not memory a backend allocates natively). ``load_model`` also builds the model
from its config, which the raw side never does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from per_backend import run_per_backend

WORKER = r"""
import gc, json, os, shutil, statistics, sys, tempfile, threading, time, tracemalloc, zipfile
import h5py
import numpy as np
import lamina
from lamina import layers

REPEATS = int(os.environ.get("LAMINA_BENCH_REPEATS", "3"))
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakRSS:
    # Resident-set growth while the block runs, sampled by a thread every millisecond.
    def __enter__(self):
        gc.collect()
        self.start = self.peak = rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss())
            time.sleep(0.001)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss())
        self.extra = self.peak - self.start


def run_once(fn):
    # Everything written before is flushed first (untimed): on ext4 an fsync commits the
    # journal, which writes out every file's dirty data, so without this the op that
    # syncs would pay for the writes of the ops timed before it.
    os.sync()
    with PeakRSS() as mem:
        t = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - t
    return elapsed, mem.extra


def heap_peak(fn):
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def mlp():
    return lamina.Sequential([layers.Input((784,)), layers.Dense(512, activation="relu"),
                              layers.Dense(512, activation="relu"), layers.Dense(10)])


def big():
    return lamina.Sequential([layers.Input((2048,))] + [layers.Dense(2048) for _ in range(8)])


def raw_write(path, arrays):
    with h5py.File(path, "w") as f:
        for i, a in enumerate(arrays):
            f.create_dataset(str(i), data=a)


def raw_read(path):
    with h5py.File(path, "r") as f:
        return [f[str(i)][()] for i in range(len(f))]


def savez(path, arrays):
    np.savez(path, *arrays)


def savez_synced(path, arrays):
    # np.savez, then its file flushed to disk: the durability Lamina's saves give.
    savez(path, arrays)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_all(path):
    # Every dataset of the file into NumPy, nothing checked: the raw read of that file.
    out = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda _, d: out.append(d[()]) if isinstance(d, h5py.Dataset) else None)
    return out


def extract_weights(archive, path):
    with zipfile.ZipFile(archive) as z, z.open("model.weights.h5") as src:
        with open(path, "wb") as dst:
            shutil.copyfileobj(src, dst, 2**20)


def compare(folder, label, model):
    arrays = model.get_weights()
    size = sum(a.nbytes for a in arrays)
    params = sum(a.size for a in arrays)
    weights = os.path.join(folder, f"{label}.weights.h5")
    archive = os.path.join(folder, f"{label}.lamina")
    raw = os.path.join(folder, f"{label}_raw.h5")
    npz = os.path.join(folder, f"{label}.npz")
    member = os.path.join(folder, f"{label}_member.h5")
    # Every file exists before the first timed load.
    model.save_weights(weights)
    model.save(archive)
    raw_write(raw, arrays)
    extract_weights(archive, member)
    save_target = ("np.savez + fsync", lambda: savez_synced(npz, arrays))
    unsynced = lambda: savez(npz, arrays)  # noqa: E731
    cases = {
        "save_weights": (lambda: model.save_weights(weights), lambda: raw_write(raw, arrays),
                         save_target),
        "load_weights": (lambda: model.load_weights(weights), lambda: raw_read(raw),
                         ("h5py read of the file", lambda: read_all(weights))),
        "save_model": (lambda: model.save(archive), lambda: raw_write(raw, arrays),
                       save_target),
        "load_model": (lambda: lamina.saving.load_model(archive), lambda: raw_read(raw),
                       ("h5py read of the weights member", lambda: read_all(member))),
    }
    for op, (lam, ref, (target_name, target)) in cases.items():
        lam(); ref(); target()  # warm: imports, page cache, first-call setup
        lam_runs, raw_runs, target_runs, plain_runs = [], [], [], []
        for _ in range(REPEATS):
            lam_runs.append(run_once(lam))
            raw_runs.append(run_once(ref))
            target_runs.append(run_once(target))
            if op.startswith("save"):
                plain_runs.append(run_once(unsynced))
        lam_s = statistics.median(r[0] for r in lam_runs)
        raw_s = statistics.median(r[0] for r in raw_runs)
        target_s = statistics.median(r[0] for r in target_runs)
        lam_rss = max(r[1] for r in lam_runs)
        raw_rss = max(r[1] for r in raw_runs)
        target_rss = max(r[1] for r in target_runs)
        lam_heap, raw_heap = heap_peak(lam), heap_peak(ref)
        print(json.dumps({
            "backend": lamina.config.backend(),
            "model": label,
            "params": int(params),
            "model_mb": round(size / 2**20, 2),
            "op": op,
            "lamina_s": round(lam_s, 4),
            "raw_h5py_s": round(raw_s, 4),
            "time_ratio": round(lam_s / raw_s, 3),
            "target": target_name,
            "target_s": round(target_s, 4),
            "target_ratio": round(lam_s / target_s, 3),
            **({"unsynced_ratio": round(lam_s / statistics.median(r[0] for r in plain_runs), 3)}
               if plain_runs else {}),
            "lamina_rss_peak_x_model": round(lam_rss / size, 3),
            "raw_rss_peak_x_model": round(raw_rss / size, 3),
            "target_rss_peak_x_model": round(target_rss / size, 3),
            "lamina_heap_peak_x_model": round(lam_heap / size, 3),
            "raw_heap_peak_x_model": round(raw_heap / size, 3),
            "file_mb": round(os.path.getsize(archive if "model" in op else weights) / 2**20, 2),
        }), flush=True)


with tempfile.TemporaryDirectory() as folder:
    compare(folder, "mlp", mlp())
    compare(folder, "dense8x2048", big())
"""


def bench_saving() -> Iterator[dict[str, Any]]:
    """One worker process per installed backend; yields its JSON records."""
    return run_per_backend(WORKER, ("numpy", "jax", "torch", "tensorflow"))


if __name__ == "__main__":
    for record in bench_saving():
        print(json.dumps({"benchmark": "saving", **record}), flush=True)
