"""Helpers for tests, shared by every package's test suite (imports pytest lazily)."""

from lamina.testing.layer_test import check_layer as check_layer
from lamina.testing.numerics import TOLERANCES as TOLERANCES
from lamina.testing.numerics import assert_allclose as assert_allclose
from lamina.testing.numerics import tolerance as tolerance

__all__ = ["TOLERANCES", "assert_allclose", "check_layer", "tolerance"]
