"""Putting saved values into variables, now or the moment each variable is created.

`restore_model` checks every layer's variables against the file (count, shape, and
that every value fits its variable's dtype exactly: no NaN, fraction or out-of-range
number cast into an integer) and assigns them. On a model that is not built yet it
installs a `DeferredRestore`, which the layers call back (`saved_value`,
`layer_tracked`) as they create variables, so each value lands as soon as its variable
exists, on every backend (seed 000's deferred restoration). Entries that no object of
the model can ever take are reported without being read. `RestoreStatus` says what
matched, what is still pending and what was never used.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lamina.backend.kit import arrays_offered, attach_restore, attached_restore
from lamina_saving.errors import LaminaFileError
from lamina_saving.graph import ROOT, own_variables, path_component, walk_layers
from lamina_saving.h5_store import LazyArray

Entries = dict[str, list[tuple[str, Any]]]
"""Group path (``model/<object path>`` or ``optimizer``) -> ``[(variable name, value)]``;
a value is an array or a `LazyArray` (read on `load()`)."""


def _array(value: Any) -> np.ndarray:
    return value.load() if isinstance(value, LazyArray) else np.asarray(value)


def _numpy_dtype(dtype: Any) -> np.dtype[Any] | None:
    """`dtype` (a variable's, e.g. ``"int64"`` or ``"bfloat16"``) as NumPy's, if known."""
    try:
        return np.dtype(dtype)
    except TypeError:
        import ml_dtypes

        found = getattr(ml_dtypes, str(dtype), None)
        return np.dtype(found) if found is not None else None


def fit_value(value: np.ndarray, dtype: Any, file: str, where: str) -> np.ndarray:
    """`value` cast to `dtype`, refusing any cast that would change a number.

    Into an integer or bool variable only exact, in-range whole numbers go (NumPy would
    turn NaN or 1e30 into INT64_MIN silently); into a float variable, no finite value
    may overflow to infinity, no integer may be rounded and no complex value may lose an
    imaginary part. Floats may narrow (float64 into float32), as in Keras.
    """
    target = _numpy_dtype(dtype)
    if target is None or value.dtype == target:
        return value
    if value.dtype.kind == "V" and value.dtype.type.__module__.startswith("ml_dtypes"):
        value = value.astype(np.float32)  # bfloat16, float8, int4: float32 holds them all
        if value.dtype == target:
            return value
    if value.dtype.kind not in "biufc":
        raise LaminaFileError(file, f"{where}: saved dtype {value.dtype} is not numeric.")
    if value.dtype.kind == "c" and target.kind != "c":
        if np.any(value.imag != 0):
            raise LaminaFileError(
                file, f"{where}: complex values do not fit the variable's dtype {target}."
            )
        value = value.real
    if target.kind in "iub":
        _check_whole(value, target, file, where)
        return value.astype(target)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked just below
        cast = value.astype(target)
    if value.dtype.kind in "fc" and np.any(np.isfinite(value) & ~np.isfinite(cast)):
        raise LaminaFileError(file, f"{where}: values overflow the variable's dtype {target}.")
    if value.dtype.kind in "biu" and not np.array_equal(cast.astype(value.dtype), value):
        raise LaminaFileError(
            file, f"{where}: integers too large for the variable's dtype {target} to hold."
        )
    return cast


def _check_whole(value: np.ndarray, target: np.dtype[Any], file: str, where: str) -> None:
    """Refuse values of `value` that are not whole numbers within `target`'s range."""
    if value.size == 0:
        return
    if target.kind == "b":
        low, high = 0, 1
    else:
        info = np.iinfo(target)
        low, high = int(info.min), int(info.max)
    if value.dtype.kind == "f":
        if not np.all(np.isfinite(value)):
            raise LaminaFileError(
                file, f"{where}: NaN or infinite values do not fit the variable's dtype {target}."
            )
        if np.any(value != np.trunc(value)):
            raise LaminaFileError(
                file, f"{where}: fractional values do not fit the variable's dtype {target}."
            )
        # Compare against powers of two, which floats hold exactly (INT64_MAX they don't).
        lowest, highest = float(value.min()), float(value.max())
        fits = lowest >= float(low) and highest < float(high + 1)
    else:
        fits = int(value.min()) >= low and int(value.max()) <= high
    if not fits:
        raise LaminaFileError(
            file,
            f"{where}: values from {value.min()} to {value.max()} do not fit the variable's "
            f"dtype {target} (range {low} to {high}).",
        )


def group_of(section: str, path: str) -> str:
    return section if path == ROOT else f"{section}/{path}"


@dataclass
class RestoreStatus:
    """What a restore did: ``matched``/``pending`` entries of the file, by key."""

    file: str
    matched: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    unmatched_variables: list[str] = field(default_factory=list)

    @property
    def unused(self) -> list[str]:
        """Entries of the file that no variable took (so far, while still pending)."""
        return list(self.pending)

    def assert_consumed(self) -> RestoreStatus:
        """Raise unless every entry of the file went into a variable, and vice versa."""
        if self.pending or self.unmatched_variables:
            raise AssertionError(
                f"Restore from {self.file} is incomplete: unused entries {self.pending}, "
                f"variables without a value {self.unmatched_variables}."
            )
        return self

    def assert_existing_objects_matched(self) -> RestoreStatus:
        """Raise if a variable that exists now got no value."""
        if self.unmatched_variables:
            raise AssertionError(
                f"Variables without a value in {self.file}: {self.unmatched_variables}."
            )
        return self

    def expect_partial(self) -> RestoreStatus:
        """Say that unused entries are fine (silences nothing else; for TF-like code)."""
        return self


def _describe(layer: Any, path: str) -> str:
    return f"layer {layer.name!r} (path {path!r}, {type(layer).__name__})"


def _check_layer(layer: Any, path: str, values: list[tuple[str, Any]]) -> str | None:
    """None when `values` fit `layer`'s variables, else what is wrong."""
    own = own_variables(layer)
    if len(values) != len(own):
        return (
            f"{_describe(layer, path)} has {len(own)} variables {[v.name for v in own]}, "
            f"but the file holds {len(values)} for it {[n for n, _ in values]}."
        )
    for variable, (name, value) in zip(own, values):
        if tuple(variable.shape) != tuple(value.shape):
            return (
                f"{_describe(layer, path)}, variable {variable.name!r}: expected shape "
                f"{tuple(variable.shape)}, got {tuple(value.shape)} (saved as {name!r})."
            )
    return None


def _start_layer(
    layer: Any, path: str, values: list[tuple[str, Any]], file: str
) -> Callable[[], None]:
    """Read `layer`'s values now, their checksums computing on other threads; the result
    waits for the checks and assigns them. `restore_model` reads the next layer's values
    before assigning these, so the checks cost (almost) nothing."""
    pending = [
        (value.start() if isinstance(value, LazyArray) else _constant(np.asarray(value)))
        for _, value in values
    ]

    def assign() -> None:
        store = {}
        fresh = []  # read from the file just now (or cast from that): no one else holds them
        for i, (variable, (name, value)) in enumerate(zip(own_variables(layer), values)):
            array = pending[i]()
            if array.dtype != _numpy_dtype(variable.dtype):  # the message is built only then
                where = f"{_describe(layer, path)}, variable {variable.name!r} (saved as {name!r})"
                array = fit_value(array, variable.dtype, file, where)
            if isinstance(value, LazyArray):
                fresh.append(array)
            store[str(i)] = array
        with arrays_offered(fresh):  # a backend may keep them as the variables' memory
            _load_own(layer, store, file, lambda: _describe(layer, path))

    return assign


def _constant(array: np.ndarray) -> Callable[[], np.ndarray]:
    return lambda: array


def _nothing() -> None:
    pass


def _load_own(obj: Any, store: dict[str, Any], file: str, what: Any) -> None:
    """`obj.load_own_variables(store)`, its complaints about the values as file errors
    naming `what` (a string, or a callable making one: only needed on failure)."""
    try:
        obj.load_own_variables(store)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        if isinstance(e, LaminaFileError):
            raise
        name = what() if callable(what) else what
        raise LaminaFileError(file, f"{name} refused the saved values ({e}).") from e


def restore_model(
    model: Any,
    entries: Entries,
    file: str,
    skip_mismatch: bool,
    section: str = "model",
    status: RestoreStatus | None = None,
) -> RestoreStatus:
    """Restore `entries` into `model` now where variables exist, later where they don't.

    `entries` keys are ``<section>/<object path>``, plus ``optimizer`` for the state of
    ``model.optimizer``. A given `status` (a checkpoint's, shared by its objects) is
    updated in place, also later as deferred values land.
    """
    status = RestoreStatus(file) if status is None else status
    remaining = dict(entries)
    waiting: set[str] = set()  # keys of layers that exist but are not built yet
    assign_previous: Callable[[], None] = _nothing  # one layer behind its read (`_start_layer`)
    for path, layer in walk_layers(model):
        own = own_variables(layer)
        key = group_of(section, path)
        values = remaining.pop(key, None)
        if not own and values is None:
            continue
        if values is None:
            if not layer.built:
                continue
            problem = f"{_describe(layer, path)} has variables but the file has none for it."
            _mismatch(problem, file, skip_mismatch)
            status.unmatched_variables += [v.path for v in own]
            continue
        if not layer.built and not own:
            remaining[key] = values  # its variables will come with its build
            waiting.add(key)
            continue
        mismatch = _check_layer(layer, path, values)
        if mismatch is not None:
            _mismatch(mismatch, file, skip_mismatch)
            status.skipped.append(key)
            continue
        assign = _start_layer(layer, path, values, file)
        assign_previous()
        assign_previous = assign
        status.matched.append(key)
    assign_previous()
    opt_values = remaining.pop("optimizer", None)
    if opt_values is not None:
        _restore_optimizer(model, opt_values, file, skip_mismatch, status, remaining)
    in_section = [k for k in remaining if k == section or k.startswith(f"{section}/")]
    foreign = sorted(k for k in remaining if k not in in_section and k != "optimizer")
    if foreign:  # nothing could ever take them: report them, never read them
        problem = f"The file holds entries outside {section!r} and the optimizer: {foreign}."
        _mismatch(problem, file, skip_mismatch)
        status.skipped += foreign
        for k in foreign:
            remaining.pop(k)
    model_keys = [k for k in in_section if k not in waiting]
    if model_keys and model.built:
        problem = (
            f"The file holds weights for objects the model does not have: {sorted(model_keys)}."
        )
        _mismatch(problem, file, skip_mismatch)
        status.skipped += model_keys
        for k in model_keys:
            remaining.pop(k)
    if remaining:
        DeferredRestore(model, remaining, file, skip_mismatch, status, section).install()
    status.pending += sorted(remaining)
    return status


def _restore_optimizer(
    model: Any,
    values: list[tuple[str, Any]],
    file: str,
    skip_mismatch: bool,
    status: RestoreStatus,
    remaining: Entries,
) -> None:
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None:
        status.skipped.append("optimizer")  # a weights file read into an uncompiled model
        return
    if not optimizer.built:
        if not model.built:
            remaining["optimizer"] = values
            return
        optimizer.build(model.trainable_variables)
    load_optimizer(optimizer, values, file, skip_mismatch, status)


def load_optimizer(
    optimizer: Any,
    values: list[tuple[str, Any]],
    file: str,
    skip_mismatch: bool,
    status: RestoreStatus,
) -> None:
    own = list(optimizer.variables)
    shapes_ok = len(own) == len(values) and all(
        tuple(v.shape) == tuple(a.shape) for v, (_, a) in zip(own, values)
    )
    if not shapes_ok:
        problem = (
            f"The optimizer has {len(own)} variables {[tuple(v.shape) for v in own]}, but "
            f"the file holds {len(values)} {[tuple(a.shape) for _, a in values]}."
        )
        _mismatch(problem, file, skip_mismatch)
        status.skipped.append("optimizer")
        return
    store = {
        str(i): fit_value(
            _array(a),
            variable.dtype,
            file,
            f"optimizer {optimizer.name!r}, variable {variable.name!r} (saved as {name!r})",
        )
        for i, (variable, (name, a)) in enumerate(zip(own, values))
    }
    _load_own(optimizer, store, file, f"optimizer {optimizer.name!r}")
    status.matched.append("optimizer")


def _mismatch(problem: str, file: str, skip_mismatch: bool) -> None:
    """Warn and go on under `skip_mismatch`, else fail naming the file."""
    if skip_mismatch:
        warnings.warn(f"Skipping: {problem}", stacklevel=4)
        return
    raise LaminaFileError(file, problem)


class DeferredRestore:
    """Held values for a model being built: each goes in when its variable is created."""

    def __init__(
        self,
        root: Any,
        entries: Entries,
        file: str,
        skip_mismatch: bool,
        status: RestoreStatus,
        section: str,
    ) -> None:
        self.root = root
        self.section = section
        # The file closes when loading returns: read what must wait into memory now.
        self.entries = {k: [(n, _array(v)) for n, v in vs] for k, vs in entries.items()}
        self.file = file
        self.skip_mismatch = skip_mismatch
        self.status = status
        self._taken: dict[str, set[int]] = {}
        self._paths: dict[int, tuple[Any, str]] = {}  # id -> (layer, path), see `_path_of`

    def _path_of(self, layer: Any) -> str | None:
        """`layer`'s path under the root, like `graph.path_of` but without a walk of the
        whole model per variable: paths come from a map, each checked to still lead to its
        layer (a build may move layers, e.g. a Sequential inserting its input layer), and
        the map is rebuilt when it misses or is out of date."""
        found = self._paths.get(id(layer))
        if found is not None and found[0] is layer and _at_path(self.root, found[1]) is layer:
            return found[1]
        self._paths = {id(sub): (sub, path) for path, sub in walk_layers(self.root)}
        found = self._paths.get(id(layer))
        return found[1] if found is not None and found[0] is layer else None

    def install(self) -> None:
        for _, layer in walk_layers(self.root):
            attach_restore(layer, self)

    def _uninstall_if_done(self) -> None:
        if self.entries:
            return
        for _, layer in walk_layers(self.root):
            if attached_restore(layer) is self:
                attach_restore(layer, None)

    # --- the hooks the core calls ----------------------------------------------------------
    def layer_tracked(self, parent: Any, name: str | None, layer: Any) -> None:
        """A layer joined the graph: watch it too, and restore what it already has."""
        for _, sub in walk_layers(layer):
            attach_restore(sub, self)
            self._assign_existing(sub)

    def saved_value(self, layer: Any, name: str, shape: tuple[int, ...]) -> Any:
        """The held value for the variable `layer` is about to create, or None.

        Matched by variable name within the layer (by creation position when names
        repeat); the layer then creates the variable with this value as its initial one,
        which works inside traced builds too. The value comes as an initializer, so that
        it is checked against the dtype the variable is created with (`fit_value`).
        """
        path = self._path_of(layer)
        if path is None:
            return None  # not attached to the model yet; `layer_tracked` catches it later
        key = group_of(self.section, path)
        values = self.entries.get(key)
        if values is None:
            return None
        taken = self._taken.setdefault(key, set())
        index = self._pick(values, taken, name, len(own_variables(layer)))
        if index is None:
            return None
        saved_name, value = values[index]
        if tuple(value.shape) != tuple(shape):
            problem = (
                f"{_describe(layer, path)}, variable {name!r}: expected shape {tuple(shape)}, "
                f"got {tuple(value.shape)} (saved as {saved_name!r})."
            )
            _mismatch(problem, self.file, self.skip_mismatch)
            return None
        self._take(key, index)
        where = f"{_describe(layer, path)}, variable {name!r} (saved as {saved_name!r})"
        return _SavedValue(value, self.file, where)

    def _assign_existing(self, layer: Any) -> None:
        if not own_variables(layer):
            return  # nothing to assign yet: its variables come through `saved_value`
        path = self._path_of(layer)
        values = self.entries.get(group_of(self.section, path)) if path is not None else None
        if values is None or path is None:
            return
        key = group_of(self.section, path)
        for position, variable in enumerate(own_variables(layer)):
            taken = self._taken.setdefault(key, set())
            index = self._pick(values, taken, variable.name, position)
            if index is not None and tuple(values[index][1].shape) == tuple(variable.shape):
                saved_name, value = values[index]
                where = (
                    f"{_describe(layer, path)}, variable {variable.name!r} "
                    f"(saved as {saved_name!r})"
                )
                variable.assign(fit_value(value, variable.dtype, self.file, where))
                self._take(key, index)

    def _take(self, key: str, index: int) -> None:
        taken = self._taken[key]
        taken.add(index)
        if len(taken) == len(self.entries[key]):
            del self.entries[key]
            self.status.matched.append(key)
            self._settled(key)

    def _settled(self, key: str) -> None:
        # Only this restore's own key leaves `pending`: a shared (checkpoint) status also
        # lists other objects' entries.
        if key in self.status.pending:
            self.status.pending.remove(key)
        self._uninstall_if_done()

    def optimizer_built(self, optimizer: Any) -> None:
        """The trainer built the optimizer: restore its held state now."""
        values = self.entries.pop("optimizer", None)
        if values is not None:
            load_optimizer(optimizer, values, self.file, self.skip_mismatch, self.status)
            self._settled("optimizer")

    @staticmethod
    def _pick(
        values: list[tuple[str, Any]], taken: set[int], name: str, position: int
    ) -> int | None:
        names = [n for n, _ in values]
        if names.count(name) == 1:
            i = names.index(name)
            return None if i in taken else i
        if position >= len(values) or position in taken:
            return None
        return position


def _at_path(root: Any, path: str) -> Any:
    """The layer that `path` (as `walk_layers` spells it) leads to from `root`, or None.

    Follows the path's components attribute by attribute, list position by position, so
    checking a path costs its depth, not the size of the model.
    """
    node, parts, i = root, ([] if path == ROOT else path.split("/")), 0
    while i < len(parts):
        step = _child_at(node, parts, i)
        if step is None:
            return None
        node, i = step
    return node


def _child_at(node: Any, parts: list[str], i: int) -> tuple[Any, int] | None:
    """The child of `node` that ``parts[i:]`` starts with, and the index after it."""
    from lamina.layers import Layer

    for attr, value in getattr(node, "__dict__", {}).items():
        if not isinstance(attr, str) or path_component(attr.lstrip("_")) != parts[i]:
            continue
        child: Any = None
        if isinstance(value, Layer):
            return value, i + 1
        if i + 1 >= len(parts):
            continue
        key = parts[i + 1]
        position = int(key) if key.isascii() and key.isdigit() else -1
        if isinstance(value, (list, tuple)) and 0 <= position < len(value):
            child = value[position]
        elif isinstance(value, dict):
            child = next((v for k, v in value.items() if path_component(k) == key), None)
        if isinstance(child, Layer):
            return child, i + 2
    return None


class _SavedValue:
    """A held value as a variable initializer ``(shape, dtype) -> array``: the variable
    passes the dtype it is created with, which the value must fit exactly."""

    def __init__(self, value: np.ndarray, file: str, where: str) -> None:
        self.value = value
        self.file = file
        self.where = where

    def __call__(self, shape: Any, dtype: Any = None) -> np.ndarray:
        return self.value if dtype is None else fit_value(self.value, dtype, self.file, self.where)
