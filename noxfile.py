"""Every task in the monorepo: lint, types, tests per backend, builds, benchmarks, demo.

Every install goes through `install()`, which always applies constraints.txt (torch is
pinned there to the local CPU build).
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import nox

ROOT = pathlib.Path(__file__).parent
CONSTRAINTS = str(ROOT / "constraints.txt")
BACKENDS = ["numpy", "jax", "torch", "tensorflow"]
PACKAGES = ["core", *(f"backend-{b}" for b in BACKENDS), "saving"]
ARRAY_API_BACKEND = "integration_tests/array_api_backend"
"""A third-party adapter on the array API standard: proof that the kit is enough."""
TEST_DEPS = [
    "pytest>=8", "hypothesis>=6", "scipy>=1.11", "scikit-learn>=1.3", "pydot>=3", "pillow>=9.1"
]  # fmt: skip
FAST_COMPILE = {
    "XLA_FLAGS": "--xla_backend_optimization_level=0 --xla_cpu_multi_thread_eigen=false"
    " --xla_cpu_use_fusion_emitters=false"
}
"""XLA compiles the tests' many small programs (JAX, TensorFlow's jit_compile) as fast as
it can: without LLVM's optimization passes, and with its older emitter of fused kernels,
which compiles a small train step about 3 times faster (JAX's recurrent layer suite went
from 209 to 92 s). Each process also runs XLA's kernels on one thread, since two test
workers already share the two cores. XLA stops reading XLA_FLAGS at a word that is not a
flag, so every word here must be one. Benchmarks and users keep XLA's defaults."""

ONE_THREAD = {"OMP_NUM_THREADS": "1"}
TWO_WORKERS = {
    "numpy": ONE_THREAD,
    "jax": {},
    "tensorflow": {},
    "torch": {**ONE_THREAD, "TORCHINDUCTOR_COMPILE_THREADS": "1"},
}
"""Suites that run on two pytest-xdist workers, with what each worker's environment adds.
JAX's and TensorFlow's compile one small program after another on one core (on 2 cores,
JAX's went from 13.7 to 10.3 minutes and TensorFlow's from 8.2 to 4.9); NumPy's and
PyTorch's run small kernels, each worker on one thread (NumPy's went from 207 to 152 s,
PyTorch's from about 330 to 264 s; with torch's default threads, two workers were slower
than one process). torch.compile's own compile workers would take cores from the other
worker too."""
WORKERS = ["-n", "2", "--dist", "worksteal"]

SLOWEST = "--durations=25"
"""The longest suites name their slowest tests in every log: where CI time goes is read
there, not guessed."""

nox.options.sessions = [
    "lint",
    "typecheck",
    "core-only",
    "tests",
    "integration",
    "build",
]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_external_run = True


def install(session: nox.Session, *args: str) -> None:
    """pip install with the shared constraints (unless `ci` installed this session ahead)."""
    if session.name in _INSTALLED_AHEAD:
        session.log("Installed ahead, while the earlier sessions ran.")
        return
    session.install("-c", CONSTRAINTS, *args)


def editable(*packages: str) -> list[str]:
    out: list[str] = []
    for p in packages:
        out += ["-e", f"packages/{p}"]
    return out


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (with the import-direction bans) and the module size budget."""
    install(session, "ruff")
    session.run(
        "ruff", "check", "packages", "integration_tests", "benchmarks", "tools", "noxfile.py"
    )
    session.run("python", "tools/check_sizes.py")
    session.run("python", "tools/check_imports.py")  # adapters' imports, no import cycles
    # The protocol stays small: composites belong in core (lamina.ops.composites).
    session.run("python", "tools/protocol_members.py", "--max", "206")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy over every package; strict on the seam, every backend checked against it."""
    install(
        session, "mypy", "numpy", "optree", "ml-dtypes", "rich", "scipy", "pytest", "h5py",
        "array-api-strict",
    )  # fmt: skip
    session.run(
        "mypy",
        *(f"packages/{p}/src" for p in PACKAGES if (ROOT / "packages" / p / "src").exists()),
        f"{ARRAY_API_BACKEND}/src",
    )


@nox.session(name="core-only")
def core_only(session: nox.Session) -> None:
    """The null tier with no backend installed: import lightness, graph, dtypes, tree."""
    install(session, *editable("core"), *TEST_DEPS)
    session.run("pytest", "packages/core/tests/null", *session.posargs, env={"LAMINA_BACKEND": ""})


DISTRIBUTED = {
    "jax": [
        "packages/backend-jax/tests/test_distribution_devices.py",
        "packages/backend-jax/tests/test_distribution_checkpoint_processes.py",
        "packages/backend-jax/tests/test_distribution_model_parallel_processes.py",
    ],
    "torch": [
        "packages/backend-torch/tests/test_distribution_torchrun.py",
        "packages/backend-torch/tests/test_distribution_faults.py",
        "packages/backend-torch/tests/test_distribution_model_parallel.py",
    ],
    "tensorflow": ["packages/backend-tensorflow/tests/test_distribution_workers.py"],
}
"""Per backend, the tests that start jobs of several processes or devices on localhost."""
MULTI_PROCESS = "packages/core/tests/distribution/test_multi_process.py"


@nox.session
@nox.parametrize("backend", BACKENDS, ids=BACKENDS)
def tests(session: nox.Session, backend: str) -> None:
    """One backend: the shared core suite, its own tests and saving's, then its jobs.

    The multi-process jobs (the `distributed` session's) run after the suite, in the same
    environment (installing another took about a minute per backend), and only in a full
    run: arguments after ``--`` select within the suite."""
    extra = ["flax"] if backend == "jax" else []  # `layers.FlaxLayer` is tested there
    workers = WORKERS if backend in TWO_WORKERS else []
    if workers:
        extra.append("pytest-xdist>=3")
    install(session, *editable("core", f"backend-{backend}", "saving"), *TEST_DEPS, *extra)
    ignored = [f"--ignore={path}" for path in [MULTI_PROCESS, *DISTRIBUTED.get(backend, [])]]
    session.run(
        "pytest",
        "packages/core/tests",
        f"packages/backend-{backend}/tests",
        "packages/saving/tests",
        *ignored,
        *workers,
        SLOWEST,
        *session.posargs,
        env={"LAMINA_BACKEND": backend, **FAST_COMPILE, **TWO_WORKERS.get(backend, {})},
    )
    if backend in DISTRIBUTED and not session.posargs:
        run_distributed(session, backend)


@nox.session(default=False)
@nox.parametrize("backend", sorted(DISTRIBUTED), ids=sorted(DISTRIBUTED))
def distributed(session: nox.Session, backend: str) -> None:
    """Distribution jobs on localhost: several processes, several devices, a killed worker.

    Bounded by timeouts: two processes (`jax.distributed`, gloo as torchrun starts it, or
    TensorFlow workers from TF_CONFIG) training like one, a killed worker and the resumed
    run, four host devices of one JAX process (data and model parallel) and two logical CPU
    devices of one TensorFlow process (MirroredStrategy)."""
    install(session, *editable("core", f"backend-{backend}", "saving"), *TEST_DEPS)
    run_distributed(session, backend, *session.posargs)


def run_distributed(session: nox.Session, backend: str, *args: str) -> None:
    """The multi-process and multi-device jobs of `backend`, one at a time (no xdist)."""
    session.run(
        "pytest", MULTI_PROCESS, *DISTRIBUTED[backend], *args, env={"LAMINA_BACKEND": backend}
    )


@nox.session(default=False)
def gpu(session: nox.Session) -> None:
    """The suites on CUDA devices, when one is visible; otherwise says so and skips.

    Per backend: the core and backend suites, then the distribution suites (the
    `distributed` session's files) with the GPUs visible, so that torch's jobs join an
    NCCL process group rather than gloo. NCCL takes one GPU per process and the jobs start
    two processes, so with a single GPU the distribution suites are skipped, saying so."""
    if shutil.which("nvidia-smi") is None:
        session.skip("No CUDA device is visible (nvidia-smi not found): nothing to run.")
    listing = session.run("nvidia-smi", "-L", silent=True, external=True) or ""
    gpus = sum(line.startswith("GPU ") for line in str(listing).splitlines())
    for backend in ("jax", "torch", "tensorflow"):
        extra = {"jax": ["jax[cuda12]"], "torch": [], "tensorflow": ["tensorflow[and-cuda]"]}
        packages = editable("core", f"backend-{backend}", "saving")
        install(session, *packages, *TEST_DEPS, *extra[backend])
        suites = [MULTI_PROCESS, *DISTRIBUTED.get(backend, [])]
        env = {"LAMINA_BACKEND": backend}
        ignored = [f"--ignore={path}" for path in suites]
        tests = ["packages/core/tests", f"packages/backend-{backend}/tests"]
        session.run("pytest", *tests, *ignored, "-x", *session.posargs, env=env)
        if gpus < 2:
            need = "the distribution suites need 2 GPUs (NCCL takes one per process)"
            session.log(f"{backend}: {need}; {gpus} visible, skipped.")
            continue
        session.run("pytest", *suites, "-x", *session.posargs, env=env)


@nox.session
def build(session: nox.Session) -> None:
    """Build every wheel and sdist, then install only lamina + lamina-numpy and import it."""
    install(session, "build")
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    for p in PACKAGES:
        session.run("python", "-m", "build", "--outdir", str(dist), f"packages/{p}")
    smoke = session.create_tmp()
    venv = pathlib.Path(smoke) / "smoke-venv"
    session.run("python", "-m", "venv", str(venv))
    py = str(venv / "bin" / "python")
    wheels = [str(w) for w in dist.glob("*.whl") if w.name.startswith(("lamina-", "lamina_numpy-"))]
    session.run(
        py,
        "-m",
        "pip",
        "install",
        "-q",
        "-c",
        CONSTRAINTS,
        "--find-links",
        str(dist),
        *wheels,
        external=True,
    )
    session.run(py, "tools/smoke_installed.py", "numpy", external=True)


@nox.session
def integration(session: nox.Session) -> None:
    """End to end across packages: the docs' code, cross-backend save and load."""
    install(
        session,
        *editable("core", *(f"backend-{b}" for b in BACKENDS), "saving"),
        "-e",
        ARRAY_API_BACKEND,
        *TEST_DEPS,
        "flax",  # the FlaxLayer docstring example
        "matplotlib",  # the lamina.visualization examples
        "pytest-xdist>=3",
    )
    session.run(
        "pytest",
        "integration_tests",
        SLOWEST,
        *session.posargs,
        env={"LAMINA_BACKEND": "jax", **FAST_COMPILE},
    )
    # The docs' code on NumPy too (what trains is skipped there); on the other training
    # backends, the pages and examples that train and those written for that framework.
    session.run("pytest", "integration_tests/test_docs.py", "-q", env={"LAMINA_BACKEND": "numpy"})
    trains = "guide or getting_started or readme or jvp or SKLearn"
    for backend, own in (("torch", "TorchModuleWrapper"), ("tensorflow", "TFSMLayer")):
        session.run(
            "pytest",
            "integration_tests/test_docs.py",
            "-q",
            "-k",
            f"{trains} or {own}",
            env={"LAMINA_BACKEND": backend},
        )
    # The adapter written outside the backend packages (integration_tests/array_api_backend,
    # found through its entry point) passes the shared op and layer suites for inference.
    session.run(
        "pytest", "packages/core/tests/ops", "packages/core/tests/layers", "-q", *WORKERS,
        env={"LAMINA_BACKEND": "array_api", **ONE_THREAD},
    )  # fmt: skip
    # JAX export goes through jax2tf, which needs TensorFlow beside JAX: only this venv has both.
    session.run("pytest", "packages/saving/tests/test_export.py", env={"LAMINA_BACKEND": "jax"})


@nox.session(default=False)
def keras(session: nox.Session) -> None:
    """`.keras` and `.weights.h5` files to and from real Keras 3 (on JAX): Lamina on JAX,
    then the files of every layer family again with Lamina on NumPy."""
    packages = editable("core", "backend-jax", "backend-numpy", "saving")
    install(session, *packages, *TEST_DEPS, "keras>=3.10", "jax", "pytest-xdist>=3")
    tests = "packages/saving/tests/keras3"
    session.run(
        "pytest",
        tests,
        *WORKERS,  # both frameworks compile small programs: 206 to 165 s on 2 cores
        *session.posargs,
        env={"LAMINA_BACKEND": "jax", "KERAS_BACKEND": "jax", **FAST_COMPILE},
    )
    session.run(
        "pytest",
        f"{tests}/test_keras_files.py",
        *session.posargs,
        env={"LAMINA_BACKEND": "numpy", "KERAS_BACKEND": "jax"},
    )
    # The user program that hands `.keras` files to Keras 3 and back (it needs `keras`,
    # which only this venv has; the integration session skips it).
    session.run(
        "pytest",
        "integration_tests/test_programs.py",
        "-k",
        "keras_files_interop",
        *session.posargs,
    )


@nox.session(default=False)
def fuzz(session: nox.Session) -> None:
    """Hostile files against every loading entry point (CI runs a short version in tests).

    `nox -s fuzz -- --cases 10000 --seed 1` for a longer hunt; the crash-safety test of
    saves then runs 20 kills of a 128 MB save and of a sharded save.
    """
    install(session, *editable("core", "backend-numpy", "saving"), *TEST_DEPS)
    env = {"LAMINA_BACKEND": "numpy", "LAMINA_KILL_SAVES": "20", "LAMINA_KILL_SAVE_MB": "128"}
    session.run(
        "python", "tools/fuzz_loading.py", *(session.posargs or ["--cases", "10000"]), env=env
    )
    session.run("pytest", "packages/saving/tests", "-k", "kill", env=env)


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """The user guide and API reference, built with strict warnings."""
    install(session, *editable("core", "saving"), "mkdocs-material", "mkdocstrings[python]")
    # Generated pages first (reference members, Keras compatibility table): never drift.
    session.run("python", "tools/api_pages.py")
    session.run("python", "tools/compatibility_page.py")
    session.run("mkdocs", "build", "--strict", "--site-dir", str(ROOT / "site"))


@nox.session(default=False)
def demo(session: nox.Session) -> None:
    """Train, save, reload and predict on the default backend (see README)."""
    # JAX trains (the default backend when installed); torch is there to reload on.
    install(session, *editable("core", "backend-jax", "backend-torch", "saving"), "scikit-learn")
    session.run("python", "integration_tests/demo.py", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks as JSON lines: Lamina vs the raw backend, as ratios in one run, with Keras 3
    beside them (installed in this session's own venv; the library never imports it)."""
    packages = editable("core", *(f"backend-{b}" for b in BACKENDS), "saving")
    install(session, *packages, "psutil", "optax", "keras>=3.10")
    session.run("python", "benchmarks/run.py", *session.posargs)


INSTALL_AHEAD = [*(f"tests({b})" for b in BACKENDS[1:]), "integration", "keras", "build"]
"""The sessions `ci` installs in a second nox process while the earlier ones run: pip waits
on the disk and the network, and lint, typecheck and the NumPy suite leave room for it."""
_AHEAD: list[tuple[subprocess.Popen[bytes], pathlib.Path]] = []
_INSTALLED_AHEAD: set[str] = set()


@nox.session(python=False, default=False)
def ci(session: nox.Session) -> None:
    """What CI runs: lint, types, the null tier, every suite and job, integration, keras, build.

    The later sessions' environments are installed meanwhile (`INSTALL_AHEAD`); the
    `installed` session waits for them before those sessions run."""
    log = ROOT / ".nox" / "install-ahead.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("wb") as out:
        command = [sys.executable, "-m", "nox", "--install-only", "-s", *INSTALL_AHEAD]
        _AHEAD.append((subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=out), log))
    for name in ["lint", "typecheck", "core-only", "tests(numpy)", "installed", *INSTALL_AHEAD]:
        session.notify(name)


@nox.session(python=False, default=False)
def installed(session: nox.Session) -> None:
    """Waits for the installs `ci` started ahead and shows their log. When they failed,
    each session installs again, and says what went wrong there."""
    if not _AHEAD:
        session.skip("Nothing was installed ahead: `nox -s ci` installs ahead.")
    process, log = _AHEAD.pop()
    code = process.wait()
    session.log(log.read_text(errors="replace"))
    if code == 0:
        _INSTALLED_AHEAD.update(INSTALL_AHEAD)
    else:
        session.warn(f"Installing ahead exited with {code}: each session installs again.")
