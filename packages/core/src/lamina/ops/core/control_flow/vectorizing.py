"""Batching a function over leading axes: vectorized_map and NumPy-style vectorize."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from lamina import tree
from lamina.ops.base import Op
from lamina.ops.composites import composite
from lamina.ops.core.control_flow._flat import Flattened, check_callable, specs, tensors
from lamina.ops.core.control_flow.loops import _leading_length, _stacked_specs, _unstacked_specs
from lamina.ops.dispatch import to_tensor
from lamina.ops.dtypes import dtype_of
from lamina.ops.shapes import broadcast_shapes, static_shape
from lamina.ops.symbolic import SymbolicTensor

__all__ = ["vectorize", "vectorized_map"]


class VectorizedMap(Op):
    def __init__(self, function: Callable[[Any], Any], name: str | None = None) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "function", function)
        self.function = function

    def compute_output_spec(self, elements: Any) -> Any:
        n = _leading_length(self.op_name, tree.flatten(elements), None, "elements")
        return _stacked_specs(n, specs(self.function(_unstacked_specs(elements))))

    def call(self, elements: Any) -> Any:
        _leading_length(self.op_name, tree.flatten(elements), None, "elements")
        fn = Flattened(lambda *flat: self.function(tree.pack_sequence_as(elements, list(flat))))
        flat = composite("control_flow", "vectorized_map")(fn, tensors(elements))
        return fn.pack(flat)


def vectorized_map(function: Callable[[Any], Any], elements: Any) -> Any:
    """Apply `function` to each slice of `elements` along the leading axis, in parallel.

    Equivalent to `map`, but the backend may batch the computation (``jax.vmap``,
    ``tf.vectorized_map``, ``torch.vmap``).

    Example:
        >>> lamina.ops.vectorized_map(lambda x: lamina.ops.sum(x), np.ones((3, 4)))  # [4,4,4]
    """
    return VectorizedMap(function)(elements)


_DIMS = r"\w+(?:,\s*\w+)*"
_ARG = rf"\((?:{_DIMS})?\)"
_ARGS = rf"{_ARG}(?:,\s*{_ARG})*"
_SIGNATURE = re.compile(rf"^\s*({_ARGS})\s*->\s*({_ARGS})\s*$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """``"(m,n),(n)->(m)"`` as ``([("m", "n"), ("n",)], [("m",)])``."""
    match = _SIGNATURE.match(signature) if isinstance(signature, str) else None
    if match is None:
        raise ValueError(
            "`vectorize`: argument `signature` must look like '(m,n),(n)->(m)'. "
            f"Received: signature={signature!r}"
        )

    def parse(group: str) -> list[tuple[str, ...]]:
        return [
            tuple(d.strip() for d in arg.split(",") if d.strip())
            for arg in re.findall(r"\(([^)]*)\)", group)
        ]

    return parse(match.group(1)), parse(match.group(2))


def _batch(fn: Callable[..., Any], values: list[Any], loop_ranks: list[int]) -> Any:
    """Call `fn` on every combination of leading (loop) slices, broadcasting as NumPy.

    Peels one loop axis per level with `vectorized_map`; inputs whose dim there is 1 are
    indexed instead of mapped, and inputs with fewer loop axes are simply closed over.
    """
    depth = max(loop_ranks, default=0)
    if depth == 0:
        return fn(*values)
    level = [i for i, r in enumerate(loop_ranks) if r == depth]
    sizes = {static_shape(values[i])[0] for i in level} - {1}
    if len({s for s in sizes if s is not None}) > 1:
        raise ValueError(
            "`vectorize`: the loop dims of the inputs cannot be broadcast together. "
            f"Received shapes {[static_shape(v) for v in values]}."
        )
    mapped = [i for i in level if static_shape(values[i])[0] != 1]

    def inner(slices: tuple[Any, ...]) -> Any:
        vals, ranks = list(values), list(loop_ranks)
        for i in level:
            vals[i] = vals[i][0, ...] if i not in mapped else slices[mapped.index(i)]
            ranks[i] -= 1
        return _batch(fn, vals, ranks)

    if not mapped:
        return tree.map_structure(lambda t: to_tensor(t)[None, ...], inner(()))
    return vectorized_map(inner, tuple(values[i] for i in mapped))


class Vectorize(Op):
    def __init__(
        self,
        pyfunc: Callable[..., Any],
        excluded: Iterable[int | str] | None = None,
        signature: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_callable(self.op_name, "pyfunc", pyfunc)
        self.pyfunc = pyfunc
        self.excluded = frozenset(excluded or ())
        self.signature = signature
        self.core_in: list[tuple[str, ...]] | None = None
        if signature is not None:
            self.core_in, _ = _parse_signature(signature)

    def _split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], Any]:
        """The vectorized inputs, and a function of them that calls `pyfunc`."""
        keys: list[int | str] = [i for i in range(len(args)) if i not in self.excluded]
        keys += [k for k in kwargs if k not in self.excluded]
        values = [args[k] if isinstance(k, int) else kwargs[k] for k in keys]
        if self.core_in is not None and len(self.core_in) != len(values):
            raise ValueError(
                f"`vectorize`: the signature {self.signature!r} expects {len(self.core_in)} "
                f"inputs. Received {len(values)}."
            )

        def call(*vals: Any) -> Any:
            a, k = list(args), dict(kwargs)
            for key, v in zip(keys, vals):
                if isinstance(key, int):
                    a[key] = v
                else:
                    k[key] = v
            return self.pyfunc(*a, **k)

        return values, call

    def _loop_ranks(self, values: list[Any]) -> list[int]:
        ranks = []
        for i, v in enumerate(values):
            core = len(self.core_in[i]) if self.core_in is not None else 0
            ndim = len(static_shape(v))
            if ndim < core:
                raise ValueError(
                    f"`vectorize`: input {i} needs at least {core} dims for the signature "
                    f"{self.signature!r}. Received shape {static_shape(v)}."
                )
            ranks.append(ndim - core)
        return ranks

    def compute_output_spec(self, *args: Any, **kwargs: Any) -> Any:
        values, call = self._split(args, kwargs)
        ranks = self._loop_ranks(values)
        shapes = [static_shape(v) for v in values]
        loop = broadcast_shapes(self.op_name, *(s[:r] for s, r in zip(shapes, ranks)))
        inner = [SymbolicTensor(s[r:], dtype_of(v)) for s, r, v in zip(shapes, ranks, values)]
        out = specs(call(*inner))
        return tree.map_structure(lambda y: SymbolicTensor((*loop, *y.shape), y.dtype), out)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        values, call = self._split(args, kwargs)
        values = [to_tensor(v) for v in values]
        return _batch(call, values, self._loop_ranks(values))


def vectorize(
    pyfunc: Callable[..., Any],
    *,
    excluded: Iterable[int | str] | None = None,
    signature: str | None = None,
) -> Callable[..., Any]:
    """Turn `pyfunc` into a function that broadcasts over its inputs like `np.vectorize`.

    Args:
        pyfunc: the function on single elements (or on core blocks, with `signature`).
        excluded: positions or keyword names of arguments passed through unchanged.
        signature: a generalized-ufunc signature such as ``"(m,n),(n)->(m)"`` naming the
            core dims each input and output keeps.

    Returns:
        The vectorized function.

    Example:
        >>> f = lamina.ops.vectorize(lambda a, b: a + b)
        >>> f(np.ones((2, 3)), np.ones((3,)))  # shape (2, 3)
    """
    op = Vectorize(pyfunc, excluded, signature)

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return op(*args, **kwargs)

    return wrapped
