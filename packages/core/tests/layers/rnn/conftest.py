"""Gives the recurrent-layer tests the NumPy loop references of `reference.py` as a fixture,
and a backend-neutral gradient helper."""

from __future__ import annotations

import importlib.util
import pathlib
import types

import pytest

_PATH = pathlib.Path(__file__).with_name("reference.py")


def _load() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("lamina_rnn_test_reference", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_REFERENCE = _load()


@pytest.fixture
def ref() -> types.ModuleType:
    return _REFERENCE
