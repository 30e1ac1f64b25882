"""What every training worker shares: timing, the side-by-side record, Keras 3, memory.

A worker is Python source run in a fresh interpreter (`per_backend.run_per_backend`);
`COMMON` goes before its body (``COMMON + WORKER``). It gives:

* `keras` — Keras 3 on the worker's backend when it is installed (``KERAS_BACKEND`` is set
  to ``LAMINA_BACKEND`` before the import), else None; ``LAMINA_BENCH_KERAS=0`` leaves it
  out. Lamina itself never imports Keras: only this comparison column does.
* `compare(measure, sides, **extra)` — runs each side (``{"lamina": fn, "raw": fn,
  "keras": fn}``) `REPEATS` times, interleaved, and prints one JSON record: the median
  wall seconds of each side and the ratios to raw (`ratio`, `cpu_ratio`, `keras_ratio`).
* `settled(model, epoch)` — runs a Lamina model's epochs until `jit_compile="auto"` has
  chosen, and returns `epoch` (the warm-up every training worker ends with).
* `torch_device()` — where a raw PyTorch side runs: the GPU when one is visible, as
  Lamina's torch backend does; its batches move there one at a time, as Lamina's do.
* `memory_side()` — the side named by ``LAMINA_BENCH_MEMORY`` when the worker runs for
  `memory.py` (one side per process, since a process's peak RSS only grows), else None;
  `report_memory(measure, side, setup)` sets that side up, runs its epoch and prints the
  peak RSS and its rise over the size before the setup.
"""

from __future__ import annotations

COMMON = r"""
import importlib.util, json, os, resource, statistics, time

REPEATS = int(os.environ.get("LAMINA_BENCH_REPEATS", "3"))


def _keras():
    if os.environ.get("LAMINA_BENCH_KERAS") == "0" or importlib.util.find_spec("keras") is None:
        return None
    os.environ["KERAS_BACKEND"] = os.environ["LAMINA_BACKEND"]
    import keras as module
    return module


keras = _keras()


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(measure, sides, per=1, **extra):
    sides = {k: v for k, v in sides.items() if v is not None}
    wall = {k: [] for k in sides}
    cpu = {k: [] for k in sides}
    for _ in range(REPEATS):
        for k, fn in sides.items():
            w, c = timed(fn)
            wall[k].append(w / per)
            cpu[k].append(c / per)
    med = statistics.median
    record = {"backend": os.environ["LAMINA_BACKEND"], "measure": measure, **extra,
              "repeats": REPEATS}
    for k in sides:
        record[f"{k}_s"] = round(med(wall[k]), 5)
    record["ratio"] = round(med(wall["lamina"]) / med(wall["raw"]), 3)
    record["cpu_ratio"] = round(med(cpu["lamina"]) / med(cpu["raw"]), 3)
    if "keras" in sides:
        record["keras_ratio"] = round(med(wall["keras"]) / med(wall["raw"]), 3)
        record["keras_version"] = keras.__version__
    print(json.dumps(record), flush=True)


def torch_device():
    import torch
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def settled(model, epoch, limit=40):
    # Run whole epochs until `jit_compile="auto"` has chosen its step (it times both
    # once ~30 s of training make compiling worth a try), so the timed epochs run the
    # chosen step, not the trial.
    for _ in range(limit):
        if getattr(model, "jit_compile", None) != "auto":
            break
        epoch()
    return epoch


def memory_side():
    return os.environ.get("LAMINA_BENCH_MEMORY")


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def report_memory(measure, side, setup):
    # `setup()` builds, compiles and warms up the side and returns its epoch: the peak
    # resident size of the whole process, and how far setup + epoch raise it.
    before = _rss_mb()
    epoch = setup()
    if epoch is None:
        return
    epoch()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"backend": os.environ["LAMINA_BACKEND"], "measure": measure,
                      "side": side, "peak_rss_mb": round(peak, 1),
                      "rise_mb": round(max(peak - before, 0.0), 1)}), flush=True)
"""
