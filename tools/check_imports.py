"""Keep the seams of DESIGN.md true: who may import what, and no import-time cycles.

1. A backend package or `lamina-saving` imports from the core only `lamina.backend.kit` and
   the public namespaces (`PUBLIC`): a released adapter must survive a core release, so it
   may not lean on a private module.
2. The module-level import graph of all packages has no cycle (an import inside a function
   runs at call time, after every module loaded, and is not an edge here).

The core's own ban on importing a framework (outside the data adapters and the interop
layers) is ruff's TID251, configured in pyproject.toml.
"""

from __future__ import annotations

import ast
import pathlib
import sys
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parent.parent

PUBLIC = frozenset(
    {
        "lamina",
        "lamina.backend",
        "lamina.backend.kit",
        "lamina.distribution",
        "lamina.layers",
        "lamina.metrics",
        "lamina.models",
        "lamina.optimizers",
        "lamina.saving",
        "lamina.tree",
    }
)


def modules() -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every package's sources."""
    found = {}
    # integration_tests/*/src: adapters written outside the repository's own packages.
    for src in [*ROOT.glob("packages/*/src"), *ROOT.glob("integration_tests/*/src")]:
        for path in src.rglob("*.py"):
            parts = list(path.relative_to(src).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(
    name: str, path: pathlib.Path, top_level_only: bool
) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, module, imported names)`` for each import statement of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            yield node.lineno, module, [a.name for a in node.names]


def seam_violations(found: dict[str, pathlib.Path]) -> list[str]:
    """Imports of a private core module from a backend or from `lamina-saving`."""
    problems = []
    for name, path in sorted(found.items()):
        if name.split(".")[0] == "lamina":
            continue
        for line, module, _ in imports(name, path, top_level_only=False):
            if module.split(".")[0] == "lamina" and module not in PUBLIC:
                where = path.relative_to(ROOT)
                problems.append(
                    f"{where}:{line}: imports {module!r}; adapters import from the core only "
                    f"lamina.backend.kit and {', '.join(sorted(PUBLIC - {'lamina.backend.kit'}))}"
                )
    return problems


def cycles(found: dict[str, pathlib.Path]) -> list[list[str]]:
    """The strongly connected components (more than one module) of the import-time graph."""

    def resolve(module: str) -> str | None:
        while module and module not in found:
            module = module.rpartition(".")[0]
        return module or None

    graph: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        for _, module, names in imports(name, path, top_level_only=True):
            targets = [resolve(f"{module}.{n}") for n in names] or [resolve(module)]
            graph[name].update(t for t in targets if t is not None and t != name)
    return strongly_connected(graph)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (import graphs are deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def main() -> int:
    found = modules()
    problems = seam_violations(found)
    for component in cycles(found):
        problems.append(f"import cycle among {len(component)} modules: {', '.join(component)}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
