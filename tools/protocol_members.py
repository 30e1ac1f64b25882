"""Count the members the backend protocol requires, per namespace.

A member is required when a backend must define it: the `Backend` protocol's own properties
and methods, plus every member of each namespace protocol (`CoreOps`, `NumpyOps`...)
reachable from a `Backend` property, bases included. A namespace a property may return as
None (``FusedKernels | None``) is optional and counted apart. Composites in
`lamina.ops.composites` are not members: core writes them once.

Usage: ``python tools/protocol_members.py [--rev REV] [--names] [--max N]``; ``--rev`` reads
the protocol as it stood at a git revision, ``--names`` lists every member, ``--max`` fails
(exit 1) when more than N members are required, so lint can hold the line.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BACKEND_DIR = "packages/core/src/lamina/backend"


def _sources(rev: str | None) -> dict[str, str]:
    """``protocol.py`` and ``protocols/*.py`` by file name, from the tree or from `rev`."""
    if rev is None:
        folder = ROOT / BACKEND_DIR
        files = [folder / "protocol.py", *sorted((folder / "protocols").glob("*.py"))]
        return {p.name: p.read_text() for p in files}
    listing = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{rev}:{BACKEND_DIR}/protocols"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    paths = [f"{BACKEND_DIR}/protocol.py"] + [
        f"{BACKEND_DIR}/protocols/{n}" for n in listing if n.endswith(".py")
    ]
    return {
        pathlib.PurePath(p).name: subprocess.run(
            ["git", "show", f"{rev}:{p}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        for p in paths
    }


def _classes(sources: dict[str, str]) -> dict[str, ast.ClassDef]:
    found: dict[str, ast.ClassDef] = {}
    for text in sources.values():
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef):
                found[node.name] = node
    return found


def _members(cls: ast.ClassDef) -> list[tuple[str, ast.expr | None]]:
    """``(name, return annotation)`` of each method, property or annotated attribute."""
    out: list[tuple[str, ast.expr | None]] = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            out.append((node.name, node.returns))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.append((node.target.id, node.annotation))
    return out


def _all_members(name: str, classes: dict[str, ast.ClassDef]) -> list[str]:
    """Members of protocol `name` and of its protocol bases, each once."""
    cls = classes[name]
    names = [m for m, _ in _members(cls)]
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            names += [m for m in _all_members(base.id, classes) if m not in names]
    return names


def count(rev: str | None = None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Required and optional members, by namespace (``"Backend"`` for its own)."""
    classes = _classes(_sources(rev))
    required: dict[str, list[str]] = {"Backend": []}
    optional: dict[str, list[str]] = {}
    for member, returns in _members(classes["Backend"]):
        required["Backend"].append(member)
        if returns is None:
            continue
        text = ast.unparse(returns)
        target = text.replace(" | None", "")
        if target in classes:
            bucket = optional if text != target else required
            bucket[member] = _all_members(target, classes)
    return required, optional


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="count the protocol as it stood at this git revision")
    parser.add_argument("--names", action="store_true", help="list every member")
    parser.add_argument("--max", type=int, help="fail when more members are required")
    args = parser.parse_args()
    required, optional = count(args.rev)
    total = sum(len(v) for v in required.values())
    print(f"backend protocol: {total} required members ({args.rev or 'working tree'})")
    for space, names in required.items():
        print(f"  {space:<14}{len(names):>4}" + (f"  {' '.join(names)}" if args.names else ""))
    for space, names in optional.items():
        extra = f"  {' '.join(names)}" if args.names else ""
        print(f"  {space:<14}{len(names):>4}  (optional namespace){extra}")
    if args.max is not None and total > args.max:
        print(
            f"error: {total} required members, more than --max {args.max}: write the new op "
            "as a composite in lamina.ops.composites instead"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
