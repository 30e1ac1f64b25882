"""One process of a two-process JAX job (`jax.distributed`, one CPU device each), started by
`test_distribution_model_parallel_processes.py` with the LAMINA_DISTRIBUTION_* variables set.

Each process passes `fit` and `predict` its own rows of every global batch (Lamina's rule
on every mesh). The model is split by `ModelParallel` on a (1, 2) mesh, whose batch axis
has one device (the processes' rows are gathered, then placed), and on a (2, 1) mesh,
whose batch axis spans the processes (each process's rows go to its device). For each it
prints the trained weights and the predictions this process got (on (1, 2), of a batch
cut 3 + 4 between the processes), as one JSON line.
"""

from __future__ import annotations

import json
import pathlib
import runpy
from typing import Any

import numpy as np

GLOBAL_BATCH = 8
STEPS = 2
EPOCHS = 1
SHORT = 7  # the rows `predict` is also given: one batch cut 3 + 4 between the processes


def data() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 6)).astype("float32")
    y = rng.normal(size=(GLOBAL_BATCH * STEPS, 4)).astype("float32")
    return x, y


def own_rows(rows: int, batch: int, rank: int, processes: int) -> np.ndarray[Any, Any]:
    """Process `rank`'s rows of each global batch of `batch` rows (the last may be short),
    cut at ``i * n // processes`` as `fit` cuts a dataset's batches."""
    out: list[int] = []
    for start in range(0, rows, batch):
        n = min(batch, rows - start)
        out.extend(range(start + rank * n // processes, start + (rank + 1) * n // processes))
    return np.asarray(out)


def make_model() -> Any:
    """The model of `_checkpoint_processes_job.py` (SGD, mean squared error)."""
    sibling = pathlib.Path(__file__).with_name("_checkpoint_processes_job.py")
    return runpy.run_path(str(sibling))["make_model"]()


def reference() -> tuple[list[Any], Any, Any]:
    """One process, no strategy, on the global batches: the trained weights, then the
    predictions of every row and of the first `SHORT` rows."""
    x, y = data()
    model = make_model()
    model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    predict = model.predict(x, batch_size=GLOBAL_BATCH, verbose=0)
    short = model.predict(x[:SHORT], batch_size=GLOBAL_BATCH, verbose=0)
    return [np.asarray(w) for w in model.get_weights()], predict, short


def main() -> None:
    from lamina import distribution as dist

    dist.initialize()
    rank, processes = dist.process_id(), dist.num_processes()
    x, y = data()
    rows = own_rows(len(x), GLOBAL_BATCH, rank, processes)
    short = own_rows(SHORT, GLOBAL_BATCH, rank, processes)
    local = GLOBAL_BATCH // processes
    out: dict[str, Any] = {"rank": rank, "rows": rows.tolist(), "short_rows": short.tolist()}
    for shape in ((1, 2), (2, 1)):
        mesh = dist.DeviceMesh(shape, ("batch", "model"))
        layout_map = dist.LayoutMap(mesh)
        layout_map["hidden/kernel"] = (None, "model")
        layout_map["head/kernel"] = ("model", None)
        with dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch").scope():
            model = make_model()
            model.fit(x[rows], y[rows], batch_size=local, epochs=EPOCHS, shuffle=False, verbose=0)
            key = f"{shape[0]}x{shape[1]}"
            if shape[0] == 1:  # the batch axis has one device: the rows are gathered
                got = model.predict(x[short], batch_size=local, verbose=0)
            else:
                got = model.predict(x[rows], batch_size=local, verbose=0)
            out[key] = {"predict": np.asarray(got).tolist()}
            out[key]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
