"""SavedModel export on jax (`ExportOps`): endpoints converted with jax2tf.

A JAX model has no graph TensorFlow can save, so `lamina.export` makes each endpoint a pure
function ``f(variable_values, *inputs)`` and this module converts it with
`jax.experimental.jax2tf`; the archive holds the variable values as `tf.Variable`s and feeds
them in. The artifact is for inference only (``with_gradient=False`` by default).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lamina.backend.kit import tree


def traces_natively() -> bool:
    return False


def polymorphic_shapes(signature: list[Any]) -> list[Any]:
    """jax2tf shape strings for each positional input; None where every dim is known.

    Free leading dims share the symbol ``batch`` (inputs of one batch may then be combined);
    other free dims get a symbol each.
    """
    counter = [0]

    def one(spec: Any) -> str | None:
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
    options: dict[str, Any] | None,
) -> Callable[..., Any]:
    """`pure_fn(*state_args, *inputs)` converted by `jax2tf.convert`.

    `options` are extra `jax2tf.convert` arguments (``jax2tf_kwargs``); a
    ``polymorphic_shapes`` given there replaces the one made from `signature`.
    """
    import jax
    from jax.experimental import jax2tf

    kwargs: dict[str, Any] = {
        "with_gradient": False,
        "native_serialization_platforms": default_platforms(),
    }
    kwargs.update(options or {})
    if "polymorphic_shapes" in kwargs:
        poly = list(kwargs.pop("polymorphic_shapes"))
    else:
        poly = polymorphic_shapes(signature)
    converted: Callable[..., Any] = jax2tf.convert(
        pure_fn, polymorphic_shapes=[None] * n_state_args + poly, **kwargs
    )

    def run(*args: Any) -> Any:
        try:
            return converted(*args)
        except jax.errors.InconclusiveDimensionOperation as error:
            reason = str(error).splitlines()[0]
            raise ValueError(
                "The function could not be converted with jax2tf for inputs with free "
                f"dims: an operation needs a concrete size ({reason}). Pass an "
                "`input_signature` whose shapes are fully known, e.g. "
                "[lamina.InputSpec(shape=(batch_size, ...), dtype=...)]."
            ) from error

    return run
