"""Helpers for tests, shared by every package's test suite (imports pytest lazily)."""

from lamina.testing.layer_test import check_layer as check_layer
from lamina.testing.numerics import TOLERANCES as TOLERANCES
from lamina.testing.numerics import assert_allclose as assert_allclose
from lamina.testing.numerics import tolerance as tolerance
from lamina.testing.training import assert_trains_alike as assert_trains_alike

__all__ = ["TOLERANCES", "assert_allclose", "assert_trains_alike", "check_layer", "tolerance"]
