"""Where Keras 3 puts each object's weights in a file, computed on a Lamina model.

Keras 3 keys an object's variables by the path its saving walk takes to reach it: a
functional or Sequential model's ``layers`` first, each named after its class in snake
case and numbered on repeats (``layers/dense``, ``layers/dense_1``); then the object's
attributes in sorted order, private ones last (``block/items/dense``, ``optimizer``); a
subclassed model's ``layers`` property among them. An object reached twice keeps its
first path. `keras_objects` walks a Lamina model the same way, so Lamina reads files
Keras wrote and writes files Keras reads, both keyed identically.

Variables inside one object are listed in the same order by both (trainable, then
non-trainable), with the exceptions handled here: Keras' `Normalization` keeps a third,
unused ``count`` variable; Keras orders most optimizers' slots variable by variable
(``k_momentum, k_velocity, b_momentum, ...``) where Lamina orders them slot by slot;
Keras' `Adafactor` and `LossScaleOptimizer` hold variables Lamina's do not (see
`keras_values`).
"""

from __future__ import annotations

import functools
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


@functools.lru_cache(maxsize=1024)
def snake_case(name: str) -> str:
    """A class name as Keras names a saved object after it: ``Conv2DTranspose`` ->
    ``conv2d_transpose`` (remembered: every save and load asks again)."""
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
    if isinstance(obj, Optimizer):  # a wrapper's inner optimizer, saved on its own too
        inner = [a for a, v in vars(obj).items() if isinstance(v, Optimizer)]
        for attr in sorted(inner, key=lambda a: f"~{a}" if a.startswith("_") else a):
            yield attr, getattr(obj, attr)
    if not isinstance(obj, Layer):
        return  # metrics hold no objects with weights of their own
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
            elif isinstance(child, (list, tuple, dict)) and child:  # an empty one holds none
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


# --- optimizer state -----------------------------------------------------------------------
def _lamina_class(optimizer: Any, names: Any) -> str | None:
    """The first of `names` among the Lamina classes `optimizer` is an instance of."""
    for cls in type(optimizer).__mro__:
        if cls.__module__.startswith("lamina.") and cls.__name__ in names:
            return cls.__name__
    return None


def _slot_groups(optimizer: Any) -> list[tuple[str, ...]] | None:
    name = _lamina_class(optimizer, KERAS_SLOT_GROUPS)
    return KERAS_SLOT_GROUPS[name] if name is not None else None


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


# Keras' `LossScaleOptimizer` keeps a counter and a rate of its own before its loss-scale
# state; it never reads or changes them (its `iterations` and rate are the inner
# optimizer's), so they stay 0. Lamina's wrapper has no such variables.
_WRAPPER_UNUSED = 2
# Lamina's `Adafactor` slots: a factored variable's row and column averages, or a small
# variable's full second moment.
_ROW, _COLUMN, _FULL = "_r", "_c", "_velocity"


def keras_values(optimizer: Any, values: list[Any]) -> list[Any]:
    """The saved values of the built `optimizer` (`save_own_variables` order) as Keras 3
    saves the same optimizer's."""
    kind = _lamina_class(optimizer, ("LossScaleOptimizer", "Adafactor"))
    if kind == "LossScaleOptimizer":
        inner = optimizer.inner_optimizer
        own = len(values) - len(inner.variables)
        unused = [np.zeros((), optimizer.iterations.dtype), np.zeros((), "float32")]
        return [*unused, *values[:own], *keras_values(inner, values[own:])]
    if kind == "Adafactor":
        return _adafactor_to_keras(optimizer, values)
    return [values[i] for i in keras_order(optimizer)]


def lamina_positions(optimizer: Any, shapes: list[tuple[int, ...]]) -> list[int] | None:
    """Where `optimizer`'s values lie among those Keras 3 saved for it (given by their
    shapes), in `optimizer.variables`' order; None when the file's layout is not this
    optimizer's. `optimizer` is built, for the model or (`built_like`) a stand-in."""
    kind = _lamina_class(optimizer, ("LossScaleOptimizer", "Adafactor"))
    if kind == "LossScaleOptimizer":
        own = _WRAPPER_UNUSED + len(optimizer.variables) - len(optimizer.inner_optimizer.variables)
        if len(shapes) < own or any(tuple(s) != () for s in shapes[:own]):
            return None
        inner = lamina_positions(optimizer.inner_optimizer, shapes[own:])
        if inner is None:
            return None
        return [*range(_WRAPPER_UNUSED, own), *(own + p for p in inner)]
    if kind == "Adafactor":
        return _adafactor_positions(optimizer, shapes)
    if _slot_groups(optimizer) is None:
        return list(range(len(shapes)))  # both order the state alike
    order = keras_order(optimizer)
    if len(order) != len(shapes):
        return None
    positions = [0] * len(order)
    for position, index in enumerate(order):
        positions[index] = position
    return positions


# Keras' Adafactor keeps three slots per variable, in this order: the row average, the
# column average and a full-size second moment. For a variable of rank < 2 the first two
# are unused integer scalars (0); for a larger one the third is rebuilt from the first two
# at every step before it is read, so it carries nothing from one step to the next.
# Lamina's Adafactor keeps only what is read (the memory saving that is Adafactor's
# point), and the full second moment is computed here when a file is written for Keras.
def _adafactor_to_keras(optimizer: Any, values: list[Any]) -> list[Any]:
    names = [v.name for v in optimizer.variables]
    out: list[Any] = []
    i = 0
    while i < len(values):
        if names[i].endswith(_ROW) and i + 1 < len(names) and names[i + 1].endswith(_COLUMN):
            row, column = np.asarray(values[i]), np.asarray(values[i + 1])
            out += [row, column, _second_moment(row, column)]
            i += 2
        elif names[i].endswith(_FULL):
            out += [np.zeros((), "int32"), np.zeros((), "int32"), values[i]]
            i += 1
        else:  # the counters (and any EMA or accumulator slots, which come first)
            out.append(values[i])
            i += 1
    return out


def _second_moment(row: np.ndarray, column: np.ndarray) -> np.ndarray:
    """The full second moment Keras' Adafactor holds after a step: the row averages over
    their mean, times the column averages (zeros before the first step)."""
    r, c = row.astype("float32"), column.astype("float32")
    mean = r.mean(axis=-1, keepdims=True)
    scaled = np.divide(r, mean, out=np.zeros_like(r), where=mean != 0)
    return (scaled[..., None] * c[..., None, :]).astype(row.dtype)


def _adafactor_positions(optimizer: Any, shapes: list[tuple[int, ...]]) -> list[int] | None:
    names = [v.name for v in optimizer.variables]
    lead = next((i for i, n in enumerate(names) if n.endswith((_ROW, _FULL))), len(names))
    if len(shapes) < lead or (len(shapes) - lead) % 3:
        return None
    positions = list(range(lead))
    for j in range(lead, len(shapes), 3):
        row, column, full = (tuple(s) for s in shapes[j:j + 3])
        if len(full) >= 2 and row == full[:-1] and column == full[:-2] + full[-1:]:
            positions += [j, j + 1]
        elif len(full) < 2 and row == () and column == ():
            positions.append(j + 2)
        else:
            return None
    return positions


def built_like(optimizer: Any, count: int) -> Any:
    """A copy of the unbuilt `optimizer`, built for the number of model variables that
    gives it `count` state variables in Keras 3's layout; None when no number does.

    Lets a file's layout be read before the model (and so the optimizer) is built.
    """
    from lamina import Variable

    def copy(n: int) -> Any:
        clone = type(optimizer).from_config(optimizer.get_config())
        clone.build([Variable(np.zeros((), "float32"), name=f"v{i}") for i in range(n)])
        return clone

    def keras_count(clone: Any) -> int:
        return len(keras_values(clone, [v.numpy() for v in clone.variables]))

    one, two = keras_count(copy(1)), keras_count(copy(2))
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
