"""Model configs in Keras 3's schema, to and from Lamina's.

The two schemas share their shape (``module``, ``class_name``, ``config``,
``registered_name``, ``build_config``, ``compile_config``); they differ in module names
(``keras.layers`` or ``keras.src.layers.core.dense`` against ``lamina.layers``), in the
marker of a functional graph's tensors (``__keras_tensor__`` with ``keras_history``), and
in a few arguments one side has and the other does not. Translation is pure data: a
module named in a file is mapped onto one of Lamina's namespaces by name, never imported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Keras' namespaces that hold classes a model config names, by their path under `keras`;
# the longest one that prefixes a file's module wins ("optimizers.schedules" before
# "optimizers"). Anything else under `keras.` maps onto Lamina's top-level namespace.
NAMESPACES = (
    "layers",
    "models",
    "losses",
    "metrics",
    "optimizers.schedules",
    "optimizers",
    "initializers",
    "regularizers",
    "constraints",
    "activations",
    "dtype_policies",
    "ops",
)

# Where Keras 3 itself writes a built-in class that its public namespaces do not export.
_KERAS_MODULE_OF = {
    "Functional": "keras.src.models.functional",
    "Sequential": "keras",
    # Keras 3 exports this class only as `GroupQueryAttention`: name its own module.
    "GroupedQueryAttention": "keras.src.layers.attention.grouped_query_attention",
}
_KERAS_REGISTERED = {"Functional": "Functional"}

_TENSOR = ("__lamina_tensor__", "history")
_KERAS_TENSOR = ("__keras_tensor__", "keras_history")


def _always(value: Any) -> bool:
    return True


# Arguments Keras 3.15 writes that Lamina's classes do not take, each with the test for
# the values that mean "not used" (which are dropped). Any other value is refused: the
# model would compute something else without it.
KERAS_ONLY: dict[str, Any] = {
    "quantization_config": lambda v: v is None,
    "ragged": lambda v: v is False,
    "input_axes": lambda v: v is None,
    "output_axes": lambda v: v is None,
    "renorm": lambda v: v is False,
    "renorm_clipping": _always,  # only read when `renorm` is True
    "renorm_momentum": _always,
}

# Arguments Lamina writes that Keras 3.15 leaves out of these configs (its constructors
# take LoRA's but not a dropout layer's `trainable`), with the values to leave out.
LAMINA_ONLY: dict[str, Any] = {
    "lora_rank": lambda v: v is None,
    "lora_alpha": lambda v: v is None,
}
LAMINA_ONLY_BY_CLASS: dict[str, dict[str, Any]] = {
    name: {"trainable": _always}  # no weights: the flag means nothing
    for name in ("SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D")
}

# Ops (nodes of a functional graph that calls ops directly) whose arguments Keras 3 names
# differently: Keras name -> Lamina name.
_EDGES = ("top", "left", "bottom", "right")
KERAS_OP_ARGS: dict[str, dict[str, str]] = {
    "CropImages": {
        **{f"{e}_cropping": e for e in _EDGES}, "target_height": "height",
        "target_width": "width",
    },
    "PadImages": {
        **{f"{e}_padding": e for e in _EDGES}, "target_height": "height",
        "target_width": "width",
    },
}
# Op arguments Keras 3 takes when the op is made and Lamina when it is called: moved to
# the end of the call's arguments, in this order.
KERAS_OP_CALL_ARGS: dict[str, tuple[str, ...]] = {"Clip": ("x_min", "x_max")}
# The other way: Lamina's indexing op keeps its key, Keras 3's takes it with the tensor.
LAMINA_OP_CALL_ARGS: dict[str, tuple[str, ...]] = {"GetItem": ("key",)}
# Arguments Lamina's op keeps that Keras' does not take (fixed by the op, or unset).
LAMINA_ONLY_OP_ARGS: dict[str, dict[str, Any]] = {
    **{name: {"initial": lambda v: v is None} for name in (
        "Amax", "Amin", "Nanmax", "Nanmin", "Ptp")},
    **{name: {"axis": _always} for name in (
        "Dsplit", "Hsplit", "Vsplit", "Dstack", "Hstack", "Vstack")},
}
# Where Keras 3 keeps an op that Lamina files under another sub-namespace.
_KERAS_OP_MODULE = {"Slogdet": "keras.src.ops.numpy"}


def _lamina_module(module: str) -> str:
    """``keras.layers`` / ``keras.src.layers.core.dense`` -> ``lamina.layers``."""
    parts = module.split(".")[1:]
    if parts[:1] == ["src"]:
        parts = parts[1:]
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in NAMESPACES:
            return f"lamina.{candidate}"
    return "lamina"


def _is_keras_module(module: Any) -> bool:
    return isinstance(module, str) and (module == "keras" or module.startswith("keras."))


def _is_lamina_module(module: Any) -> bool:
    return isinstance(module, str) and (module == "lamina" or module.startswith("lamina."))


def _drop(
    config: dict[str, Any], unused: dict[str, Any], class_name: str, refuse: bool = True
) -> dict[str, Any]:
    """`config` without the `unused` arguments at their neutral values; another value
    is refused (`refuse`, for what Lamina cannot do) or kept."""
    out = {}
    for key, value in config.items():
        if key in unused and unused[key](value):
            continue
        if key in unused and refuse:
            raise ValueError(
                f"{class_name} in this file sets `{key}={value!r}`, which Lamina's "
                f"{class_name} does not support; loading it would change what it computes."
            )
        out[key] = value
    return out


def _is_keras_op(entry: Any) -> bool:
    module = entry.get("module") if isinstance(entry, dict) else None
    return isinstance(module, str) and module.startswith(("keras.src.ops.", "keras.ops"))


def _sources(structure: Any, mask_kwarg: bool = False) -> Iterator[tuple[str, bool]]:
    """``(layer name, as a mask)`` for every tensor a node's args or kwargs refer to."""
    if isinstance(structure, list):
        for item in structure:
            yield from _sources(item, mask_kwarg)
    elif isinstance(structure, dict):
        if structure.get("class_name") == _KERAS_TENSOR[0]:
            history = (structure.get("config") or {}).get(_KERAS_TENSOR[1])
            if isinstance(history, list) and history and isinstance(history[0], str):
                yield history[0], mask_kwarg
            return
        for key, value in structure.items():
            yield from _sources(value, mask_kwarg or key == "mask")


def _endpoints(structure: Any) -> Iterator[str]:
    """The layer names in a graph's ``output_layers`` (``[name, node, index]`` entries)."""
    if isinstance(structure, list) and len(structure) == 3 and isinstance(structure[0], str):
        yield structure[0]
    elif isinstance(structure, (list, dict)):
        for item in structure.values() if isinstance(structure, dict) else structure:
            yield from _endpoints(item)


def _without_mask_ops(graph: dict[str, Any]) -> dict[str, Any]:
    """A Keras functional graph without the ops Keras records to compute masks.

    Keras 3 records `compute_mask`'s ops (``keras.src.ops.numpy.NotEqual`` after an
    ``Embedding(mask_zero=True)``) as graph nodes and passes their result as ``mask=``;
    Lamina computes and passes the same masks itself. Ops the model itself calls stay.
    """
    layers = graph.get("layers")
    if not isinstance(layers, list):
        return graph
    ops = {e.get("name") for e in layers if _is_keras_op(e)}
    if not ops:
        return graph
    uses: dict[str, set[tuple[str, bool]]] = {name: set() for name in ops}
    for entry in layers:
        for source, as_mask in _sources(entry.get("inbound_nodes", [])):
            if source in uses:
                uses[source].add((entry.get("name"), as_mask))
    for source in _endpoints(graph.get("output_layers")):
        if source in uses:
            uses[source].add(("", False))
    droppable = set(ops)
    changed = True
    while changed:  # an op stays droppable while it only feeds masks or droppable ops
        changed = False
        for name in list(droppable):
            if any(not as_mask and user not in droppable for user, as_mask in uses[name]):
                droppable.discard(name)
                changed = True
    kept = [e for e in layers if e.get("name") not in droppable]
    return {**graph, "layers": [_drop_masks(e, droppable) for e in kept]}


def _drop_masks(entry: dict[str, Any], droppable: set[Any]) -> dict[str, Any]:
    nodes = []
    for node in entry.get("inbound_nodes", []):
        kwargs = node.get("kwargs") if isinstance(node, dict) else None
        mask = kwargs.get("mask") if isinstance(kwargs, dict) else None
        if isinstance(kwargs, dict) and any(s in droppable for s, _ in _sources(mask)):
            node = {**node, "kwargs": {k: v for k, v in kwargs.items() if k != "mask"}}
        nodes.append(node)
    return {**entry, "inbound_nodes": nodes} if "inbound_nodes" in entry else entry


def from_keras(config: Any) -> Any:
    """A config written by Keras 3, rewritten in Lamina's schema (idempotent on Lamina's).

    Raises:
        ValueError: the config sets a Keras-only argument Lamina cannot honour (e.g.
            ``renorm=True`` on `BatchNormalization`).
    """
    if isinstance(config, list):
        return [from_keras(c) for c in config]
    if not isinstance(config, dict):
        return config
    class_name = config.get("class_name")
    if class_name == _KERAS_TENSOR[0] and isinstance(config.get("config"), dict):
        inner = dict(config["config"])
        inner[_TENSOR[1]] = inner.pop(_KERAS_TENSOR[1], inner.get(_TENSOR[1]))
        return {"class_name": _TENSOR[0], "config": from_keras(inner)}
    if not isinstance(class_name, str) or "config" not in config:
        return {k: from_keras(v) for k, v in config.items() if k != "shared_object_id"}
    # `shared_object_id` is Keras' bookkeeping of objects it serialized once.
    out = {k: from_keras(v) for k, v in config.items() if k not in ("config", "shared_object_id")}
    inner = config["config"]
    if isinstance(inner, dict):
        inner = _without_mask_ops(_drop(inner, KERAS_ONLY, class_name))
    out["config"] = from_keras(inner)
    if _is_keras_module(config.get("module")):
        out["module"] = _lamina_module(config["module"])
        if out.get("registered_name") is None:
            out["registered_name"] = class_name
        if _is_keras_op(config):
            parts = config["module"].split(".")
            out["module"] = ".".join(["lamina", *parts[parts.index("ops"):][:2]])
            out = _op_from_keras(out, class_name)
    return out


def _op_from_keras(entry: dict[str, Any], class_name: str) -> dict[str, Any]:
    """An op node with Lamina's argument names, Keras' made-time arguments moved to the call."""
    inner = entry.get("config")
    if not isinstance(inner, dict):
        return entry
    renames = KERAS_OP_ARGS.get(class_name, {})
    inner = {renames.get(k, k): v for k, v in inner.items()}
    entry = _move_to_calls(entry, inner, KERAS_OP_CALL_ARGS.get(class_name, ()))
    return _move_to_config(entry, inner, class_name, LAMINA_OP_CALL_ARGS.get(class_name, ()))


def _move_to_calls(entry: dict[str, Any], inner: dict[str, Any], names: Any) -> dict[str, Any]:
    """`entry` with the op arguments `names` taken out of `inner` and passed to each call."""
    extra = [inner.pop(name, None) for name in names]
    nodes = entry.get("inbound_nodes")
    if not names or not isinstance(nodes, list):
        return entry
    nodes = [{**n, "args": [*n.get("args", []), *extra]} if isinstance(n, dict) else n
             for n in nodes]  # fmt: skip
    return {**entry, "inbound_nodes": nodes}


def _move_to_config(
    entry: dict[str, Any], inner: dict[str, Any], class_name: str, names: Any
) -> dict[str, Any]:
    """`entry` with each call's last arguments taken out and kept in `inner` as `names`."""
    if not names or not entry.get("inbound_nodes"):
        return {**entry, "config": inner}
    entry, values = _split_call_args(entry, class_name, len(names))
    inner.update(zip(names, values, strict=True))
    return {**entry, "config": inner}


def _split_call_args(
    entry: dict[str, Any], class_name: str, count: int
) -> tuple[dict[str, Any], list[Any]]:
    """The node's calls without their last `count` arguments, and those arguments (which
    every call must pass alike, as numbers, not tensors: they become the op's own).

    Raises:
        ValueError: a call passes a tensor there, too few arguments, or other values.
    """
    kept, seen = [], []
    for node in entry.get("inbound_nodes", []):
        args = list(node.get("args", [])) if isinstance(node, dict) else []
        values = args[len(args) - count:]
        if len(args) <= count or any(_refers_to_tensor(v) for v in values):
            raise ValueError(
                f"The {class_name} op here is called with {count} argument(s) that must be "
                f"numbers, not tensors. Received call arguments: {str(args)[:200]}"
            )
        seen.append(values)
        kept.append({**node, "args": args[: len(args) - count]})
    if any(v != seen[0] for v in seen):
        raise ValueError(
            f"The {class_name} op here is called with different fixed arguments per call: "
            f"{str(seen)[:200]}; one op keeps one set."
        )
    return {**entry, "inbound_nodes": kept}, seen[0]


def _refers_to_tensor(structure: Any) -> bool:
    return any(True for _ in _sources(structure))


def _op_to_keras(entry: dict[str, Any], class_name: str) -> dict[str, Any]:
    """`_op_from_keras` the other way.

    Raises:
        ValueError: a call passes a tensor where Keras' op takes a made-time argument.
    """
    inner = entry.get("config")
    if not isinstance(inner, dict):
        return entry
    inner = _drop(inner, LAMINA_ONLY_OP_ARGS.get(class_name, {}), class_name, refuse=False)
    renames = {v: k for k, v in KERAS_OP_ARGS.get(class_name, {}).items()}
    inner = {renames.get(k, k): v for k, v in inner.items()}
    entry = _move_to_calls(entry, inner, LAMINA_OP_CALL_ARGS.get(class_name, ()))
    return _move_to_config(entry, inner, class_name, KERAS_OP_CALL_ARGS.get(class_name, ()))


def to_keras(config: Any) -> Any:
    """A config made by `serialize_lamina_object`, rewritten in Keras 3's schema."""
    if isinstance(config, list):
        return [to_keras(c) for c in config]
    if not isinstance(config, dict):
        return config
    class_name = config.get("class_name")
    inner = config.get("config")
    if class_name == "__tuple__" and isinstance(inner, dict):
        return [to_keras(v) for v in inner.get("value", [])]  # Keras writes tuples as lists
    if class_name == _TENSOR[0] and isinstance(inner, dict):
        inner = dict(inner)
        inner[_KERAS_TENSOR[1]] = inner.pop(_TENSOR[1], None)
        return {"class_name": _KERAS_TENSOR[0], "config": to_keras(inner)}
    if not isinstance(class_name, str) or "config" not in config:
        return {k: to_keras(v) for k, v in config.items()}
    out = {k: to_keras(v) for k, v in config.items() if k != "config"}
    if isinstance(inner, dict) and _is_lamina_module(config.get("module")):
        unused = {**LAMINA_ONLY, **LAMINA_ONLY_BY_CLASS.get(class_name, {})}
        inner = _drop(inner, unused, class_name, refuse=False)
    out["config"] = to_keras(inner)
    module = config.get("module")
    if _is_lamina_module(module):
        assert isinstance(module, str)
        default = "keras" if module in ("lamina", "lamina.dtype_policies") else "keras" + module[6:]
        out["module"] = _KERAS_MODULE_OF.get(class_name, default)
        if out.get("registered_name") in (class_name, None):
            # Keras refuses a registered name on its own built-ins, but for Functional.
            out["registered_name"] = _KERAS_REGISTERED.get(class_name)
        if module.startswith("lamina.ops."):
            out["module"] = _KERAS_OP_MODULE.get(class_name, "keras.src" + module[6:])
            out["registered_name"] = class_name  # as Keras 3 writes its ops
            out = _op_to_keras(out, class_name)
    return out
