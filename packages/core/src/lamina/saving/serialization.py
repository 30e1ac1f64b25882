"""Objects to JSON-able configs and back, through a registry only (never by import).

A config names a class (``{"module", "class_name", "config", "registered_name"}``). Loading
resolves that name in, in order: the ``custom_objects`` given, the active
`CustomObjectScope`s, the global registry filled by `register_serializable` (together, the
caller's objects), the calling namespace's ``module_objects``, and the explicit table of
built-in classes and pure functions in `lamina.saving.registry`. Nothing is found by
walking modules and a module named in a file is never imported, so a file can name nothing
that reads or writes files, loads models or changes settings; Python bytecode
(``__lambda__``) is refused unless ``safe_mode=False``.

A caller's object under a built-in's name replaces the built-in, with a `UserWarning`.
Every failure to build an object from a config is a `ConfigError` (a `ValueError` and a
`TypeError`) naming the entry; configs are bounded by `lamina.saving.limits`.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import inspect
import marshal
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from lamina.saving import limits
from lamina.saving.registry import builtin_table

T = TypeVar("T")

_GLOBAL_CUSTOM_OBJECTS: dict[str, Any] = {}
_GLOBAL_CUSTOM_NAMES: dict[Any, str] = {}
_SCOPES: contextvars.ContextVar[tuple[dict[str, Any], ...]] = contextvars.ContextVar(
    "lamina_custom_object_scopes", default=()
)
_SAFE_MODE: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "lamina_safe_mode", default=None
)
# Set (to what is being loaded) while only the caller's objects may be named.
_CALLER_ONLY: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "lamina_caller_objects_only", default=None
)
# Functions the caller already holds in memory (a model being cloned): a safe-mode Lambda
# may run them, nothing else resolves to them.
_HELD: contextvars.ContextVar[tuple[tuple[str, Any], ...]] = contextvars.ContextVar(
    "lamina_held_functions", default=()
)

_LAMBDA_REFUSED = (
    "Refusing to deserialize Python bytecode (a lambda or local function) in {where}: "
    "loading it would run code from the file. If you trust the file, pass "
    "`safe_mode=False` to the loading call, or enable "
    "`lamina.config.enable_unsafe_deserialization()`."
)


# --- registry ---------------------------------------------------------------------------
def register_serializable(package: str = "Custom", name: str | None = None) -> Callable[[T], T]:
    """Register a class or function so configs can name it (as ``"package>name"``).

    Args:
        package: a namespace for the name, so two libraries' ``MyLayer`` don't collide.
        name: the name to register under; default: the object's ``__name__``.

    Raises:
        ValueError: the name is already registered to a different object, or `package`
            contains ``">"``.

    Example:
        >>> @lamina.saving.register_serializable(package="my_pkg")
        ... class Scale(lamina.layers.Layer): ...
    """
    if not isinstance(package, str) or ">" in package:
        raise ValueError(
            "Argument `package` must be a string without '>'. "
            f"Received: package={package!r}"
        )

    def decorator(obj: T) -> T:
        registered = f"{package}>{name or getattr(obj, '__name__', None)}"
        if registered.endswith(">None"):
            raise ValueError(
                f"Cannot register {obj!r}: it has no `__name__`; pass `name=`."
            )
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError(
                f"Cannot register class {obj.__name__}: it must implement `get_config()`."
            )
        previous = _GLOBAL_CUSTOM_OBJECTS.get(registered)
        if previous is not None and _qualname(previous) != _qualname(obj):
            raise ValueError(
                f"{registered!r} is already registered to {previous!r}; choose another "
                "`package` or `name`."
            )
        _GLOBAL_CUSTOM_OBJECTS[registered] = obj
        _GLOBAL_CUSTOM_NAMES[obj] = registered
        return obj

    return decorator


register_keras_serializable = register_serializable


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', repr(obj))}"


def get_registered_name(obj: Any) -> str:
    """The name `obj` is registered under, or its ``__name__`` when it is not registered."""
    registered = _GLOBAL_CUSTOM_NAMES.get(obj)
    if registered is not None:
        return registered
    return str(getattr(obj, "__name__", type(obj).__name__))


def get_registered_object(
    name: str, custom_objects: dict[str, Any] | None = None, module_objects: Any = None
) -> Any:
    """The object a config name refers to, or None (searches as loading does)."""
    for source in (custom_objects or {}, *reversed(_SCOPES.get()), _GLOBAL_CUSTOM_OBJECTS):
        if name in source:
            return source[name]
    if module_objects is not None and name in module_objects:
        return module_objects[name]
    return None


def get_custom_objects() -> dict[str, Any]:
    """The global registry (a live dict: adding to it registers by plain name)."""
    return _GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """Within this scope, configs may name the given objects.

    Example:
        >>> class Scale(lamina.layers.Layer):
        ...     def call(self, x):
        ...         return 2.0 * x
        >>> lamina.Sequential([lamina.Input((2,)), Scale()]).save("m.lamina")
        >>> with lamina.saving.CustomObjectScope({"Scale": Scale}):
        ...     model = lamina.saving.load_model("m.lamina")
    """

    def __init__(self, custom_objects: dict[str, Any] | None = None) -> None:
        if custom_objects is not None and not isinstance(custom_objects, dict):
            raise TypeError(
                "Argument `custom_objects` must be a dict of name -> object. "
                f"Received: custom_objects={custom_objects!r}"
            )
        self.custom_objects = dict(custom_objects or {})
        self._token: contextvars.Token[tuple[dict[str, Any], ...]] | None = None

    def __enter__(self) -> CustomObjectScope:
        self._token = _SCOPES.set((*_SCOPES.get(), self.custom_objects))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _SCOPES.reset(self._token)
            self._token = None


custom_object_scope = CustomObjectScope


# --- safe mode --------------------------------------------------------------------------
class SafeModeScope:
    """Sets whether deserialization may run bytecode from a config (None: inherit)."""

    def __init__(self, safe_mode: bool | None = True) -> None:
        self.safe_mode = safe_mode
        self._token: contextvars.Token[bool | None] | None = None

    def __enter__(self) -> SafeModeScope:
        if self.safe_mode is not None:
            self._token = _SAFE_MODE.set(bool(self.safe_mode))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _SAFE_MODE.reset(self._token)
            self._token = None


def in_safe_mode() -> bool:
    """Whether loading must refuse bytecode now (the default, unless a scope or the
    global `enable_unsafe_deserialization` switch says otherwise)."""
    value = _SAFE_MODE.get()
    if value is not None:
        return value
    from lamina.backend.config import SETTINGS

    return not SETTINGS.unsafe_deserialization


# --- serialize --------------------------------------------------------------------------
def serialize_lamina_object(obj: Any) -> Any:
    """A JSON-able description of `obj` that `deserialize_lamina_object` turns back.

    Handles None, numbers, strings, lists, tuples, dicts, NumPy and backend arrays,
    dtypes, classes and functions (by registered or public name), lambdas (as bytecode,
    which safe loading refuses), and any object with ``get_config()``.
    """
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        items = [serialize_lamina_object(x) for x in obj]
        return {"class_name": "__tuple__", "config": {"value": items}} if isinstance(
            obj, tuple
        ) else items
    if isinstance(obj, dict):
        return {str(k): serialize_lamina_object(v) for k, v in obj.items()}
    if isinstance(obj, slice):  # an indexing key recorded in a functional graph
        parts = {"start": obj.start, "stop": obj.stop, "step": obj.step}
        return {"class_name": "__slice__", "config": serialize_lamina_object(parts)}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, np.ndarray) or _is_backend_array(obj):
        array = np.asarray(obj if isinstance(obj, np.ndarray) else _to_numpy(obj))
        return {
            "class_name": "__numpy__",
            "config": {"value": array.tolist(), "dtype": str(array.dtype)},
        }
    if isinstance(obj, types.FunctionType) and _is_lambda_like(obj):
        return _serialize_bytecode(obj)
    if inspect.isclass(obj):
        return {
            "module": _public_module(obj),
            "class_name": "__class__",
            "config": get_registered_name(obj),
            "registered_name": get_registered_name(obj),
        }
    if callable(obj) and not hasattr(obj, "get_config"):
        name = get_registered_name(obj)
        return {
            "module": _public_module(obj),
            "class_name": "function",
            "config": name,
            "registered_name": name,
        }
    if not hasattr(obj, "get_config"):
        raise TypeError(
            f"Cannot serialize {obj!r} (type {type(obj).__name__}): it has no "
            "`get_config()` and is not a basic value, array or function."
        )
    config = obj.get_config()
    out: dict[str, Any] = {
        "module": _public_module(type(obj)),
        "class_name": type(obj).__name__,
        "config": _serialize_config(config),
        "registered_name": get_registered_name(type(obj)),
    }
    build_config = getattr(obj, "get_build_config", lambda: None)()
    if build_config is not None:
        out["build_config"] = serialize_lamina_object(build_config)
    compile_config = getattr(obj, "get_compile_config", lambda: None)()
    if compile_config is not None:
        out["compile_config"] = compile_config
    return out


def _serialize_config(config: Any) -> Any:
    if isinstance(config, dict):
        return {k: _serialize_config_value(v) for k, v in config.items()}
    return serialize_lamina_object(config)


def _serialize_config_value(value: Any) -> Any:
    # Lists stay lists inside configs: constructors take lists and tuples alike.
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return [_serialize_config_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _serialize_config_value(v) for k, v in value.items()}
    return serialize_lamina_object(value)


def _is_backend_array(obj: Any) -> bool:
    from lamina.backend.registry import current_if_any

    backend = current_if_any()
    return backend is not None and bool(backend.core.is_tensor(obj))


def _to_numpy(obj: Any) -> Any:
    from lamina import ops

    return ops.convert_to_numpy(obj)


def _is_lambda_like(fn: types.FunctionType) -> bool:
    """A function no registry or namespace can name (so only its bytecode describes it)."""
    if fn.__name__ == "<lambda>" or "<locals>" in fn.__qualname__:
        return fn not in _GLOBAL_CUSTOM_NAMES
    return False


def _public_module(obj: Any) -> str:
    """Where users reach `obj` (e.g. "lamina.layers" for Dense), else its own module."""
    home = builtin_table().home(obj)
    return home if home is not None else str(getattr(obj, "__module__", "") or "")


def _slice_from_config(inner: Any) -> slice:
    parts = inner if isinstance(inner, dict) else {}
    values = [parts.get(k) for k in ("start", "stop", "step")]
    if set(parts) - {"start", "stop", "step"} or not all(
        v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values
    ):
        raise ConfigError(
            "A `__slice__` entry needs a dict of 'start', 'stop' and 'step', each an integer "
            f"or null. Received: {_clip(inner)}"
        )
    return slice(*values)


def _serialize_bytecode(fn: types.FunctionType) -> dict[str, Any]:
    code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
    defaults = [serialize_lamina_object(d) for d in (fn.__defaults__ or ())]
    return {
        "class_name": "__lambda__",
        "config": {"code": code, "defaults": defaults, "name": fn.__name__},
    }


def _deserialize_bytecode(config: Any, where: str) -> Callable[..., Any]:
    if in_safe_mode():
        raise ValueError(_LAMBDA_REFUSED.format(where=where))
    if (
        not isinstance(config, dict)
        or not isinstance(config.get("code"), str)
        or not isinstance(config.get("defaults", []), list)
    ):
        raise ConfigError(
            f"A `__lambda__` entry in {where} needs a dict config with a string 'code' "
            f"and a list 'defaults'. Received: {_clip(config)}"
        )
    try:
        code = marshal.loads(base64.b64decode(config["code"], validate=True))
    except (ValueError, TypeError, EOFError) as err:
        raise ConfigError(f"The bytecode in {where} cannot be read: {err}") from err
    if not isinstance(code, types.CodeType):
        raise ConfigError(f"The bytecode in {where} is not a code object.")
    defaults = _deserialize(config.get("defaults", []), None)
    import lamina

    fn = types.FunctionType(code, {"lamina": lamina, "keras": lamina, "__builtins__": __builtins__})
    fn.__defaults__ = tuple(defaults) or None
    return fn


# --- deserialize ------------------------------------------------------------------------
class ConfigError(ValueError, TypeError):
    """A config does not describe an object that can be built; the message names the entry.

    Both a `ValueError` and a `TypeError`, so callers that caught either from a
    constructor still catch it.
    """


def deserialize_lamina_object(
    config: Any,
    custom_objects: dict[str, Any] | None = None,
    safe_mode: bool | None = None,
    module_objects: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """The object `config` describes (from `serialize_lamina_object`, or a plain name).

    Args:
        config: a config dict, a list of them, or a name.
        custom_objects: extra name -> class/function mappings.
        safe_mode: refuse bytecode (lambdas) in the config; None inherits the current
            setting (safe unless a caller said otherwise).
        module_objects: the caller's own names (e.g. every loss) to search as well.
        **kwargs: ignored (Keras passes ``printable_module_name``).

    Raises:
        ValueError: a class or function the config names is unknown (the message says how
            to register it), the config holds bytecode in safe mode, or it breaks a limit
            of `lamina.saving.limits`; a `ConfigError` when an object cannot be built.
    """
    with SafeModeScope(safe_mode), CustomObjectScope(custom_objects), limits.checked(
        config, "this config"
    ):
        return _deserialize(config, module_objects)


@contextlib.contextmanager
def caller_objects_only(where: str) -> Iterator[None]:
    """Within this block, configs may name only the caller's objects (``custom_objects``,
    a `CustomObjectScope`, `register_serializable`), no built-in: what a safe-mode
    `Lambda` may run. `where` names what is being loaded, for the error."""
    token = _CALLER_ONLY.set(where)
    try:
        yield
    finally:
        _CALLER_ONLY.reset(token)


@contextlib.contextmanager
def held_functions(functions: dict[str, Any]) -> Iterator[None]:
    """Within this block, a safe-mode `Lambda` may also run `functions` (name -> function):
    ones the caller already holds, as `clone_model` does for the model it copies. They
    resolve nowhere else, so they replace no built-in."""
    token = _HELD.set((*_HELD.get(), *functions.items()))
    try:
        yield
    finally:
        _HELD.reset(token)


def _deserialize(config: Any, module_objects: dict[str, Any] | None) -> Any:
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, module_objects=module_objects)
        return config if found is None else found
    if isinstance(config, list):
        return [_deserialize(c, module_objects) for c in config]
    if not isinstance(config, dict):
        raise TypeError(
            "Argument `config` must be a dict, list, string or number. "
            f"Received: config={_clip(config)} (of type {type(config).__name__})"
        )
    if "class_name" not in config or "config" not in config:
        return {k: _deserialize(v, None) for k, v in config.items()}
    class_name = config["class_name"]
    inner = config["config"]
    if not isinstance(class_name, str):
        raise ConfigError(
            f"An entry's 'class_name' must be a string. Received: class_name={_clip(class_name)}"
        )
    if class_name == "__tuple__":
        value = inner.get("value") if isinstance(inner, dict) else None
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"A `__tuple__` entry needs a list 'value'. Received: {_clip(inner)}")
        return tuple(_deserialize(v, None) for v in value)
    if class_name == "__numpy__":
        return _numpy_from_config(inner)
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        return _slice_from_config(inner)
    if class_name == "__lambda__":
        return _deserialize_bytecode(inner, _CALLER_ONLY.get() or "this config")
    if class_name in ("function", "__class__"):
        kind = "function" if class_name == "function" else "class"
        return _resolve(inner, config, module_objects, kind)
    cls = _resolve(class_name, config, module_objects, "class")
    if not hasattr(cls, "from_config"):
        raise ConfigError(f"{class_name!r} resolved to {cls!r}, which has no `from_config`.")
    if not isinstance(inner, dict):
        raise ConfigError(
            f"The config of {class_name!r} must be a dict. Received: {_clip(inner)}"
        )
    try:
        obj = cls.from_config(inner)
        build_config = config.get("build_config")
        if build_config and hasattr(obj, "build_from_config") and not getattr(
            obj, "built", True
        ):
            obj.build_from_config(_deserialize(build_config, None))
        compile_config = config.get("compile_config")
        if compile_config and hasattr(obj, "compile_from_config"):
            obj.compile_from_config(compile_config)
    except ConfigError:
        raise
    except Exception as err:
        raise ConfigError(f"{_entry(class_name, inner)}: {_reason(err)}") from err
    return obj


def _entry(class_name: str, inner: Any) -> str:
    """How errors name an entry: its class and, when it has one, its name."""
    name = inner.get("name") if isinstance(inner, dict) else None
    shown = f"{class_name} {_clip(name)}" if isinstance(name, str) else class_name
    return f"Cannot build {shown} from its config"


def _reason(err: BaseException) -> str:
    """The cause, with its type unless it is a plain `ValueError` (whose text says it all)."""
    if type(err) is ValueError or type(err).__module__.startswith("lamina"):
        return str(err)
    return f"{type(err).__name__}: {err}"


def _clip(value: Any, limit: int = 200) -> str:
    """`repr(value)`, cut to `limit` characters (values from a file can be huge)."""
    text = repr(value) if not isinstance(value, str) or len(value) <= limit else repr(
        value[:limit]
    )
    return text if len(text) <= limit + 10 else text[:limit] + "...'"


def _numpy_from_config(inner: Any) -> np.ndarray:
    if not isinstance(inner, dict) or "value" not in inner:
        raise ConfigError(
            f"A `__numpy__` entry needs a dict with 'value'. Received: {_clip(inner)}"
        )
    dtype_name = inner.get("dtype", "float32")
    try:
        dtype = np.dtype(dtype_name) if isinstance(dtype_name, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "biufc":
        raise ConfigError(
            f"Refusing array of non-numeric dtype {_clip(dtype_name)} in a config: a "
            "`__numpy__` entry must hold a bool, integer, float or complex dtype."
        )
    try:
        return np.asarray(inner["value"], dtype=dtype)
    except (ValueError, TypeError, OverflowError) as err:
        raise ConfigError(
            f"A `__numpy__` entry of dtype {dtype} cannot be built from its 'value': {err}"
        ) from err


def _resolve(
    name: Any, config: dict[str, Any], module_objects: dict[str, Any] | None, kind: str
) -> Any:
    """What `name` (or the entry's ``registered_name``) names, the caller's objects first."""
    what = "function" if kind == "function" else "class"
    if not isinstance(name, str):
        raise ConfigError(f"A {what} entry must name it with a string. Received: {_clip(name)}")
    module = config.get("module")
    keys = [k for k in (config.get("registered_name"), name) if isinstance(k, str)]
    caller_only = _CALLER_ONLY.get()
    for key in keys:
        found = get_registered_object(key)
        if found is not None:
            builtin = None if caller_only else builtin_table().find(key, module, kind)
            if builtin is not None and builtin is not found:
                warnings.warn(
                    f"A custom object named {key!r} replaces the built-in {builtin!r} "
                    "while loading this config. Register yours under another name (or a "
                    "package, `register_serializable(package=...)`) to keep both.",
                    UserWarning,
                    stacklevel=2,
                )
            return found
    if caller_only is not None:
        held = dict(_HELD.get())
        for key in keys:
            if key in held:
                return held[key]
        raise ValueError(
            f"Refusing {what} {_clip(name)} in {caller_only}: in safe mode a Lambda runs only "
            "functions the caller registered, never one named by the file (built-in or "
            "not), like bytecode. Pass it in `custom_objects`, a `CustomObjectScope`, or "
            "register it with `@lamina.saving.register_serializable()`; or, if you trust "
            "the file, load with `safe_mode=False`."
        )
    for key in keys:
        if module_objects is not None and key in module_objects:
            return module_objects[key]
    found = builtin_table().find(name, module, kind)
    if found is not None:
        return found
    raise ValueError(
        f"Could not locate {what} {_clip(name)} (module {_clip(module)}). Lamina never "
        "imports modules named in a file and resolves only built-in layers, losses, "
        "metrics, optimizers and the like and pure modeling functions: register it with "
        "`@lamina.saving.register_serializable()` or pass it in `custom_objects`."
    )
