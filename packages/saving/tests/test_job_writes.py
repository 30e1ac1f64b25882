"""In a distributed job only process 0 writes saved files; the others walk the same save
(the gathers of split weights need them) into scratch files that are deleted."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lamina
from lamina import distribution
from lamina_saving import job

FILES = {
    "weights": ("m.weights.h5", lambda model, path: model.save_weights(path)),
    "archive": ("m.lamina", lambda model, path: model.save(path)),
    "sharded": (
        "m.weights.json",
        lambda model, path: model.save_weights(path, max_shard_size=1e-7),
    ),
}


def _model() -> lamina.Model:
    model = lamina.Sequential([lamina.Input((4,)), lamina.layers.Dense(8), lamina.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    return model


@pytest.mark.parametrize("kind", sorted(FILES))
def test_a_process_other_than_zero_writes_nothing(kind, tmp_path, monkeypatch) -> None:
    name, save = FILES[kind]
    model = _model()
    monkeypatch.setattr(distribution, "process_id", lambda: 1)
    assert not job.writes_files()
    save(model, str(tmp_path / name))
    assert os.listdir(tmp_path) == []

    monkeypatch.undo()  # process 0 writes the file, which loads back
    save(model, str(tmp_path / name))
    assert name in os.listdir(tmp_path)
    if kind == "archive":
        loaded = lamina.saving.load_model(str(tmp_path / name))
    else:
        loaded = _model()
        loaded.load_weights(str(tmp_path / name))
    for got, want in zip(loaded.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(got, want)


def test_process_one_leaves_process_zero_s_shards(tmp_path, monkeypatch) -> None:
    name, save = FILES["sharded"]
    model = _model()
    save(model, str(tmp_path / name))
    before = sorted(os.listdir(tmp_path))
    assert len(before) > 2  # several shards and the index
    monkeypatch.setattr(distribution, "process_id", lambda: 1)
    save(model, str(tmp_path / name))  # a later save by another process removes none
    assert sorted(os.listdir(tmp_path)) == before
