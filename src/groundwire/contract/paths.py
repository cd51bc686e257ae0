"""The `google.api.http` path templates, parsed once: the one reading of a URL rule for all code.

A template fills a URL from a request, matches an incoming URL, and checks resource names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from urllib.parse import quote

_VARIABLE = re.compile(r"\{(?P<field>[a-z_.]+)(?:=(?P<pattern>[^}]+))?\}")


@dataclass(frozen=True)
class Variable:
    """One `{field=pattern}` of a template, with its pattern compiled."""

    field: str
    pattern: str
    regex: re.Pattern[str]

    def fits(self, value: str) -> bool:
        """Whether `value` is a resource name this variable accepts.

        >>> parse_template("/v1/{parent=projects/*/locations/*}:x").variables[0].fits("projects/p")
        False
        """
        return self.regex.fullmatch(value) is not None


@dataclass(frozen=True)
class PathTemplate:
    """A parsed path template such as `/v1/{location=projects/*/locations/*}:verb`."""

    template: str
    variables: tuple[Variable, ...]
    regex: re.Pattern[str]

    @property
    def fields(self) -> tuple[str, ...]:
        """The request fields bound in the path, in template order."""
        return tuple(variable.field for variable in self.variables)

    def expand(self, values: Mapping[str, str]) -> str:
        """Fills the variables with `values`, percent-encoding all but `/`.

        >>> parse_template("/v1/{parent=projects/*}:x").expand({"parent": "projects/a b"})
        '/v1/projects/a%20b:x'
        """

        def substitute(match: re.Match[str]) -> str:
            return quote(values[match.group("field")], safe="/")

        return _VARIABLE.sub(substitute, self.template)

    def match(self, path: str) -> dict[str, str] | None:
        """The variables bound by `path`, or None when the path does not match."""
        found = self.regex.fullmatch(path)
        if found is None:
            return None
        return {variable.field: found.group(i + 1) for i, variable in enumerate(self.variables)}


def _segment_pattern(pattern: str) -> str:
    parts = []
    for segment in pattern.split("/"):
        if segment == "**":
            parts.append(".+")
        elif segment == "*":
            parts.append("[^/:]+")
        else:
            parts.append(re.escape(segment))
    return "/".join(parts)


@cache
def parse_template(template: str) -> PathTemplate:
    """Parses a `google.api.http` path template once; later calls hit a cache.

    >>> parse_template("/v1/{parent=projects/*/locations/*}:corroborateContent").fields
    ('parent',)
    """
    variables: list[Variable] = []
    regex_parts: list[str] = []
    position = 0
    for found in _VARIABLE.finditer(template):
        regex_parts.append(re.escape(template[position : found.start()]))
        pattern = found.group("pattern") or "*"
        segments = _segment_pattern(pattern)
        variables.append(Variable(found.group("field"), pattern, re.compile(segments)))
        regex_parts.append(f"({segments})")
        position = found.end()
    regex_parts.append(re.escape(template[position:]))
    return PathTemplate(template, tuple(variables), re.compile("".join(regex_parts)))
