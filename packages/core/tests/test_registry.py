"""Backend discovery, selection and in-process switching."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import lamina
from lamina.backend import BACKEND_API, Backend, BackendNotFoundError, Capability, registry


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("LAMINA_BACKEND", "LAMINA_HOME")}
    return subprocess.run(
        [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True
    )


def test_active_backend_matches_env_and_protocol():
    backend = registry.current()
    assert backend.name == os.environ["LAMINA_BACKEND"] == lamina.config.backend()
    assert backend.api_version[0] == BACKEND_API[0]
    for member in ("core", "control_flow", "numpy", "nn", "math", "linalg", "image", "random"):
        assert member in dir(Backend) and getattr(backend, member) is not None
    assert backend.supports(Capability.TRAINING) == (Capability.TRAINING in backend.capabilities)


def test_installed_backends_are_listed_without_importing_them():
    names = registry.installed_backends()
    assert os.environ["LAMINA_BACKEND"] in names


def test_unknown_backend_error_names_installed_and_pip_command():
    with pytest.raises(BackendNotFoundError) as info:
        registry.load_backend("mxnet")
    message = str(info.value)
    assert "'mxnet' is not installed" in message
    assert "pip install lamina-mxnet" in message
    assert os.environ["LAMINA_BACKEND"] in message


def test_import_with_missing_backend_fails_clearly():
    result = _run("import lamina", LAMINA_BACKEND="mxnet")
    assert result.returncode != 0
    assert "pip install lamina-mxnet" in result.stderr


def test_backend_package_may_be_imported_before_lamina():
    name = os.environ["LAMINA_BACKEND"]
    code = (
        f"import lamina_{name}\nimport lamina\n"
        "print(lamina.config.backend(), lamina.layers.Dense(2)(lamina.ops.ones((1, 3))).shape[-1])"
    )
    result = _run(code, LAMINA_BACKEND=name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [name, "2"]


def test_config_file_selects_backend(tmp_path):
    name = os.environ["LAMINA_BACKEND"]
    (tmp_path / "lamina.json").write_text(f'{{"backend": "{name}", "floatx": "float16"}}')
    result = _run(
        "import lamina; print(lamina.config.backend(), lamina.config.floatx())",
        LAMINA_HOME=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [name, "float16"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lamina.json"]


def test_default_is_first_installed_by_preference():
    installed = registry.installed_backends()
    expected = next(b for b in registry.PREFERENCE if b in installed)
    assert registry.default_backend_name() == expected


def test_set_backend_switches_in_process():
    name = os.environ["LAMINA_BACKEND"]
    # Switch to the quickest other backend to import.
    others = [
        b
        for b in ("numpy", "jax", "torch", "tensorflow")
        if b != name and b in registry.installed_backends()
    ]
    target = others[0] if others else name
    code = (
        "import lamina, numpy as np\n"
        f"lamina.config.set_backend({target!r})\n"
        "import lamina\n"
        "x = lamina.ops.add(np.ones(2, 'float32'), 1.0)\n"
        "print(lamina.config.backend(), lamina.backend.current().name, type(x).__module__)\n"
    )
    result = _run(code, LAMINA_BACKEND=name)
    assert result.returncode == 0, result.stderr
    words = result.stdout.split()
    assert words[:2] == [target, target]
