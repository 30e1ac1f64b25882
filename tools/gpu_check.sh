#!/usr/bin/env bash
# The GPU check on a machine that has CUDA builds of PyTorch and JAX but no package index
# (the `gpu` nox session needs one). Build the wheels it installs first, on a machine that
# has an index:
#
#   pip wheel --no-deps packages/{core,backend-numpy,backend-jax,backend-torch,saving} -w .whl
#   pip download --no-deps --only-binary=:all: --python-version 3.12 -d .whl optree isal pydot
#
# then run this from the repository root there. It writes to $OUT (default gpu-out/):
# the GPU's name, the benchmark records (benchmarks/run.py, JAX and PyTorch, the raw sides
# on the same GPU), and each backend's core, backend and saving suites on the GPU, run
# side by side under pytest-xdist (failed-BACKEND.txt names the tests that failed). Every
# phase has a time limit (TEST_SECONDS; BENCHES gives each benchmark's seconds), so the
# check ends in about eight minutes and reports what it reached.
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site \
    .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi -L | tee "$OUT/gpu.txt"

suite() {  # suite BACKEND IGNORED...: the suites on one backend, 6 workers
    local backend=$1
    shift
    # At its time limit pytest gets SIGINT, so it still prints the summary of failures
    # (-rfE); -v names each test as it ends, in case the summary is cut short.
    LAMINA_BACKEND=$backend timeout -s INT -k 20 "${TEST_SECONDS:-240}" python3 -m pytest \
        -v -n 6 -p no:benchmark --timeout 120 -rfE --tb=line --maxfail 300 \
        packages/core/tests "packages/backend-$backend/tests" packages/saving/tests \
        --ignore=packages/core/tests/distribution/test_multi_process.py \
        "$@" >"$OUT/tests-$backend.log" 2>&1
    echo "tests on $backend: exit $? ($(tail -1 "$OUT/tests-$backend.log"))"
    grep -E "(FAILED|ERROR) " "$OUT/tests-$backend.log" | sort -u >"$OUT/failed-$backend.txt"
}
# The distribution files that start several processes (NCCL takes a GPU each) or fake
# host devices: the `distributed` session's, as noxfile.py lists them.
T=packages/backend-torch/tests/test_distribution
J=packages/backend-jax/tests/test_distribution
suite torch --ignore=${T}_torchrun.py --ignore=${T}_faults.py \
    --ignore=${T}_model_parallel.py &
suite jax --ignore=${J}_devices.py --ignore=${J}_checkpoint_processes.py \
    --ignore=${J}_model_parallel_processes.py &
wait

bench() {  # bench SECONDS NAME...: the named benchmarks, appended to bench.jsonl
    local limit=$1
    shift
    (cd benchmarks && LAMINA_BENCH_KERAS=0 LAMINA_BENCH_BACKENDS=${LAMINA_BENCH_BACKENDS:-jax,torch} \
        timeout "$limit" python3 run.py --only "$@") >>"$OUT/bench.jsonl" 2>>"$OUT/bench.err"
    echo "benchmarks $*: exit $?"
}
for spec in ${BENCHES:-60:inference 100:training 50:training_recurrent 50:training_attention}; do
    bench "${spec%%:*}" "${spec#*:}"
done
