"""Export for serving (``lamina.export``): the archive lives in lamina-saving.

`ExportArchive` writes TensorFlow SavedModels (tensorflow or jax backend). It is looked up
through the saving facade on first use, so the core does not depend on the package.
"""

from typing import Any

_FROM_SAVING_PACKAGE = ("ExportArchive",)


def __getattr__(name: str) -> Any:
    if name in _FROM_SAVING_PACKAGE:
        from lamina.saving.facade import support

        return support().extra(name)
    raise AttributeError(f"module 'lamina.export' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_FROM_SAVING_PACKAGE])


__all__ = ["ExportArchive"]
