"""Where Keras 3 puts each object's weights in a file, computed on a Lamina model.

Keras 3 keys an object's variables by the path its saving walk takes to reach it: a
functional or Sequential model's ``layers`` first, each named after its class in snake
case and numbered on repeats (``layers/dense``, ``layers/dense_1``); then the object's
attributes in sorted order, private ones last (``block/items/dense``, ``optimizer``); a
subclassed model's ``layers`` property among them. An object reached twice keeps its
first path. `keras_objects` walks a Lamina model the same way, so Lamina reads files
Keras wrote and writes files Keras reads, both keyed identically.

Variables inside one object are listed in the same order by both (trainable, then
non-trainable), with two exceptions handled here: Keras' `Normalization` keeps a third,
unused ``count`` variable, and Keras orders most optimizers' slots variable by variable
(``k_momentum, k_velocity, b_momentum, ...``) where Lamina orders them slot by slot.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from lamina.layers import Layer, Normalization
from lamina.metrics import Metric
from lamina.models import Functional, Model, Sequential
from lamina.optimizers import Optimizer

# Lamina's bookkeeping attributes that hold layers Keras reaches some other way (or
# never): a model's flattened layer cache, a layer's constructor arguments, a
# Functional's operations, a Sequential's stack and its graph. Keras skips its own
# equivalents the same way.
_INTERNAL = frozenset({"_flat_layers", "_tracker", "_deferred_restore", "_auto_config",
                       "operations", "_sequence", "_functional"})

# Per optimizer class: Keras 3.15's slot groups, each created variable by variable
# (``[("momentum", "velocity")]`` gives k_momentum, k_velocity, b_momentum, ...). Lamina
# creates the same slots one whole group after another, in the same slot order.
KERAS_SLOT_GROUPS: dict[str, list[tuple[str, ...]]] = {
    "Adam": [("momentum", "velocity"), ("velocity_hat",)],
    "AdamW": [("momentum", "velocity"), ("velocity_hat",)],
    "Nadam": [("momentum", "velocity")],
    "Adamax": [("momentum", "norm")],
    "Adadelta": [("accumulated_grad", "accumulated_delta_var")],
    "Ftrl": [("accumulator", "linear")],
    "Lamb": [("momentum", "velocity")],
}
# Variables every optimizer creates before any slot, in this order, on both sides.
_LEADING = ("iteration", "learning_rate")


def snake_case(name: str) -> str:
    """A class name as Keras names a saved object after it: ``Conv2DTranspose`` ->
    ``conv2d_transpose``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)  # a capitalised word starts a part
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()  # so does lower-to-upper


def _is_saveable(value: Any) -> bool:
    return isinstance(value, (Layer, Optimizer, Metric))


def _children(obj: Any) -> Iterator[tuple[str, Any]]:
    """The attributes Keras' walk visits on `obj`, in its order."""
    if isinstance(obj, Sequential):
        yield "layers", obj.layers
    elif isinstance(obj, Functional):  # Keras lists a functional model's inputs among them
        inputs = [t.history.operation for t in obj.inputs if t.history is not None]
        yield "layers", [x for x in inputs if x not in obj.layers] + obj.layers
    if not isinstance(obj, Layer):
        return  # optimizers and metrics hold no objects with weights of their own
    found: dict[str, Any] = {}
    for attr, value in vars(obj).items():
        if attr.startswith("__") or attr in _INTERNAL:
            continue
        if _is_saveable(value) or isinstance(value, (list, tuple, dict)):
            found[attr] = value
    if isinstance(obj, Model) and not isinstance(obj, (Functional, Sequential)):
        found["layers"] = obj.layers  # a property Keras' walk reads like an attribute
    for attr in sorted(found, key=lambda a: f"~{a}" if a.startswith("_") else a):
        yield attr, found[attr]


def _join(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def keras_objects(model: Any) -> list[tuple[str, Any]]:
    """``(Keras path, object)`` for `model` (path ``""``), its layers and its optimizer."""
    out: list[tuple[str, Any]] = []
    seen: set[int] = set()

    def visit(obj: Any, path: str) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if not isinstance(obj, Metric):  # Keras saves no metric state
            out.append((path, obj))
        for attr, child in _children(obj):
            if _is_saveable(child):
                visit(child, _join(path, attr))
            elif isinstance(child, (list, tuple, dict)):
                visit_container(child, _join(path, attr), set())

    def visit_container(container: Any, path: str, containers: set[int]) -> None:
        if id(container) in containers:
            return
        containers.add(id(container))
        used: dict[str, int] = {}
        items = container.values() if isinstance(container, dict) else container
        for item in items:
            if _is_saveable(item):
                visit(item, _join(path, _unique(snake_case(type(item).__name__), used)))
            elif isinstance(item, (list, tuple, dict)):
                visit_container(item, _join(path, _unique("container", used)), containers)

    visit(model, "")
    return out


def _unique(name: str, used: dict[str, int]) -> str:
    """``name``, then ``name_1``, ``name_2``... within one container, as Keras numbers."""
    if name not in used:
        used[name] = 0
        return name
    used[name] += 1
    return f"{name}_{used[name]}"


# --- optimizer slot order ----------------------------------------------------------------
def _slot_groups(optimizer: Any) -> list[tuple[str, ...]] | None:
    for cls in type(optimizer).__mro__:
        if cls.__module__.startswith("lamina.") and cls.__name__ in KERAS_SLOT_GROUPS:
            return KERAS_SLOT_GROUPS[cls.__name__]
    return None


def keras_order(optimizer: Any) -> list[int]:
    """Positions in ``optimizer.variables`` listed in Keras 3's order for the same state.

    The leading counters first, then each group of slots variable by variable, then any
    other state (Nadam's ``u_product``, which Keras creates last). Optimizers whose
    slots both order alike map onto themselves.
    """
    names = [v.name for v in optimizer.variables]
    groups = _slot_groups(optimizer)
    if groups is None:
        return list(range(len(names)))
    leading = [i for i, n in enumerate(names) if n in _LEADING]
    # Each slot variable is named "<variable path>_<slot>"; the longest slot name that
    # ends a name is its slot ("..._velocity_hat" is not a "velocity").
    slots = sorted({s for g in groups for s in g}, key=len, reverse=True)
    blocks: dict[str, list[int]] = {s: [] for s in slots}
    for i, n in enumerate(names):
        slot = next((s for s in slots if n.endswith(f"_{s}")), None)
        if slot is not None and i not in leading:
            blocks[slot].append(i)
    order = list(leading)
    for group in groups:
        present = [blocks[s] for s in group if blocks[s]]
        if present and len({len(b) for b in present}) != 1:
            return list(range(len(names)))  # not the layout this table describes
        for per_variable in zip(*present):
            order.extend(per_variable)
    placed = set(order)
    order += [i for i in range(len(names)) if i not in placed]
    return order


def built_like(optimizer: Any, count: int) -> Any:
    """A copy of the unbuilt `optimizer`, built for the number of model variables that
    gives it `count` state variables; None when no number does.

    Lets a file's slot order be known before the model (and so the optimizer) is built.
    """
    from lamina import Variable

    def copy(n: int) -> Any:
        clone = type(optimizer).from_config(optimizer.get_config())
        clone.build([Variable(np.zeros((), "float32"), name=f"v{i}") for i in range(n)])
        return clone

    one, two = len(copy(1).variables), len(copy(2).variables)
    per_variable, fixed = two - one, 2 * one - two
    if per_variable <= 0 or count < fixed or (count - fixed) % per_variable:
        return None
    return copy((count - fixed) // per_variable)


# --- per-class differences in a layer's own variables -------------------------------------
def to_keras_values(obj: Any, values: list[Any]) -> list[Any]:
    """`obj`'s saved values as Keras 3 saves the same layer's."""
    if isinstance(obj, Normalization) and len(values) == 2:
        return [*values, np.zeros((), "int32")]  # Keras' `count`: only `adapt` reads it
    return values


def from_keras_values(obj: Any, values: list[Any]) -> list[Any]:
    """Values Keras 3 saved for the layer `obj`, as Lamina's layer holds them."""
    if isinstance(obj, Normalization) and len(values) == 3:
        return values[:2]
    return values
