"""`lamina.distribution` over four host devices of one process (`jax.sharding`).

The checks run in one fresh interpreter (`_devices_job.py`): XLA's device count is fixed
when jax loads, so it cannot be changed inside this test process.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

JOB = pathlib.Path(__file__).with_name("_devices_job.py")
TOL = 1e-5


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
    env["LAMINA_BACKEND"] = "jax"
    folder = tmp_path_factory.mktemp("weights")
    try:
        done = subprocess.run(
            [sys.executable, str(JOB), str(folder)],
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the four-device job did not finish within 240 s")
    if done.returncode != 0:
        pytest.fail(f"the four-device job failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    line = next(s for s in done.stdout.splitlines() if s.startswith("RESULT "))
    out: dict[str, Any] = json.loads(line[len("RESULT ") :])
    return out


def _same_run(got: dict[str, Any], want: dict[str, Any]) -> None:
    for a, b in zip(got["weights"], want["weights"], strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=TOL, rtol=0)
    np.testing.assert_allclose(got["loss"], want["loss"], atol=TOL, rtol=0)
    np.testing.assert_allclose(got["evaluate"], want["evaluate"], atol=TOL, rtol=0)
    np.testing.assert_allclose(got["predict"], want["predict"], atol=TOL, rtol=0)


def test_devices_are_listed(result: dict[str, Any]) -> None:
    assert result["devices"] == ["cpu:0", "cpu:1", "cpu:2", "cpu:3"]
    assert result["count"] == 4


def test_data_parallel_replicates_variables_and_splits_batches(result: dict[str, Any]) -> None:
    specs = result["dp_variable_specs"]  # dense, batch norm and dropout seed variables
    assert len(specs) >= 8 and all(axis is None for spec in specs for axis in spec)
    assert result["dp_batch_shards"] == [[2, 5]]  # 8 rows over 4 devices


def test_data_parallel_fit_matches_one_device(result: dict[str, Any]) -> None:
    # 20 rows in batches of 8: the short last batch (4) trains too.
    _same_run(result["data_parallel"], result["single"])


def test_model_parallel_shards_variables_as_the_layout_map_says(
    result: dict[str, Any],
) -> None:
    assert result["mp_kernel_spec"] == [None, "model"]
    assert result["mp_kernel_shards"] == [[5, 4]]  # (5, 8) split in two along "model"
    assert result["mp_head_shards"] == [[4, 3]]  # (8, 3) split along its first axis
    assert result["mp_bias_shards"] == [[8]]  # matched by no key: replicated
    assert result["mp_kernel_shards_after"] == [[5, 4]]  # training keeps the layout
    assert result["mp_slot_shards"] == [[[5, 4]], [[5, 4]]]  # Adam's two slots follow it


def test_model_parallel_places_layer_outputs_named_in_the_map(result: dict[str, Any]) -> None:
    # The layout map's "hidden/output" key places what the layer returns.
    assert result["mp_hidden_output_spec"] == ["batch", "model"]


def test_model_parallel_initializer_runs_sharded(result: dict[str, Any]) -> None:
    # The kernel's initializer ran traced, jitted onto its sharding: no whole copy first.
    assert result["mp_initializer_traced"] == [True]


def test_model_parallel_fit_matches_one_device(result: dict[str, Any]) -> None:
    _same_run(result["model_parallel"], result["single"])


def test_distribute_tensor_splits_both_axes(result: dict[str, Any]) -> None:
    assert result["distributed_tensor_shards"] == [[4, 2]]  # (8, 4) over a 2x2 mesh


def test_scope_restores_no_distribution(result: dict[str, Any]) -> None:
    assert result["after_scope"] is True


def test_weights_move_between_layouts(result: dict[str, Any]) -> None:
    # Saved from one device, loaded into a model split 2x2: split as the map says.
    assert result["loaded_into_shards"] == [[5, 4]]
    single, sharded = result["single"], result["model_parallel"]
    np.testing.assert_allclose(
        result["loaded_into_shards_predict"], single["predict"], atol=TOL, rtol=0
    )
    # Saved from the split model, loaded on one device: the same predictions.
    np.testing.assert_allclose(
        result["loaded_unsharded_predict"], sharded["predict"], atol=TOL, rtol=0
    )
