"""One process of a `ModelParallel` job on torch (gloo, one process per device), started by
`test_distribution_model_parallel.py` with the LAMINA_DISTRIBUTION_* variables set.

Arguments: the mesh shape (``1x2``, ``2x1`` or ``2x2``; axes "batch" and "model") and a folder
holding ``plain.weights.h5`` (written by `reference`). Each process builds the model
split as the layout map says, loads the plain file into it, takes gradients, trains,
predicts its own rows and saves the split weights and the whole model; it prints what it
saw as one JSON line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

GLOBAL_BATCH = 8
EPOCHS = 2


def data() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2 * GLOBAL_BATCH, 6)).astype("float32")
    y = rng.normal(size=(2 * GLOBAL_BATCH, 4)).astype("float32")
    return x, y


def make_model(bias_shapes: list[Any] | None = None) -> Any:
    """The model; `bias_shapes` collects the shapes hidden's zeros initializer fills."""
    import lamina

    class Zeros(lamina.initializers.Zeros):
        def __call__(self, shape: Any, dtype: Any = None) -> Any:
            if bias_shapes is not None:
                bias_shapes.append(list(shape))
            return super().__call__(shape, dtype=dtype)

    glorot = lamina.initializers.GlorotUniform
    model = lamina.Sequential(
        [
            lamina.Input((6,)),
            lamina.layers.Dense(
                8,
                activation="tanh",
                name="hidden",
                kernel_initializer=glorot(seed=1),
                bias_initializer=Zeros(),
            ),
            lamina.layers.Dropout(0.25, seed=3),  # its seed state stays a plain tensor
            lamina.layers.Dense(4, name="head", kernel_initializer=glorot(seed=2)),
        ]
    )
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def gradients(model: Any, x: Any, y: Any) -> list[Any]:
    """The gradients of the mean squared error of ``model(x)``, whole, in `weights` order."""
    import torch

    import lamina
    from lamina_torch.model_parallel import step_scope

    for v in model.trainable_weights:
        v.value.grad = None
    with step_scope():  # as in the train step: constants meet DTensors as replicated
        y = lamina.ops.convert_to_tensor(y)
        loss = lamina.ops.mean(lamina.ops.square(model(x) - y))
        loss.backward()
    out = []
    for v in model.trainable_weights:
        grad = v.value.grad
        full = grad.full_tensor() if hasattr(grad, "full_tensor") else grad
        out.append(torch.as_tensor(full).detach().numpy())
    return out


def reference(folder: str) -> dict[str, Any]:
    """One process, no strategy: what the job must reproduce; writes plain.weights.h5."""
    x, y = data()
    model = make_model()
    model.save_weights(f"{folder}/plain.weights.h5")
    out = {
        "predict": model.predict(x, batch_size=GLOBAL_BATCH, verbose=0),
        "gradients": gradients(model, x[:GLOBAL_BATCH], y[:GLOBAL_BATCH]),
    }
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
    out["loss"] = history.history["loss"]
    out["weights"] = model.get_weights()
    out["evaluate"] = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0)
    model.save(f"{folder}/plain.lamina")
    out["optimizer"] = [v.numpy() for v in model.optimizer.variables]
    out["trained_predict"] = model.predict(x, batch_size=GLOBAL_BATCH, verbose=0)
    return out


def main() -> None:
    import lamina
    from lamina import distribution as dist
    from lamina.backend.kit import global_seed_generator

    shape = tuple(int(n) for n in sys.argv[1].split("x"))
    folder = sys.argv[2]
    dist.initialize()
    rank, processes = dist.process_id(), dist.num_processes()
    x, y = data()
    per = GLOBAL_BATCH // processes
    rows = np.concatenate([np.arange(s + rank * per, s + (rank + 1) * per) for s in (0, 8)])
    mesh = dist.DeviceMesh(shape, ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["hidden/kernel"] = (None, "model")
    layout_map["head/kernel"] = ("model", None)
    layout_map["hidden/bias"] = ("model",)
    layout_map["hidden/output"] = ("batch", "model")  # the activations, split both ways
    out: dict[str, Any] = {"rank": rank}
    # `initialize` gave every process process 0's global seed state (for `seed=None`).
    out["seed_state"] = global_seed_generator().state.numpy().tolist()
    refused = dist.ModelParallel(
        layout_map=dist.LayoutMap(dist.DeviceMesh((1,), ("b",), ["cpu:0"]))
    )
    try:
        with refused.scope():
            lamina.layers.Dense(2).build((None, 3))
    except ValueError as error:
        out["refused"] = str(error)
    with dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch").scope():
        out["bias_filled"] = []
        model = make_model(out["bias_filled"])  # zeros are created shard by shard
        hidden, head = model.get_layer("hidden"), model.get_layer("head")
        local = [tuple(v.value.to_local().shape) for v in (hidden.kernel, hidden.bias)]
        local += [tuple(v.value.to_local().shape) for v in (head.kernel, head.bias)]
        out["shards"] = local
        out["placements"] = [str(p) for p in hidden.kernel.value.placements]
        model.load_weights(f"{folder}/plain.weights.h5")  # each process keeps its part
        tensor = dist.distribute_tensor(x[:8, :4], dist.TensorLayout(("batch", "model"), mesh))
        out["distributed_tensor"] = [tuple(tensor.to_local().shape), str(tensor.placements)]
        batch = model._to_tensors([(x[rows[:per]],)])[0]
        hidden_out = hidden(batch[0])
        out["hidden_output"] = [tuple(hidden_out.to_local().shape), str(hidden_out.placements)]
        out["predict"] = np.asarray(model.predict(x[rows], batch_size=per, verbose=0)).tolist()
        batch = model._to_tensors([(x[rows[:per]], y[rows[:per]])])[0]
        out["gradients"] = [g.tolist() for g in gradients(model, batch[0], batch[1])]
        # The callbacks that save run on every process (split weights are gathered by a
        # collective each process joins); process 0 alone writes.
        tag = sys.argv[1]
        saving = [
            lamina.callbacks.ModelCheckpoint(
                f"{folder}/checkpoint-{tag}.weights.h5", save_weights_only=True
            ),
            lamina.callbacks.BackupAndRestore(f"{folder}/backup-{tag}", delete_checkpoint=False),
        ]
        history = model.fit(x[rows], y[rows], batch_size=per, epochs=EPOCHS, shuffle=False,
                            verbose=0, callbacks=saving)  # fmt: skip
        out["loss"] = history.history["loss"]
        out["weights"] = [w.tolist() for w in model.get_weights()]
        out["evaluate"] = model.evaluate(x[rows], y[rows], batch_size=per, verbose=0)
        out["slot_shards"] = [
            tuple(v.value.to_local().shape)
            for v in model.optimizer.variables
            if "hidden_kernel" in v.path
        ]
        out["trained_predict"] = np.asarray(
            model.predict(x[rows], batch_size=per, verbose=0)
        ).tolist()
        out["rows"] = rows.tolist()
        model.save_weights(f"{folder}/sharded.weights.h5")  # gathered whole
        model.save(f"{folder}/sharded.lamina")  # with Adam's split slots
        # A whole model saved by one process, loaded split: weights and Adam's slots.
        restored = lamina.saving.load_model(f"{folder}/plain.lamina")
        out["restored_shards"] = [
            tuple(v.value.to_local().shape)
            for v in (restored.get_layer("hidden").kernel, *restored.optimizer.variables)
            if "hidden" in v.path and "kernel" in v.path
        ]
        out["restored_predict"] = np.asarray(
            restored.predict(x[rows], batch_size=per, verbose=0)
        ).tolist()
        # A fresh split model resumes from the backup: every epoch is done, so it trains
        # no further and holds the trained weights.
        resumed = make_model()
        backup = lamina.callbacks.BackupAndRestore(f"{folder}/backup-{tag}")
        resumed.fit(x[rows], y[rows], batch_size=per, epochs=EPOCHS, verbose=0,
                    callbacks=[backup])  # fmt: skip
        out["resumed_weights"] = [w.tolist() for w in resumed.get_weights()]
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
