"""`einsum` on the standard's `matmul`, `permute_dims`, `sum` and `reshape` (it has none).

Each operand first loses its repeated subscripts (diagonals) and the subscripts no one else
needs (summed); operands are then contracted pairwise, left to right, as one batched matmul
each, and the result is permuted into the requested order.
"""

from __future__ import annotations

import math
import string

from lamina.backend.kit import Tensor
from lamina_array_api._xp import index_grid, xp

__all__ = ["einsum"]


def _parse(subscripts: str, operands: tuple[Tensor, ...]) -> tuple[list[str], str]:
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError(
            f"einsum: {len(terms)} operand subscripts for {len(operands)} operands. "
            f"Received: subscripts={subscripts!r}"
        )
    used = set(spec)
    spare = [c for c in string.ascii_letters if c not in used]
    widest = max((x.ndim - len(t.replace("...", "")) for t, x in zip(terms, operands)), default=0)
    ellipsis = "".join(spare[:widest])
    expanded = []
    for term, x in zip(terms, operands):
        if "..." in term:
            n = x.ndim - len(term.replace("...", ""))
            term = term.replace("...", ellipsis[widest - n :])
        expanded.append(term)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(expanded)
        single = sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ellipsis)
        output = ellipsis + "".join(single)
    return expanded, output


def _take_diagonal(x: Tensor, term: str) -> tuple[Tensor, str]:
    """Collapse each repeated subscript of one operand onto its diagonal."""
    while True:
        repeated = next((c for c in term if term.count(c) > 1), None)
        if repeated is None:
            return x, term
        i = term.index(repeated)
        j = term.index(repeated, i + 1)
        rest = [a for a in range(x.ndim) if a not in (i, j)]
        y = xp.permute_dims(x, (*rest, i, j))
        n = y.shape[-1]
        flat = xp.reshape(y, (*y.shape[:-2], n * n))
        steps = index_grid(n)
        x = xp.take(flat, steps * n + steps, axis=-1)
        term = "".join(term[a] for a in rest) + repeated


def _sum_out(x: Tensor, term: str, keep: set[str]) -> tuple[Tensor, str]:
    axes = tuple(a for a, c in enumerate(term) if c not in keep)
    if not axes:
        return x, term
    return xp.sum(x, axis=axes, dtype=x.dtype), "".join(c for c in term if c in keep)


def _contract(a: Tensor, ta: str, b: Tensor, tb: str, keep: set[str]) -> tuple[Tensor, str]:
    batch = [c for c in ta if c in tb and c in keep]
    inner = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    size = {}
    for c in batch + inner + left + right:
        na = a.shape[ta.index(c)] if c in ta else 1
        size[c] = max(na, b.shape[tb.index(c)] if c in tb else 1)
    ap = xp.permute_dims(a, tuple(ta.index(c) for c in batch + left + inner))
    bp = xp.permute_dims(b, tuple(tb.index(c) for c in batch + inner + right))
    ap = xp.broadcast_to(ap, tuple(size[c] for c in batch + left + inner))
    bp = xp.broadcast_to(bp, tuple(size[c] for c in batch + inner + right))
    nb = math.prod(size[c] for c in batch)
    nl = math.prod(size[c] for c in left)
    ni = math.prod(size[c] for c in inner)
    nr = math.prod(size[c] for c in right)
    out = xp.reshape(ap, (nb, nl, ni)) @ xp.reshape(bp, (nb, ni, nr))
    term = "".join(batch + left + right)
    return xp.reshape(out, tuple(size[c] for c in term)), term


def einsum(subscripts: str, *operands: Tensor) -> Tensor:
    terms, output = _parse(subscripts, operands)
    arrays = list(operands)
    for i, (x, term) in enumerate(zip(arrays, terms)):
        x, term = _take_diagonal(x, term)
        others = set(output).union(*(t for j, t in enumerate(terms) if j != i))
        arrays[i], terms[i] = _sum_out(x, term, others)
    acc, term = arrays[0], terms[0]
    for k in range(1, len(arrays)):
        keep = set(output).union(*terms[k + 1 :])
        acc, term = _contract(acc, term, arrays[k], terms[k], keep)
    acc, term = _sum_out(acc, term, set(output))
    return xp.permute_dims(acc, tuple(term.index(c) for c in output))
