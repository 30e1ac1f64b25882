"""`ModelParallel` over two JAX processes (`jax.distributed`, CPU collectives) follows
Lamina's data rule on every mesh: each process passes its own rows of every global batch.

On a (1, 2) mesh the batch axis has one device, so both processes' devices need every row
(they are gathered, then placed); on a (2, 1) mesh each process's rows go to its own
device. Either way `fit` ends where one process ends on the whole batches, and `predict`
gives each process the predictions of the rows it passed.
"""

from __future__ import annotations

import pathlib
import runpy

import numpy as np
import pytest

from lamina.backend import current

HERE = pathlib.Path(__file__).parent
JOB = HERE / "_model_parallel_processes_job.py"
TOL = 1e-5  # float32 sums taken in another order (split over devices, then reduced)

pytestmark = pytest.mark.skipif(current().name != "jax", reason="runs jax.distributed")


def test_each_process_passes_its_own_rows_on_every_mesh() -> None:
    jobs = runpy.run_path(str(HERE / "_process_jobs.py"))
    weights, predictions, short = jobs["load"](JOB).reference()
    for got in jobs["results"](JOB):
        for mesh in ("1x2", "2x1"):
            for w, want in zip(got[mesh]["weights"], weights, strict=True):
                np.testing.assert_allclose(w, want, atol=TOL, rtol=0, err_msg=mesh)
        # Each process gets the predictions of its own rows; on (1, 2), of a batch cut
        # 3 + 4 between the processes.
        want = short[got["short_rows"]]
        np.testing.assert_allclose(got["1x2"]["predict"], want, atol=TOL, rtol=0)
        want = predictions[got["rows"]]
        np.testing.assert_allclose(got["2x1"]["predict"], want, atol=TOL, rtol=0)
