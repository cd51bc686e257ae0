"""Lets the API reference show our docstrings' `Example:` doctests as code, not as prose.

The docstrings follow Google's style guide, whose heading is `Example:`; griffe, which reads
them for mkdocstrings, knows only `Examples:` as the doctest section and renders anything else
as Markdown, where `>>>` is a quote and `[1, 2]` a link. mkdocs.yml loads this extension.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE_HEADING = re.compile(r"^(\s*)Example:$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Renames each docstring's `Example:` heading to `Examples:` as griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the heading of `obj`'s docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE_HEADING.sub(r"\1Examples:", obj.docstring.value)
