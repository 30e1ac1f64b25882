"""The module size budget (STYLE.md): warn above 600 lines, fail above 1,000."""

from __future__ import annotations

import pathlib
import sys

WARN = 600
LIMIT = 1000
ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    too_big = False
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")):
        lines = sum(1 for _ in path.open(encoding="utf-8"))
        where = path.relative_to(ROOT)
        if lines > LIMIT:
            too_big = True
            print(f"error: {where}: {lines} lines (limit {LIMIT}); split it by concern")
        elif lines > WARN:
            print(f"warning: {where}: {lines} lines (aim for {WARN} or fewer)")
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main())
