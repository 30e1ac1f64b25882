"""Shape inference by running a function on placeholder arrays.

For backends without an abstract tracer (NumPy), `compute_output_spec` runs the function
on zero-filled arrays (`trace_with_arrays`); backends with one hand it the function that
`symbolic_inputs` makes. Unknown (None) dims are filled with two different sizes; an output
dim that changes between the two runs depends on them and becomes None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_FILLS = (83, 89)


def symbolic_inputs(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[list[Any], Callable[..., Any]]:
    """The symbolic tensors among `args` and `kwargs`, and `fn` as a function of arrays for them.

    For backends with an abstract tracer (``jax.eval_shape``, ``tf.function``): describe each
    returned `SymbolicTensor` (shape, dtype) to the tracer and trace the returned function,
    which takes one array per symbolic tensor, in that order, and calls `fn` with them in
    their places (everything else as given) inside a `StatelessScope`.
    """
    from lamina import tree
    from lamina.ops.symbolic import SymbolicTensor
    from lamina.variables.scopes import StatelessScope

    flat = tree.flatten((args, kwargs))
    where = [i for i, x in enumerate(flat) if isinstance(x, SymbolicTensor)]

    def pure(*arrays: Any) -> Any:
        leaves = list(flat)
        for i, array in zip(where, arrays, strict=True):
            leaves[i] = array
        a, k = tree.pack_sequence_as((args, kwargs), leaves)
        with StatelessScope():
            return fn(*a, **k)

    return [flat[i] for i in where], pure


def trace_with_arrays(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    make_array: Callable[[tuple[int, ...], Any], Any],
) -> Any:
    """Run `fn` with every symbolic tensor replaced by ``make_array(shape, dtype)``."""
    from lamina import tree
    from lamina.ops.dtypes import dtype_of, to_numpy_dtype
    from lamina.ops.symbolic import SymbolicTensor
    from lamina.variables.scopes import StatelessScope

    has_unknown = any(
        isinstance(x, SymbolicTensor) and None in x.shape for x in tree.flatten((args, kwargs))
    )

    def run(fill: int) -> Any:
        def concrete(x: Any) -> Any:
            if not isinstance(x, SymbolicTensor):
                return x
            shape = tuple(fill if d is None else d for d in x.shape)
            return make_array(shape, to_numpy_dtype(x.dtype))

        a, k = tree.map_structure(concrete, (args, kwargs))
        with StatelessScope():
            return fn(*a, **k)

    first = run(_FILLS[0])
    second = run(_FILLS[1]) if has_unknown else first

    def to_spec(x: Any, y: Any) -> Any:
        shape = getattr(x, "shape", None)
        if shape is None:
            return x
        dims = tuple(
            a if a == b else None for a, b in zip(tuple(shape), tuple(getattr(y, "shape", ())))
        )
        return SymbolicTensor(dims, dtype_of(x))

    return tree.map_structure(to_spec, first, second)
