"""`SeedGenerator`: a seed state in a variable, advanced on each draw.

Backends sample from explicit seeds (two non-negative ints). A `SeedGenerator` keeps such a
pair in a non-trainable variable and adds ``[0, 1]`` to it each time a seed is drawn, so a
model's randomness is part of its state: a stateless call (JAX) threads it like any weight.
Draws with ``seed=None`` use the global generator, whose state a compiled step carries too
(see `SeedStateScope`).
"""

from __future__ import annotations

import secrets
from types import TracebackType
from typing import Any

import numpy as np

from lamina.backend.config import NAME_SCOPE, SETTINGS, name_scope, unique_name
from lamina.backend.scoped import ScopedVar, ScopedVarToken
from lamina.variables.scopes import in_stateless_scope
from lamina.variables.variable import Variable

_MAX_SEED = 2**63 - 1

def seed_dtype() -> str:
    """The dtype of seed tensors on the active backend (its `runtime.seed_dtype()`)."""
    from lamina.ops.dispatch import backend

    return backend().runtime.seed_dtype()


def _check_seed(where: str, seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(
            f"`{where}`: argument `seed` must be None, a non-negative int or a SeedGenerator. "
            f"Received: seed={seed!r}"
        )
    if seed > _MAX_SEED:
        raise ValueError(
            f"`{where}`: argument `seed` must be at most 2**63 - 1. Received: seed={seed!r}"
        )
    return int(seed)


def _seed_pair(seed: int) -> np.ndarray[Any, Any]:
    return np.array([seed >> 32, seed & 0xFFFFFFFF], dtype=seed_dtype())


class SeedGenerator:
    """The state of a random stream: draw a new seed with `next()`.

    Args:
        seed: the initial seed (a non-negative int); None draws one from the global seed
            (`lamina.utils.set_random_seed`) or, when unset, from fresh entropy.
        name: the name scope of its state variable.

    Example:
        >>> gen = lamina.random.SeedGenerator(42)
        >>> x = lamina.random.normal((2, 3), seed=gen)
    """

    def __init__(self, seed: int | None = None, name: str | None = None, **kwargs: Any) -> None:
        if kwargs:
            raise ValueError(
                f"`SeedGenerator`: unexpected keyword arguments. Received: {sorted(kwargs)}"
            )
        if seed is None:
            seed = _fresh_seed()
        self._initial_seed = _check_seed("SeedGenerator", seed)
        self.name = name or unique_name("seed_generator")
        with name_scope(self.name):
            self.state = Variable(
                _seed_pair(self._initial_seed),
                dtype=seed_dtype(),
                trainable=False,
                name="seed_generator_state",
            )

    def next(self, ordered: bool = True) -> Any:
        """Return the current seed (a 2-element int tensor) and advance the state."""
        from lamina.ops.dispatch import to_tensor
        from lamina.ops.numpy.elementwise.arithmetic import add

        current = self.state.value
        increment = to_tensor(np.array([0, 1]), self.state.dtype)
        self.state.assign(add(current, increment))
        return current

    def get_config(self) -> dict[str, Any]:
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> SeedGenerator:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<SeedGenerator name={self.name}, seed={self._initial_seed}>"


def _fresh_seed() -> int:
    seed = SETTINGS.global_seed
    if seed is None:
        return secrets.randbits(32)
    # Generators made after `set_random_seed(s)` differ from each other but are reproducible.
    return (int(seed) * 7919 + global_seed_generator().next_int()) % (_MAX_SEED + 1)


def global_seed_generator() -> _GlobalGenerator:
    """The generator behind ``seed=None``; `set_random_seed` and `clear_session` reset it."""
    gen = SETTINGS.global_seed_generator
    if not isinstance(gen, _GlobalGenerator):
        seed = SETTINGS.global_seed
        gen = _GlobalGenerator(seed if seed is not None else secrets.randbits(32))
        SETTINGS.global_seed_generator = gen
    return gen


def _mix32(value: int, salt: int) -> int:
    """32 well-spread bits of `value`, different for each `salt` (a multiplicative hash).

    Both words of a global seed pair depend on the global seed: some samplers (torch's
    CPU generator) keep only the low 32 bits of a 64-bit seed.
    """
    return ((value * 0x9E3779B97F4A7C15 + salt * 0xBF58476D1CE4E5B9) >> 32) & 0xFFFFFFFF


class _GlobalGenerator:
    """The state behind ``seed=None`` draws: a seed pair in a variable, like a SeedGenerator's.

    Where the step is a pure function (a jitted JAX step), the trainer passes the state in
    and out through a `SeedStateScope`, so successive steps draw different numbers. In a
    compiled graph with stateful variables (tf.function, torch.compile) and eagerly, the
    variable itself advances. Inside a `StatelessScope` that does not carry the state
    (shape inference, a user's `stateless_call`), a host counter gives each draw a fresh
    concrete seed without touching any variable.
    """

    def __init__(self, seed: int) -> None:
        self._seed = int(seed)
        self._count = 0
        self._state: Variable | None = None

    @property
    def state(self) -> Variable:
        """The seed pair as a variable (made on first use, outside any name scope)."""
        if self._state is None:
            pair = [_mix32(self._seed, 1), _mix32(self._seed, 2)]
            token = NAME_SCOPE.set(())
            try:
                with name_scope("global_seed_generator"):
                    self._state = Variable(
                        np.array(pair, dtype=seed_dtype()),
                        dtype=seed_dtype(),
                        trainable=False,
                        name="seed_generator_state",
                    )
            finally:
                NAME_SCOPE.reset(token)
        return self._state

    def next_int(self) -> int:
        self._count += 1
        return self._count

    def next(self) -> Any:
        from lamina.ops.dispatch import to_tensor
        from lamina.ops.numpy.elementwise.arithmetic import add

        increment = to_tensor(np.array([0, 1]), seed_dtype())
        threaded = _SEED_STATE.get()
        if threaded is not None:
            current = threaded.value
            threaded.value = add(current, increment)
            return current
        if in_stateless_scope():
            # Its own words (other salts than the variable's), so the two streams never meet.
            low = (_mix32(self._seed, 4) + self.next_int()) & 0xFFFFFFFF
            pair = np.array([_mix32(self._seed, 3), low])
            return to_tensor(pair.astype(seed_dtype()), seed_dtype())
        state = self.state
        current = state.value
        state.assign(add(current, increment))
        return current


_SEED_STATE: ScopedVar[SeedStateScope | None] = ScopedVar(
    "lamina_seed_state", default=None
)


class SeedStateScope:
    """Inside it, ``seed=None`` draws read and advance `value` instead of a variable.

    This is how a pure (jitted) step carries the global seed state: pass its current value
    in, run the step, and return `value` afterwards as the new state. Scopes nest; the
    innermost one is used.

    Args:
        value: the global seed state (``global_seed_generator().state.value``, or the value
            a previous step returned).

    Example:
        >>> from lamina.random.seed_generator import SeedStateScope, global_seed_generator
        >>> state = global_seed_generator().state.value
        >>> with SeedStateScope(state) as scope:
        ...     x = lamina.random.normal((2,))
        >>> global_seed_generator().state.assign(scope.value)
    """

    def __init__(self, value: Any) -> None:
        self.value = value
        self._token: ScopedVarToken[SeedStateScope | None] | None = None

    def __enter__(self) -> SeedStateScope:
        self._token = _SEED_STATE.set(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._token is not None
        _SEED_STATE.reset(self._token)
        self._token = None


def is_seed_tensor(seed: Any) -> bool:
    """Whether `seed` is a native tensor of shape (2,) (a seed drawn earlier)."""
    from lamina.ops.dispatch import backend

    return bool(backend().core.is_tensor(seed)) and tuple(seed.shape) == (2,)


def draw_seed(where: str, seed: Any) -> Any:
    """The concrete seed tensor for `seed` (None, an int, a SeedGenerator or a seed tensor).

    An int gives the same seed on every call, as in Keras; a SeedGenerator advances. A
    native tensor of two ints is used as is (a jitted function can take its seed this way).

    Raises:
        ValueError: `seed` is none of these.
    """
    from lamina.ops.dispatch import to_tensor

    if isinstance(seed, SeedGenerator):
        return seed.next()
    if seed is None:
        return global_seed_generator().next()
    if isinstance(seed, _GlobalGenerator):
        return seed.next()
    if is_seed_tensor(seed):
        return to_tensor(seed, seed_dtype())
    value = _check_seed(where, seed)
    return to_tensor(_seed_pair(value), seed_dtype())
