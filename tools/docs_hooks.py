"""MkDocs hook: keeps `--strict` about broken docs, not about a grouped-arguments style.

Some layers document related arguments on one line (`use_bias, kernel_initializer: as for
the cell`), which reads well but which griffe's Google parser reports as a warning when a
group wraps onto a second line. Those lines still render (as text); every other griffe
warning stays a warning, so `mkdocs build --strict` still fails on them.
"""

from __future__ import annotations

import logging

GROUPED_ARGUMENTS = "Failed to get 'name: description' pair from"


class _GroupedArgumentsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return GROUPED_ARGUMENTS not in record.getMessage()


def on_startup(command: str, dirty: bool) -> None:
    """Installs the filter once, before the docstrings are parsed."""
    logging.getLogger("mkdocs.plugins.griffe").addFilter(_GroupedArgumentsFilter())
