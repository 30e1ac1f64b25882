"""What the interop layers need from their environment: a backend, an optional package."""

from __future__ import annotations

from lamina.backend import backend


def require_backend(layer: str, wanted: tuple[str, ...], what: str) -> None:
    """Refuse to build `layer` unless the active backend is one of `wanted`.

    Raises:
        ValueError: another backend is active (the message names the ones that work).
    """
    active = backend()
    if active not in wanted:
        names = " or ".join(repr(w) for w in wanted)
        raise ValueError(
            f"`{layer}` {what}, so it needs the {names} backend. The active backend is "
            f"{active!r}: select {wanted[0]!r} with `LAMINA_BACKEND={wanted[0]}` (or "
            f"`lamina.config.set_backend({wanted[0]!r})`) before building the model."
        )
