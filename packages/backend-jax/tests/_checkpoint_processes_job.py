"""One process of a two-process JAX job (`jax.distributed`, one CPU device each), started by
`test_distribution_checkpoint_processes.py` with the LAMINA_DISTRIBUTION_* variables set.

Argument: a folder holding ``plain.weights.h5`` (written by `reference`). The model is
split over a (1, 2) mesh, so its kernels span both processes; each process loads the plain
file (keeping its part), predicts, then doubles the weights and saves them, gathered whole,
as ``sharded.weights.h5`` and ``sharded.lamina``. It prints what it saw as one JSON line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np


def data() -> np.ndarray[Any, Any]:
    return np.random.default_rng(0).normal(size=(8, 6)).astype("float32")


def make_model() -> Any:
    import lamina

    glorot = lamina.initializers.GlorotUniform
    model = lamina.Sequential(
        [
            lamina.Input((6,)),
            lamina.layers.Dense(
                8, activation="tanh", name="hidden", kernel_initializer=glorot(seed=1)
            ),
            lamina.layers.Dense(4, name="head", kernel_initializer=glorot(seed=2)),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    return model


def reference(folder: str) -> tuple[list[Any], Any]:
    """One process, no strategy: the weights and predictions; writes plain.weights.h5."""
    model = make_model()
    model.save_weights(f"{folder}/plain.weights.h5")
    return model.get_weights(), model.predict(data(), verbose=0)


def shard_shapes(array: Any) -> list[list[int]]:
    return sorted({tuple(s.data.shape) for s in array.addressable_shards})  # type: ignore[misc]


def main() -> None:
    from lamina import distribution as dist

    folder = sys.argv[1]
    dist.initialize()
    mesh = dist.DeviceMesh((1, 2), ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["hidden/kernel"] = (None, "model")
    layout_map["head/kernel"] = ("model", None)
    layout_map["hidden/bias"] = ("model",)
    out: dict[str, Any] = {"rank": dist.process_id()}
    with dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch").scope():
        model = make_model()
        model.load_weights(f"{folder}/plain.weights.h5")  # each process keeps its part
        variables = [*model.get_layer("hidden").weights, *model.get_layer("head").weights]
        out["shards"] = [shard_shapes(v.value) for v in variables]
        out["fully_addressable"] = [bool(v.value.is_fully_addressable) for v in variables]
        # Each process passes its own rows (here both pass the same 8) and gets their
        # predictions back: the batch axis has one device, so the rows are gathered.
        out["predict"] = np.asarray(model.predict(data(), verbose=0)).tolist()
        model.set_weights([2 * w for w in model.get_weights()])
        model.save_weights(f"{folder}/sharded.weights.h5")  # gathered whole
        model.save(f"{folder}/sharded.lamina")
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
