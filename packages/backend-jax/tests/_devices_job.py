"""Run by `test_distribution_devices.py` in a fresh interpreter with four host devices
(``XLA_FLAGS=--xla_force_host_platform_device_count=4`` must be set before jax loads).

Trains the same small model on one device, under `DataParallel` over four devices and
under `ModelParallel` on a 2x2 mesh, and prints what the tests compare as one JSON line.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def make_model(initializer: Any = None) -> Any:
    import lamina

    glorot = lamina.initializers.GlorotUniform
    model = lamina.Sequential(
        [
            lamina.Input((5,)),
            lamina.layers.Dense(
                8,
                activation="tanh",
                name="hidden",
                kernel_initializer=initializer or glorot(seed=1),
            ),
            # Batch statistics and dropout masks must be those of the whole batch.
            lamina.layers.BatchNormalization(name="norm"),
            lamina.layers.Dropout(0.25, seed=3),
            lamina.layers.Dense(3, name="head", kernel_initializer=glorot(seed=2)),
        ]
    )
    model.compile(optimizer=lamina.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def train(model: Any, x: Any, y: Any) -> dict[str, Any]:
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    return {
        "weights": [np.asarray(w).tolist() for w in model.get_weights()],
        "loss": history.history["loss"],
        "evaluate": model.evaluate(x, y, batch_size=8, verbose=0),
        "predict": np.asarray(model.predict(x, batch_size=8, verbose=0)).tolist(),
    }


def shard_shapes(array: Any) -> list[list[int]]:
    return sorted({tuple(s.data.shape) for s in array.addressable_shards})  # type: ignore[misc]


def main() -> None:
    import sys

    import lamina
    from lamina import distribution as dist

    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 5)).astype("float32")  # 8, 8, then a short batch of 4
    y = rng.normal(size=(20, 3)).astype("float32")
    out: dict[str, Any] = {"devices": dist.list_devices(), "count": dist.get_device_count()}
    single = make_model()
    out["single"] = train(single, x, y)
    single.save_weights(f"{sys.argv[1]}/single.weights.h5")

    data_parallel = dist.DataParallel()
    with data_parallel.scope():
        model = make_model()
        out["dp_variable_specs"] = [list(v.value.sharding.spec) for v in model.weights]
        batch = model._to_tensors([(x[:8], y[:8])])[0]
        out["dp_batch_shards"] = shard_shapes(batch[0])
        out["data_parallel"] = train(model, x, y)

    mesh = dist.DeviceMesh((2, 2), ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["hidden/kernel"] = (None, "model")
    layout_map["head.*kernel"] = ("model", None)
    layout_map["hidden/output"] = ("batch", "model")  # activations split both ways
    traced: list[bool] = []

    def recording(shape: Any, dtype: Any = None) -> Any:
        value = lamina.initializers.GlorotUniform(seed=1)(shape, dtype=dtype)
        traced.append(not isinstance(value, np.ndarray) and "Tracer" in type(value).__name__)
        return value

    model_parallel = dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    with model_parallel.scope():
        model = make_model(recording)
        kernel = model.get_layer("hidden").kernel
        out["mp_initializer_traced"] = traced
        out["mp_kernel_spec"] = list(kernel.value.sharding.spec)
        out["mp_kernel_shards"] = shard_shapes(kernel.value)
        out["mp_head_shards"] = shard_shapes(model.get_layer("head").kernel.value)
        out["mp_bias_shards"] = shard_shapes(model.get_layer("hidden").bias.value)
        hidden_out = model.get_layer("hidden")(x[:8])
        out["mp_hidden_output_spec"] = list(hidden_out.sharding.spec)
        out["model_parallel"] = train(model, x, y)
        out["mp_kernel_shards_after"] = shard_shapes(kernel.value)
        slots = [v for v in model.optimizer.variables if "hidden_kernel" in v.path]
        out["mp_slot_shards"] = [shard_shapes(v.value) for v in slots]
        tensor = dist.distribute_tensor(x[:8, :4], dist.TensorLayout(("batch", "model"), mesh))
        out["distributed_tensor_shards"] = shard_shapes(tensor)
        sharded_file = f"{sys.argv[1]}/sharded.weights.h5"
        model.save_weights(sharded_file)
        # One device's weights loaded into a model split over four.
        resharded = make_model()
        resharded.load_weights(f"{sys.argv[1]}/single.weights.h5")
        out["loaded_into_shards"] = shard_shapes(resharded.get_layer("hidden").kernel.value)
        out["loaded_into_shards_predict"] = np.asarray(resharded.predict(x, verbose=0)).tolist()
    out["after_scope"] = dist.distribution() is None
    unsharded = make_model()
    unsharded.load_weights(sharded_file)  # four devices' weights onto one
    out["loaded_unsharded_predict"] = np.asarray(unsharded.predict(x, verbose=0)).tolist()
    print("RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
