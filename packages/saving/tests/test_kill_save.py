"""`kill -9` at random points of a save (issue 12, items 7 and 11).

A child process builds the model with values of a new generation and saves it over the
previous file (or shard set); the parent kills it after a random delay within one save's
duration, then loads the file. It must load every time, holding exactly the previous
generation's values or exactly the new one's (never a mix), and no temporary file or
orphan shard may survive the next completed save.

CI runs a few small kills; ``LAMINA_KILL_SAVES=20 LAMINA_KILL_SAVE_MB=128`` (the fuzz
session) runs the full version. ``LAMINA_KILL_SEED`` changes the random delays.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import lamina

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL and pids as on POSIX")

KILLS = int(os.environ.get("LAMINA_KILL_SAVES", "5"))
MEGABYTES = int(os.environ.get("LAMINA_KILL_SAVE_MB", "16"))
SEED = int(os.environ.get("LAMINA_KILL_SEED", "0"))
LAYERS = 8

# The model and its values, shared by the parent and each child (run with exec).
MODEL = """
import numpy as np
import lamina
from lamina.layers.core import Dense


def build(megabytes):
    width = int((megabytes * 2**20 / 4 / LAYERS) ** 0.5)
    layers = [Dense(width, use_bias=False, name=f"d{i}") for i in range(LAYERS)]
    return lamina.Sequential([lamina.Input((width,)), *layers])


def value(i, shape, generation):
    # Layer i's kernel in `generation`: every element differs from its neighbours.
    ramp = ((np.arange(int(np.prod(shape)), dtype=np.int64) * 7 + i) % 1000) / 1000.0
    return (generation + ramp).astype("float32").reshape(shape)


def fill(model, generation):
    for i, layer in enumerate(model.layers):
        layer.kernel.assign(value(i, layer.kernel.shape, generation))
"""
CHILD = f"LAYERS = {LAYERS}\n" + MODEL + """
import sys
generation, path, megabytes, shard = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
import os, tempfile
with tempfile.TemporaryDirectory() as warm:  # imports and first-save costs, paid here
    build(1).save_weights(os.path.join(warm, "w.weights.h5"))
model = build(megabytes)
fill(model, generation)
print("ready", flush=True)
model.save_weights(path, max_shard_size=float(shard) if shard != "none" else None)
print("saved", flush=True)
"""


def _model_code():
    namespace = {"LAYERS": LAYERS}
    exec(MODEL, namespace)
    return namespace


def _generation(model, code):
    """Which generation `model` holds, if every layer holds the same complete one."""
    found = set()
    for i, layer in enumerate(model.layers):
        got = lamina.ops.convert_to_numpy(layer.kernel)
        generation = round(float(got.flat[0]) - code["value"](i, (1,), 0)[0])
        np.testing.assert_array_equal(
            got, code["value"](i, got.shape, generation),
            err_msg=f"layer {layer.name} holds a torn or foreign value",
        )
        found.add(generation)
    assert len(found) == 1, f"layers hold different generations {sorted(found)}: a mixed set"
    return found.pop()


def _temporaries(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _indexed(index):
    shards = json.loads(index.read_text())["shards"]
    return {index.name, *shards}


def _kill_run(tmp_path, target, shard):
    code = _model_code()
    rng = np.random.default_rng(SEED)
    model = code["build"](MEGABYTES)
    code["fill"](model, 1)
    model.save_weights(target, max_shard_size=shard)
    start = time.perf_counter()
    model.save_weights(target, max_shard_size=shard)  # timed once warm
    save_s = time.perf_counter() - start
    current, killed, outcomes = 1, [], {"previous": 0, "new": 0}
    for generation in range(2, KILLS + 2):
        with subprocess.Popen(
            [sys.executable, "-c", CHILD, str(generation), str(target), str(MEGABYTES),
             "none" if shard is None else repr(shard)],
            stdout=subprocess.PIPE,
            text=True,
        ) as child:
            assert child.stdout.readline().strip() == "ready"
            time.sleep(rng.uniform(0, save_s * 1.1))
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        killed.append(child.pid)
        leftovers = _temporaries(tmp_path)
        assert all(any(f"-{pid}-" in name for pid in killed) for name in leftovers), leftovers
        fresh = code["build"](MEGABYTES)
        fresh.load_weights(target)  # must load after every kill
        got = _generation(fresh, code)
        assert got in (current, generation), f"generation {got} after killing {generation}"
        outcomes["new" if got == generation else "previous"] += 1
        current = got
    model.save_weights(target, max_shard_size=shard)  # the next completed save cleans up
    assert _temporaries(tmp_path) == []
    return save_s, outcomes


def test_kill_during_single_file_save_keeps_the_previous_file(tmp_path):
    start = time.perf_counter()
    save_s, outcomes = _kill_run(tmp_path, tmp_path / "w.weights.h5", None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.weights.h5"]
    print(f"\n{KILLS} kills of a {MEGABYTES} MB single-file save ({save_s:.2f} s per save): "
          f"{outcomes}, {time.perf_counter() - start:.1f} s in all")


def test_kill_during_sharded_save_keeps_the_previous_set(tmp_path):
    index = tmp_path / "w.weights.json"
    start = time.perf_counter()
    shard = MEGABYTES * 2**20 / 4 / 1e9  # two layers a shard: four shards, in GB
    save_s, outcomes = _kill_run(tmp_path, index, shard)
    assert {p.name for p in tmp_path.iterdir()} == _indexed(index)  # no orphan shard left
    assert len(_indexed(index)) == 5
    print(f"\n{KILLS} kills of a {MEGABYTES} MB save in 4 shards ({save_s:.2f} s per save): "
          f"{outcomes}, {time.perf_counter() - start:.1f} s in all")


def test_kill_run_detects_a_mixed_set(tmp_path):
    """The checker itself: a set with one shard from another save is caught."""
    code = _model_code()
    index = tmp_path / "w.weights.json"
    model = code["build"](1)
    code["fill"](model, 1)
    model.save_weights(index, max_shard_size=2**20 / 4 / 1e9)
    first = json.loads(index.read_text())
    keep = {name: (tmp_path / name).read_bytes() for name in first["shards"]}
    code["fill"](model, 2)
    model.save_weights(index, max_shard_size=2**20 / 4 / 1e9)
    second = json.loads(index.read_text())
    # Put the first save's first shard under the second save's first name.
    pathlib.Path(tmp_path / second["shards"][0]).write_bytes(keep[first["shards"][0]])
    fresh = code["build"](1)
    fresh.load_weights(index)
    with pytest.raises(AssertionError, match="mixed set"):
        _generation(fresh, code)
