"""JAX endpoints for a SavedModel: pure functions of variable values, through jax2tf.

A JAX model has no graph TensorFlow can save, so each endpoint becomes a pure function
``f(variable_values, *inputs)``, converted with `jax.experimental.jax2tf`; the archive
holds the variable values as `tf.Variable`s and feeds them in. The artifact is for
inference only (`with_gradient=False` by default).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina import tree
from lamina_saving.export.specs import ExportSpec


def polymorphic_shapes(signature: list[Any]) -> list[Any]:
    """jax2tf shape strings for each positional input; None where every dim is known.

    Free leading dims share the symbol ``batch`` (inputs of one batch may then be combined);
    other free dims get a symbol each.
    """
    counter = [0]

    def one(spec: ExportSpec) -> str | None:
        if all(d is not None for d in spec.shape):
            return None
        dims = []
        for axis, d in enumerate(spec.shape):
            if d is not None:
                dims.append(str(d))
            elif axis == 0:
                dims.append("batch")
            else:
                counter[0] += 1
                dims.append(f"d{counter[0]}")
        inner = ", ".join(dims) + ("," if len(dims) == 1 else "")
        return f"({inner})"

    return [tree.map_structure(one, arg) for arg in signature]


def default_platforms() -> tuple[str, ...]:
    """The platforms the artifact runs on: the current JAX platform, and always the CPU."""
    import jax

    device = jax.devices()[0]
    platform = device.platform
    if platform == "gpu":
        version = str(getattr(device.client, "platform_version", "")).lower()
        platform = "rocm" if "rocm" in version else "cuda"
    return ("cpu",) if platform == "cpu" else (platform, "cpu")


def convert(
    pure_fn: Callable[..., Any],
    n_state_args: int,
    signature: list[Any],
    jax2tf_kwargs: dict[str, Any] | None,
) -> Callable[..., Any]:
    """`pure_fn(*state_args, *inputs)` as a TensorFlow-callable function.

    Args:
        pure_fn: a JAX-traceable function of `n_state_args` lists of variable values and
            then the endpoint's inputs.
        n_state_args: how many leading arguments carry variable values (any shape).
        signature: the inputs' `ExportSpec` structures, one per positional input.
        jax2tf_kwargs: extra arguments for `jax2tf.convert`; ``polymorphic_shapes`` given
            here replaces the one made from `signature`.

    Returns:
        The converted function (it takes TF tensors and returns TF tensors).
    """
    from jax.experimental import jax2tf

    kwargs: dict[str, Any] = {
        "with_gradient": False,
        "native_serialization_platforms": default_platforms(),
    }
    kwargs.update(jax2tf_kwargs or {})
    if "polymorphic_shapes" in kwargs:
        poly = list(kwargs.pop("polymorphic_shapes"))
    else:
        poly = polymorphic_shapes(signature)
    result: Callable[..., Any] = jax2tf.convert(
        pure_fn, polymorphic_shapes=[None] * n_state_args + poly, **kwargs
    )
    return result
