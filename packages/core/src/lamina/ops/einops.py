"""`rearrange`: einops-style axis regrouping, composed from reshape and transpose."""

from __future__ import annotations

import math
import re
from typing import Any

from lamina.ops.core.conversion import shape as shape_of
from lamina.ops.numpy.shape import reshape, transpose

__all__ = ["rearrange"]

_TOKEN = re.compile(r"\(|\)|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\S")


def _parse(op: str, side: str, pattern: str) -> list[list[str]]:
    """Groups of axis names: ``"b (h w) c"`` → ``[["b"], ["h", "w"], ["c"]]``."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    for token in _TOKEN.findall(side):
        if token == "(":
            if current is not None:
                raise ValueError(f"`{op}`: nested parentheses in pattern {pattern!r}")
            current = []
        elif token == ")":
            if current is None:
                raise ValueError(f"`{op}`: unbalanced ')' in pattern {pattern!r}")
            groups.append(current)
            current = None
        elif token == "..." or token.isidentifier():
            if current is not None:
                current.append(token)
            else:
                groups.append([token])
        else:
            raise ValueError(
                f"`{op}`: unexpected {token!r} in pattern {pattern!r}; expected axis names, "
                "parentheses or '...'"
            )
    if current is not None:
        raise ValueError(f"`{op}`: unbalanced '(' in pattern {pattern!r}")
    return groups


def rearrange(tensor: Any, pattern: str, **axes_lengths: int) -> Any:
    """Reorder, merge and split axes with an einops pattern such as ``"b (h w) c -> b h w c"``.

    Args:
        tensor: input tensor.
        pattern: ``"<input axes> -> <output axes>"``; parentheses group axes into one dim and
            ``...`` stands for any number of axes.
        **axes_lengths: sizes of axes that cannot be inferred (``h=4``).

    Returns:
        The rearranged tensor.

    Raises:
        ValueError: the pattern is malformed, names differ between the two sides, or the
            sizes do not fit the input.

    Example:
        >>> tuple(lamina.ops.rearrange(np.zeros((2, 6, 3)), "b (h w) c -> b h w c", h=2).shape)
        (2, 2, 3, 3)
    """
    op = "rearrange"
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(
            f"`{op}`: argument `pattern` must be a string with one '->'. Received: "
            f"pattern={pattern!r}"
        )
    left_text, right_text = pattern.split("->")
    left, right = _parse(op, left_text, pattern), _parse(op, right_text, pattern)
    dims = tuple(shape_of(tensor))
    has_ellipsis = any("..." in g for g in left)
    n_ellipsis = len(dims) - (len(left) - 1) if has_ellipsis else 0
    if (has_ellipsis and n_ellipsis < 0) or (not has_ellipsis and len(left) != len(dims)):
        raise ValueError(
            f"`{op}`: pattern {pattern!r} has {len(left)} input groups but the tensor has "
            f"rank {len(dims)} (shape {dims})."
        )
    sizes: dict[str, int | None] = {k: int(v) for k, v in axes_lengths.items()}
    elementary: list[str] = []
    split_shape: list[int | None] = []
    position = 0
    for group in left:
        if group == ["..."]:
            for i in range(n_ellipsis):
                name = f"...{i}"
                elementary.append(name)
                sizes[name] = dims[position]
                split_shape.append(dims[position])
                position += 1
            continue
        dim = dims[position]
        position += 1
        unknown = [n for n in group if sizes.get(n) is None]
        if len(group) == 1 and group[0] not in axes_lengths:
            sizes[group[0]] = dim
        elif len(unknown) > 1:
            raise ValueError(
                f"`{op}`: cannot infer the sizes of {unknown} in group {group} of pattern "
                f"{pattern!r}; pass them as keyword arguments."
            )
        elif unknown:
            known = math.prod(sizes[n] or 1 for n in group if n not in unknown)
            if dim is not None and dim % known:
                raise ValueError(
                    f"`{op}`: dim {dim} is not divisible by {known} for group {group} in "
                    f"pattern {pattern!r}."
                )
            sizes[unknown[0]] = None if dim is None else dim // known
        elif dim is not None and math.prod(sizes[n] or 1 for n in group) != dim:
            raise ValueError(
                f"`{op}`: group {group} has size "
                f"{math.prod(sizes[n] or 1 for n in group)} but the tensor dim is {dim}."
            )
        elementary.extend(group)
        split_shape.extend(sizes[n] for n in group)
    right_names = [n for g in right for n in g]
    expanded_right = []
    for n in right_names:
        expanded_right += [f"...{i}" for i in range(n_ellipsis)] if n == "..." else [n]
    if sorted(expanded_right) != sorted(elementary) or len(set(elementary)) != len(elementary):
        raise ValueError(
            f"`{op}`: both sides of pattern {pattern!r} must name the same axes, once each."
        )
    x = reshape(tensor, tuple(-1 if d is None else d for d in split_shape))
    x = transpose(x, tuple(elementary.index(n) for n in expanded_right))
    if all(len(g) == 1 for g in right):
        return x  # no merged groups: the transpose already has the output shape
    out_shape: list[int | None] = []
    for group in right:
        if group == ["..."]:
            out_shape.extend(sizes[f"...{i}"] for i in range(n_ellipsis))
            continue
        group_sizes = [sizes[n] for n in group]
        out_shape.append(None if None in group_sizes else math.prod(s or 1 for s in group_sizes))
    if out_shape.count(None) > 1:
        raise ValueError(
            f"`{op}`: pattern {pattern!r} merges axes while {out_shape.count(None)} output "
            "dims are unknown; at most one may be unknown."
        )
    return reshape(x, tuple(-1 if d is None else d for d in out_shape))
