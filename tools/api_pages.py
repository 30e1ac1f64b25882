#!/usr/bin/env python3
"""Writes docs/reference/<namespace>.md: one mkdocstrings page per public namespace.

Most namespaces spell `__all__` as a literal, which griffe reads from the source. A few build
it at import time (`*sorted(obj.__name__ for obj in ALL_OBJECTS)`), which static analysis
cannot evaluate, so their pages list the members explicitly, taken from the imported module.
Run it after adding a namespace or a name to a dynamic `__all__`; the docs session runs it
before every build, so the pages never drift.
"""

from __future__ import annotations

import importlib
import pathlib

REFERENCE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "reference"

NAMESPACES = [
    "lamina", "models", "layers", "activations", "initializers", "regularizers",
    "constraints", "losses", "metrics", "optimizers", "optimizers.schedules", "callbacks",
    "ops", "ops.core", "ops.math", "ops.nn", "ops.numpy", "ops.linalg", "ops.image",
    "random", "distribution", "saving", "export", "config", "backend", "dtype_policies",
    "mixed_precision", "tree", "utils", "wrappers", "testing", "datasets", "preprocessing",
    "visualization",
]  # fmt: skip

# Namespaces whose `__all__` is computed when the module is imported.
DYNAMIC_ALL = {
    "activations", "initializers", "regularizers", "constraints", "losses", "metrics",
    "optimizers", "optimizers.schedules",
}  # fmt: skip

# Namespaces whose members are modules (`datasets.mnist.load_data`): their pages render the
# public submodules too.
SUBMODULES = {"datasets", "preprocessing"}

# Names a namespace takes from lamina_saving when it is installed (documented where defined).
FROM_SAVING_PACKAGE = {"export": ["lamina_saving.export.archive.ExportArchive"]}


def page(namespace: str) -> str:
    module = "lamina" if namespace == "lamina" else f"lamina.{namespace}"
    text = f"# {module}\n\n::: {module}\n"
    options = ""
    if namespace in DYNAMIC_ALL:
        names = sorted(importlib.import_module(module).__all__)
        options += "      members:\n" + "".join(f"        - {n}\n" for n in names)
    if namespace in SUBMODULES:
        options += "      show_submodules: true\n"
    if options:
        text += "    options:\n" + options
    for path in FROM_SAVING_PACKAGE.get(namespace, []):
        text += f"\n::: {path}\n"
    return text


def main() -> None:
    for namespace in NAMESPACES:
        (REFERENCE / f"{namespace}.md").write_text(page(namespace))


if __name__ == "__main__":
    main()
