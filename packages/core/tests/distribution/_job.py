"""One process of a two-process `DataParallel` job, started by `test_multi_process.py`.

The job's address, size and this process's index come from the LAMINA_DISTRIBUTION_*
variables, as a launcher sets them. Each process trains on its own rows of every global
batch; process 0 prints the final weights as JSON. The same model and data, trained on
one process over the whole batches, are the reference (`reference`).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import numpy as np

GLOBAL_BATCH = 8
STEPS = 3
EPOCHS = 2


def data() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 5)).astype("float32")
    y = rng.normal(size=(GLOBAL_BATCH * STEPS, 3)).astype("float32")
    return x, y


def local_rows(rank: int, processes: int) -> np.ndarray[Any, Any]:
    """This process's rows of each global batch (its slice of each, in batch order)."""
    per = GLOBAL_BATCH // processes
    return np.concatenate(
        [
            np.arange(s * GLOBAL_BATCH + rank * per, s * GLOBAL_BATCH + (rank + 1) * per)
            for s in range(STEPS)
        ]
    )


def GlobalBatches(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> Any:
    """A `PyDataset` of the global batches of `(x, y)`."""
    import lamina

    class Batches(lamina.utils.PyDataset):
        def __len__(self) -> int:
            return len(x) // GLOBAL_BATCH

        def __getitem__(self, i: int) -> tuple[Any, Any]:
            rows = slice(i * GLOBAL_BATCH, (i + 1) * GLOBAL_BATCH)
            return x[rows], y[rows]

    return Batches()


def make_model(perturb: float = 0.0) -> Any:
    import lamina

    glorot = lamina.initializers.GlorotUniform
    model = lamina.Sequential(
        [
            lamina.Input((5,)),
            lamina.layers.Dense(8, activation="tanh", kernel_initializer=glorot(seed=1)),
            lamina.layers.Dense(3, kernel_initializer=glorot(seed=2)),
        ]
    )
    if perturb:
        model.set_weights([w + perturb for w in model.get_weights()])
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def reference() -> tuple[list[np.ndarray[Any, Any]], list[float], list[float], Any]:
    """Weights, the loss per epoch, `evaluate`'s [loss, mae] and the predictions of one
    process."""
    x, y = data()
    model = make_model()
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    scores = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0)
    predictions = model.predict(x, batch_size=GLOBAL_BATCH, verbose=0)
    return (
        [np.asarray(w) for w in model.get_weights()],
        history.history["loss"],
        scores,
        predictions,
    )


def main() -> None:
    import lamina

    lamina.distribution.initialize()
    processes = lamina.distribution.num_processes()
    rank = lamina.distribution.process_id()
    # With "perturb", the replicas start apart: process 0's weights must win (DDP's rule).
    perturb = 0.5 * rank if "perturb" in sys.argv[1:] else 0.0
    x, y = data()
    rows = local_rows(rank, processes)
    callbacks: list[Any] = []
    # "backup=<folder>": BackupAndRestore there (process 0 writes, every process resumes).
    backup = next((a[len("backup=") :] for a in sys.argv[1:] if a.startswith("backup=")), None)
    if backup is not None:
        callbacks.append(lamina.callbacks.BackupAndRestore(backup))
    if "die" in sys.argv[1:] and rank == processes - 1:
        # The last process dies at the second batch of the last epoch: the others must
        # stop, not hang.
        epoch = [0]
        stop = lamina.callbacks.LambdaCallback(
            on_epoch_begin=lambda e, logs: epoch.__setitem__(0, e),
            on_train_batch_begin=lambda step, logs: (
                os._exit(3) if step == 1 and epoch[0] == EPOCHS - 1 else None
            ),
        )
        callbacks.append(stop)
    with lamina.distribution.DataParallel().scope():
        model = make_model(perturb)
        history = model.fit(
            x[rows],
            y[rows],
            batch_size=GLOBAL_BATCH // processes,
            epochs=EPOCHS,
            shuffle=False,
            verbose=0,
            callbacks=callbacks,
        )
        scores = model.evaluate(x[rows], y[rows], batch_size=GLOBAL_BATCH // processes, verbose=0)
        # Each process gets the predictions of its own rows.
        predictions = model.predict(x[rows], batch_size=GLOBAL_BATCH // processes, verbose=0)
        # Every process is given the same PyDataset (and torch DataLoader) of global
        # batches: `fit` keeps each process's slice of each batch.
        from_py_dataset = make_model()
        from_py_dataset.fit(GlobalBatches(x, y), epochs=EPOCHS, shuffle=False, verbose=0)
        sources = {"py_dataset_weights": from_py_dataset}
        if "loader" in sys.argv[1:]:
            import torch

            pairs = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
            from_loader = make_model()
            from_loader.fit(torch.utils.data.DataLoader(pairs, batch_size=GLOBAL_BATCH),
                            epochs=EPOCHS, verbose=0)  # fmt: skip
            sources["loader_weights"] = from_loader
        dataset_weights = None
        if "dataset" in sys.argv[1:]:
            # Every process is given the whole dataset of global batches: `fit` keeps each
            # process's slice of each batch.
            import tensorflow as tf

            dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
            from_dataset = make_model()
            from_dataset.fit(dataset, epochs=EPOCHS, verbose=0)
            dataset_weights = [np.asarray(w).tolist() for w in from_dataset.get_weights()]
    if rank == 0:
        out = {
            "devices": lamina.distribution.get_device_count(),
            "weights": [np.asarray(w).tolist() for w in model.get_weights()],
            "loss": history.history["loss"],
            "evaluate": scores,
            "predict_rows": rows.tolist(),
            "predict": np.asarray(predictions).tolist(),
            "dataset_weights": dataset_weights,
            **{
                key: [np.asarray(w).tolist() for w in source.get_weights()]
                for key, source in sources.items()
            },
        }
        print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
