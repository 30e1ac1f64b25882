"""Checkpoints of a model split over two JAX processes (`jax.distributed`, CPU collectives).

Its kernels span both processes' devices (arrays no process holds whole). A weights file
written by one process loads into the split model, each process keeping its part; the
split model's `save_weights` and `save` gather every array whole
(`process_allgather`), and one process loads those files back.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np

import lamina

HERE = pathlib.Path(__file__).parent
JOB = HERE / "_checkpoint_processes_job.py"
TOL = 1e-6


def test_split_weights_save_whole_and_plain_weights_load_split(tmp_path: pathlib.Path) -> None:
    jobs = runpy.run_path(str(HERE / "_process_jobs.py"))
    job = jobs["load"](JOB)
    weights, predictions = job.reference(str(tmp_path))
    for got in jobs["results"](JOB, str(tmp_path)):
        # hidden's kernel and bias and head's kernel split over the processes; head's
        # bias replicated. No process holds any of them whole.
        assert got["shards"] == [[[6, 4]], [[4]], [[4, 4]], [[4]]]
        assert got["fully_addressable"] == [False] * 4
        np.testing.assert_allclose(got["predict"], predictions, atol=TOL, rtol=0)
    # Saved from the split model (weights doubled there), loaded on one process.
    plain = job.make_model()
    plain.load_weights(str(tmp_path / "sharded.weights.h5"))
    loaded = lamina.saving.load_model(str(tmp_path / "sharded.lamina"))
    for model in (plain, loaded):
        for got_w, want in zip(model.get_weights(), weights, strict=True):
            np.testing.assert_allclose(got_w, 2 * want, atol=TOL, rtol=0)
