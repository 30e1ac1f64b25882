"""Griffe extension: a Google-style `Example:` section is read as `Examples:`.

Lamina's docstrings title their runnable snippets `Example:`. Griffe's Google parser only
knows the plural as an examples section; the singular becomes an admonition whose `>>>`
prompts Markdown turns into nested block quotes. Renaming the title before the docstring
is parsed lets mkdocstrings render the snippet as highlighted `pycon` code.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

SINGULAR_TITLE = re.compile(r"^(\s*)Example:[ \t]*$", flags=re.MULTILINE)


class ExampleSections(Extension):
    """Renames `Example:` section titles to `Examples:` on every documented object."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = SINGULAR_TITLE.sub(r"\1Examples:", obj.docstring.value)
