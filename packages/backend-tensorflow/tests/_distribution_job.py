"""One TensorFlow process of a `DataParallel` run, started by `test_distribution_workers.py`.

``devices <folder>``: one process with two logical CPU devices
(`tf.distribute.MirroredStrategy`), which must be set up before TensorFlow starts; it trains
the same model on one device too and prints both, and saves the replicas' weights in
`<folder>` to load them on one device. ``worker``: one worker of a
`MultiWorkerMirroredStrategy` job described by ``TF_CONFIG`` (as a launcher sets it); each
worker trains on its rows of every global batch, and worker 0 prints the weights (both
print their global seed state after `initialize`).
Output: one ``RESULT <json>`` line.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import numpy as np

GLOBAL_BATCH = 8
ROWS = 23  # two full batches, then 7 rows: the last batch splits 3 + 4 over two devices
EPOCHS = 2


def data() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(ROWS, 5)).astype("float32")
    y = rng.normal(size=(ROWS, 3)).astype("float32")
    return x, y


def make_model(perturb: float = 0.0) -> Any:
    """The model of the core's two-process job (`packages/core/tests/distribution/_job.py`)."""
    core_job = pathlib.Path(__file__).parents[2] / "core" / "tests" / "distribution"
    sys.path.insert(0, str(core_job))
    try:
        from _job import make_model as core_model
    finally:
        sys.path.remove(str(core_job))
    return core_model(perturb)


def train(model: Any, x: Any, y: Any, batch_size: int) -> dict[str, Any]:
    history = model.fit(x, y, batch_size=batch_size, epochs=EPOCHS, shuffle=False, verbose=0)
    return {
        "weights": [np.asarray(w).tolist() for w in model.get_weights()],
        "loss": history.history["loss"],
        "evaluate": model.evaluate(x, y, batch_size=batch_size, verbose=0),
    }


def local_rows(rank: int, processes: int) -> np.ndarray[Any, Any]:
    """This worker's rows of each global batch, cut as `fit` cuts a batch between devices."""
    rows: list[int] = []
    for start in range(0, ROWS, GLOBAL_BATCH):
        n = min(GLOBAL_BATCH, ROWS - start)
        rows.extend(range(start + rank * n // processes, start + (rank + 1) * n // processes))
    return np.asarray(rows)


def devices() -> dict[str, Any]:
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

    import lamina
    from lamina import distribution as dist

    x, y = data()
    out: dict[str, Any] = {"devices": dist.list_devices(), "count": dist.get_device_count()}
    single = make_model()
    out["single"] = train(single, x, y, GLOBAL_BATCH)
    out["single_predict"] = np.asarray(single.predict(x, verbose=0)).tolist()
    strategy = dist.DataParallel()
    with strategy.scope():
        model = make_model()
        kernel = model.weights[0].tf_variable
        out["mirrored"] = isinstance(kernel, tf.distribute.DistributedValues)
        out["copies"] = [v.device for v in list(kernel.values)]
        out["data_parallel"] = train(model, x, y, GLOBAL_BATCH)
        copies = [np.asarray(v) for v in kernel.values]
        out["copies_agree"] = all(np.array_equal(c, copies[0]) for c in copies)
        parts = dist.distribute_tensor(
            x[:8], dist.TensorLayout(("batch", None), strategy.device_mesh)
        )
        out["tensor_parts"] = [list(p.shape) for p in parts.values]
        out["dp_predict"] = np.asarray(model.predict(x, verbose=0)).tolist()
        model.save_weights(f"{sys.argv[2]}/mirrored.weights.h5")
    # Weights saved from the replicas load into a model on one device.
    plain = make_model()
    plain.load_weights(f"{sys.argv[2]}/mirrored.weights.h5")
    out["reloaded_predict"] = np.asarray(plain.predict(x, verbose=0)).tolist()
    # A model made outside the strategy cannot train under it.
    outside = make_model()
    try:
        with strategy.scope():
            outside.fit(x, y, batch_size=GLOBAL_BATCH, epochs=1, verbose=0)
        out["outside"] = None
    except ValueError as error:
        out["outside"] = str(error)
    out["custom_step"] = custom_step_error(strategy, x, y)
    out["after_scope"] = lamina.distribution.distribution() is None
    return out


def custom_step_error(strategy: Any, x: Any, y: Any) -> str | None:
    """A `train_step` of one's own that updates the weights from one replica's gradients
    would let the copies drift apart: what `fit` says to it."""
    import tensorflow as tf

    import lamina

    class OwnStep(lamina.Sequential):
        def train_step(self, data: Any) -> dict[str, Any]:
            x, y = data
            with tf.GradientTape() as tape:
                loss = self.compute_loss(y=y, y_pred=self(x, training=True))
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables))
            return {"loss": loss}

    with strategy.scope():
        model = OwnStep([lamina.Input((5,)), lamina.layers.Dense(3)])
        model.compile(optimizer="sgd", loss="mse")
        try:
            model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=1, verbose=0)
        except RuntimeError as error:
            return str(error)
    return None


def worker() -> dict[str, Any]:
    from lamina import distribution as dist
    from lamina.random.seed_generator import global_seed_generator

    dist.initialize()  # reads TF_CONFIG
    # Unseeded: each worker drew its own global seed, and `initialize` gave both worker 0's.
    seed_state = np.asarray(global_seed_generator().state.value).tolist()
    rank, processes = dist.process_id(), dist.num_processes()
    x, y = data()
    rows = local_rows(rank, processes)
    with dist.DataParallel().scope():
        # Worker 1 starts from other weights: worker 0's must win, as on one process.
        model = make_model(perturb=0.5 * rank)
        result = train(model, x[rows], y[rows], GLOBAL_BATCH // processes)
    if rank != 0:
        return {"seed_state": seed_state}
    return {
        "processes": processes,
        "count": dist.get_device_count(),
        **result,
        "seed_state": seed_state,
    }


def main() -> None:
    out = devices() if sys.argv[1] == "devices" else worker()
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
