"""Sharded weights (issue 12, items 7 and 9): atomic saves and a shard index that fails
only with `LaminaFileError`, whatever is wrong with it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import lamina
from lamina.layers.core import Dense
from lamina_saving import LaminaFileError, weights

SHARD = 8e3 / 1e9  # ~8 kB per shard: several shards for the model below


def _model(seed=0):
    lamina.utils.set_random_seed(seed)
    return lamina.Sequential([lamina.Input((4,)), Dense(64), Dense(64), Dense(2)])


def _values(model):
    return [lamina.ops.convert_to_numpy(v) for v in model.weights]


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_sharded_save_that_raises_leaves_the_previous_set_untouched(tmp_path, monkeypatch):
    index = tmp_path / "big.weights.json"
    old = _model(0)
    old.save_weights(index, max_shard_size=SHARD)
    before = _files(tmp_path)
    assert len(before) >= 4  # the index and at least three shards
    real_write = weights.write_entries
    calls = []

    def fail_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        real_write(*args, **kwargs)

    monkeypatch.setattr(weights, "write_entries", fail_third)
    with pytest.raises(OSError, match="disk full"):
        _model(1).save_weights(index, max_shard_size=SHARD)
    assert _files(tmp_path) == before  # no shard replaced, nothing new left behind
    fresh = _model(2)
    fresh.load_weights(index)
    for got, want in zip(_values(fresh), _values(old)):
        np.testing.assert_array_equal(got, want)


def test_new_set_replaces_the_old_one_and_old_shards_are_removed(tmp_path):
    index = tmp_path / "big.weights.json"
    _model(0).save_weights(index, max_shard_size=SHARD)
    first = set(json.loads(index.read_text())["shards"])
    new = _model(1)
    new.save_weights(index, max_shard_size=SHARD)
    second = set(json.loads(index.read_text())["shards"])
    assert not first & second  # the new set never overwrote a shard the old index named
    assert {p.name for p in tmp_path.iterdir()} == second | {"big.weights.json"}
    fresh = _model(2)
    fresh.load_weights(index)
    for got, want in zip(_values(fresh), _values(new)):
        np.testing.assert_array_equal(got, want)


def test_shards_a_killed_save_left_behind_are_removed_by_the_next_save(tmp_path):
    index = tmp_path / "big.weights.json"
    _model(0).save_weights(index, max_shard_size=SHARD)
    shard = json.loads(index.read_text())["shards"][0]
    orphan = tmp_path / "big_0badc0de_00000.weights.h5"  # renamed into place, never indexed
    orphan.write_bytes((tmp_path / shard).read_bytes())
    unrelated = [tmp_path / "big_notes.weights.h5", tmp_path / "bigger_0badc0de_00000.weights.h5"]
    for path in unrelated:
        path.write_bytes(b"someone else's")
    _model(1).save_weights(index, max_shard_size=SHARD)
    assert not orphan.exists()
    assert all(path.exists() for path in unrelated)


def test_overwrite_false_refuses_before_writing_any_shard(tmp_path):
    index = tmp_path / "big.weights.json"
    _model(0).save_weights(index, max_shard_size=SHARD)
    before = _files(tmp_path)
    with pytest.raises(FileExistsError):
        _model(1).save_weights(index, max_shard_size=SHARD, overwrite=False)
    assert _files(tmp_path) == before


def _index_with(tmp_path, content):
    index = tmp_path / "forged.weights.json"
    _model(0).save_weights(index, max_shard_size=SHARD)
    good = json.loads(index.read_text())
    content = content(good) if callable(content) else content
    if isinstance(content, bytes):
        index.write_bytes(content)
    else:
        index.write_text(content)
    return index


MALFORMED = {
    "list": "[]",
    "string": '"lamina-weights-index"',
    "null": "null",
    "number": "1e999",
    "empty object": "{}",
    "no format": lambda g: json.dumps({k: v for k, v in g.items() if k != "format"}),
    "no shards": lambda g: json.dumps({k: v for k, v in g.items() if k != "shards"}),
    "shards not a list": lambda g: json.dumps({**g, "shards": {"a": 1}}),
    "empty shards": lambda g: json.dumps({**g, "shards": []}),
    "shard a number": lambda g: json.dumps({**g, "shards": [1]}),
    "shard a list": lambda g: json.dumps({**g, "shards": [["x"]]}),
    "parent path": lambda g: json.dumps({**g, "shards": ["../x.weights.h5"]}),
    "absolute path": lambda g: json.dumps({**g, "shards": ["/etc/x.weights.h5"]}),
    "backslash": lambda g: json.dumps({**g, "shards": ["..\\x.weights.h5"]}),
    "drive": lambda g: json.dumps({**g, "shards": ["C:x.weights.h5"]}),
    "nul": lambda g: json.dumps({**g, "shards": ["x\x00.weights.h5"]}),
    "other suffix": lambda g: json.dumps({**g, "shards": ["passwd"]}),
    "duplicate shard": lambda g: json.dumps({**g, "shards": g["shards"] * 2}),
    "missing shard": lambda g: json.dumps({**g, "shards": ["gone.weights.h5"]}),
    "weight_map a list": lambda g: json.dumps({**g, "weight_map": []}),
    "weight_map elsewhere": lambda g: json.dumps(
        {**g, "weight_map": {k: "other.weights.h5" for k in g["weight_map"]}}
    ),
    "weight_map shuffled": lambda g: json.dumps(
        {**g, "weight_map": dict(zip(g["weight_map"], reversed(g["weight_map"].values())))}
    ),
    "deep nesting": "[" * 100_000 + "]" * 100_000,
    "not utf-8": b"\xff\xfe{}",
    "not json": "{format: lamina",
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_shard_index_raises_library_error(tmp_path, case):
    index = _index_with(tmp_path, MALFORMED[case])
    with pytest.raises(LaminaFileError) as info:
        _model(1).load_weights(index)
    assert "forged.weights.json" in str(info.value)


def test_huge_shard_index_is_refused_without_parsing(tmp_path):
    index = tmp_path / "huge.weights.json"
    with open(index, "wb") as f:
        f.truncate(weights.MAX_INDEX_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(LaminaFileError, match=r"refusing to parse|implausibly large"):
        _model().load_weights(index)
