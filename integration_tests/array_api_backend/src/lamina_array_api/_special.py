"""erf, erfc and erfinv on the standard's elementary functions (it has no special functions).

All three compute in float64 and round to the input's dtype:

* erf by the series ``2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (2n+1)!!`` (positive terms, so
  no cancellation), which is 1 to float64 precision beyond |x| = 6;
* erfc as ``1 - erf`` below 2 and by its continued fraction above, so that tails keep their
  relative precision;
* erfinv from Winitzki's closed-form estimate, refined by Newton steps on erf (or on erfc
  near +-1).
"""

from __future__ import annotations

import math

from lamina.backend.kit import Tensor
from lamina_array_api._xp import quiet, xp

__all__ = ["erf", "erfc", "erfinv"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf64(x: Tensor) -> Tensor:
    a = xp.minimum(xp.abs(x), xp.asarray(6.0, dtype=xp.float64))
    a2 = a * a
    term = a
    total = a
    for n in range(1, 140):
        term = term * 2.0 * a2 / float(2 * n + 1)
        total = total + term
    value = xp.minimum(_TWO_OVER_SQRT_PI * xp.exp(-a2) * total, xp.asarray(1.0, dtype=xp.float64))
    return xp.sign(x) * value


def _erfc_tail(a: Tensor) -> Tensor:
    """erfc for a >= 2 by the continued fraction ``x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))``."""
    t = a
    for k in range(120, 0, -1):
        t = a + (k / 2.0) / t
    return xp.exp(-a * a) / math.sqrt(math.pi) / t


def _erfc64(x: Tensor) -> Tensor:
    a = xp.abs(x)
    big = xp.maximum(a, xp.asarray(2.0, dtype=xp.float64))
    positive = xp.where(a < 2.0, 1.0 - _erf64(a), _erfc_tail(big))
    return xp.where(x < 0, 2.0 - positive, positive)


@quiet
def erf(x: Tensor) -> Tensor:
    wide = xp.astype(x, xp.float64)
    return xp.astype(xp.where(xp.isnan(wide), wide, _erf64(wide)), x.dtype)


@quiet
def erfc(x: Tensor) -> Tensor:
    wide = xp.astype(x, xp.float64)
    return xp.astype(xp.where(xp.isnan(wide), wide, _erfc64(wide)), x.dtype)


@quiet
def erfinv(x: Tensor) -> Tensor:
    y = xp.astype(x, xp.float64)
    a = xp.abs(y)
    inside = a < 1.0
    ya = xp.where(inside, a, xp.asarray(0.5, dtype=xp.float64))
    # Winitzki's estimate (relative error about 2e-3)...
    k = 0.147
    log_term = xp.log((1.0 - ya) * (1.0 + ya))
    first = 2.0 / (math.pi * k) + log_term / 2.0
    guess = xp.sqrt(xp.sqrt(first * first - log_term / k) - first)
    tail = 1.0 - ya  # exact for float32 inputs
    # ...then Newton's method, on erfc where erf would lose the digits near 1.
    for _ in range(4):
        slope = _TWO_OVER_SQRT_PI * xp.exp(-guess * guess)
        near_one = ya > 0.5
        residual = xp.where(near_one, tail - _erfc64(guess), _erf64(guess) - ya)
        guess = guess - residual / slope
    out = xp.sign(y) * guess
    out = xp.where(a == 1.0, xp.sign(y) * math.inf, out)
    out = xp.where((a > 1.0) | xp.isnan(y), xp.asarray(math.nan, dtype=xp.float64), out)
    return xp.astype(out, x.dtype)
