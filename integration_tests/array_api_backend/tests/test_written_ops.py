"""The ops this backend writes on the standard's functions, against NumPy and SciPy.

The shared suites test them through Lamina; these pin the pieces (einsum's parser, the special
functions over their whole range, the LU loop, the generator) directly, on arrays.
"""

from __future__ import annotations

import array_api_strict as xp
import numpy as np
import pytest
import scipy.linalg
import scipy.special

from lamina_array_api import random
from lamina_array_api._einsum import einsum
from lamina_array_api._special import erf, erfc, erfinv
from lamina_array_api.linalg import lu_factor
from lamina_array_api.numpy.linear import correlate
from lamina_array_api.numpy.reduction import quantile, sorted_unique

RNG = np.random.default_rng(0)


def _np(x: object) -> np.ndarray:
    return np.from_dlpack(x)


@pytest.mark.parametrize(
    "spec, shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)]),
        ("bij,bjk", [(2, 2, 3), (2, 3, 4)]),
        ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),
        ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("i,i->", [(4,), (4,)]),
        ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
        ("abc->cba", [(2, 3, 4)]),
        ("ij->", [(2, 3)]),
    ],
)
def test_einsum_matches_numpy(spec: str, shapes: list[tuple[int, ...]]) -> None:
    arrays = [RNG.normal(size=s) for s in shapes]
    out = einsum(spec, *(xp.asarray(a) for a in arrays))
    np.testing.assert_allclose(_np(out), np.einsum(spec, *arrays), rtol=1e-12, atol=1e-12)


def test_special_functions_match_scipy_over_their_range() -> None:
    x = np.concatenate([np.linspace(-7.0, 7.0, 1401), [0.0, 1e-9, -3e-300]])
    np.testing.assert_allclose(_np(erf(xp.asarray(x))), scipy.special.erf(x), atol=1e-14)
    # erfc keeps its relative precision in the far tail, where 1 - erf would be 0.
    np.testing.assert_allclose(_np(erfc(xp.asarray(x))), scipy.special.erfc(x), rtol=1e-12)
    y = np.concatenate([np.linspace(-0.999999, 0.999999, 1001), [1 - 1e-12, 0.0]])
    np.testing.assert_allclose(_np(erfinv(xp.asarray(y))), scipy.special.erfinv(y), rtol=1e-12)
    edges = _np(erfinv(xp.asarray([1.0, -1.0, 1.5, np.nan])))
    assert edges[0] == np.inf and edges[1] == -np.inf and np.isnan(edges[2:]).all()
    assert _np(erf(xp.asarray([0.5], dtype=xp.float32))).dtype == np.float32


def test_lu_factor_matches_scipy() -> None:
    a = RNG.normal(size=(3, 4, 4))
    lu, piv = lu_factor(xp.asarray(a))
    for i in range(3):
        want_lu, want_piv = scipy.linalg.lu_factor(a[i])
        np.testing.assert_allclose(_np(lu)[i], want_lu, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(_np(piv)[i], want_piv)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("m, n", [(5, 3), (3, 5), (4, 4), (1, 3)])
def test_correlate_matches_numpy(mode: str, m: int, n: int) -> None:
    a, v = RNG.normal(size=m), RNG.normal(size=n)
    out = correlate(xp.asarray(a), xp.asarray(v), mode)
    np.testing.assert_allclose(_np(out), np.correlate(a, v, mode), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_methods_match_numpy(method: str) -> None:
    x = RNG.normal(size=(3, 7))
    q = np.array([0.0, 0.3, 0.5, 1.0])
    out = quantile(xp.asarray(x), xp.asarray(q), (1,), method, False)
    np.testing.assert_allclose(_np(out), np.quantile(x, q, axis=1, method=method), rtol=1e-12)


def test_sorted_unique_along_an_axis_matches_numpy() -> None:
    x = np.array([[1, 2], [0, 5], [1, 2], [0, 4], [0, 5]])
    values, inverse, counts = sorted_unique(xp.asarray(x), 0, None)
    want, want_inverse, want_counts = np.unique(x, axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(_np(values), want)
    np.testing.assert_array_equal(_np(inverse), want_inverse.reshape(-1))
    np.testing.assert_array_equal(_np(counts), want_counts)


def test_generator_is_a_pure_function_of_the_seed() -> None:
    seed = xp.asarray([3, 7], dtype=xp.uint32)
    a = _np(random.normal((2000,), 0.0, 1.0, "float64", seed))
    b = _np(random.normal((2000,), 0.0, 1.0, "float64", seed))
    c = _np(random.normal((2000,), 0.0, 1.0, "float64", xp.asarray([3, 8], dtype=xp.uint32)))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert abs(a.mean()) < 0.1 and abs(a.std() - 1.0) < 0.1
    g = _np(random.gamma((4000,), 0.5, "float64", seed))
    assert abs(g.mean() - 0.5) < 0.05 and abs(g.var() - 0.5) < 0.1
    t = _np(random.truncated_normal((2000,), 0.0, 1.0, "float64", seed))
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.88) < 0.05
