"""The documented request limits, checked before sending and by the emulator to reject input.

Each ``validate_*`` function returns the violations of one limit as (proto field path,
problem) pairs; `groundwire.contract.spec` says which fields of each RPC they read.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from groundwire.contract.errors import bad_request

Violation = tuple[str, str]
"""One problem: (proto field path, description)."""

MAX_FACTS = 200
MAX_FACT_CHARACTERS = 10_000
MAX_ANSWER_TOKENS = 4_096
MAX_ANSWER_CHARACTERS_V1ALPHA = 1_024
MAX_USER_LABELS = 64
MAX_LABEL_CHARACTERS = 63

# Cloud labels allow "lowercase letters, numeric characters, underscores, and dashes ...
# international characters", read as Unicode categories: a key starts with a lowercase or
# caseless letter; combining marks (which Devanagari needs) and numerals may follow.
_LABEL_START_CATEGORIES = frozenset({"Ll", "Lo", "Lm"})
_LABEL_CATEGORIES = _LABEL_START_CATEGORIES | {"Mn", "Mc", "Nd", "Nl", "No"}
_SHOWN_VIOLATIONS = 3
_SHOWN_KEY_CHARACTERS = 40

_CJK = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3040-\u309f\u30a0-\u30ff"
    "\u3100-\u312f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0003134f"
)
_SENTENCE_END = (
    ".!?\u0589\u061f\u06d4\u0964\u0965\u2026\u203c\u203d\u2047-\u2049\u3002\uff01\uff0e\uff1f\uff61"
)
_WORD_RUN = rf"[^\s{_SENTENCE_END}{_CJK}]+"
_ALPHANUMERIC = re.compile(r"\w")


def count_tokens(text: str, stop_after: int | None = None) -> int:
    """Count tokens as the limits mean them: words and sentence-ending punctuation marks.

    A word is a run between spaces holding a letter or digit ("3.14", "don't"); each Chinese
    or Japanese character is a word; a run of sentence-ending marks ("?!", "。") counts once;
    other symbols count for nothing. A word of n characters counts as at least ⌈n/16⌉
    tokens, as a tokenizer splits a long word. With ``stop_after``, counting stops once past
    it (returning ``stop_after + 1``), so checking a limit costs no more than the limit.

    Example:
        >>> count_tokens("Tokyo is the capital of Japan."), count_tokens("東京は日本の首都です。")
        (7, 11)
        >>> count_tokens("one two three four", stop_after=2)
        3
        >>> count_tokens("x" * 16), count_tokens("x" * 17), count_tokens("x" * 1_000_000)
        (1, 2, 62500)
    """
    if stop_after is None or len(text) <= _COUNT_IN_ONE_PASS:
        count = _count_in_one_pass(text)
        return count if stop_after is None else min(count, stop_after + 1)
    search_letter = _ALPHANUMERIC.search
    count = 0
    for match in _word_pattern().finditer(text):
        if match.lastindex is None:  # a CJK character or a run of sentence-ending marks
            count += 1
        elif search_letter(text, match.start(), match.end()):
            count += _word_tokens(match.end() - match.start())
        if count > stop_after:
            return stop_after + 1
    return count


CHARACTERS_PER_TOKEN = 16
_COUNT_IN_ONE_PASS = 1 << 18
"""Texts up to this many characters are counted in one `findall` (at most this many strings)."""


def _word_tokens(characters: int) -> int:
    return -(-characters // CHARACTERS_PER_TOKEN)


@functools.cache
def _word_pattern() -> re.Pattern[str]:
    """The tokens, capturing only words; compiled on first use, as the CJK ranges are slow."""
    return re.compile(rf"[{_CJK}]|[{_SENTENCE_END}]+|({_WORD_RUN}(?:\.{_WORD_RUN})*)")


def _count_in_one_pass(text: str) -> int:
    """`count_tokens` without a Python step per token or word: findall, then `map`s."""
    found = _word_pattern().findall(text)
    words = list(filter(None, found))
    counted_words = itertools.compress(words, map(_ALPHANUMERIC.search, words))
    rounded_up = map(
        operator.add, map(len, counted_words), itertools.repeat(CHARACTERS_PER_TOKEN - 1)
    )
    word_tokens = sum(map(operator.floordiv, rounded_up, itertools.repeat(CHARACTERS_PER_TOKEN)))
    return len(found) - len(words) + word_tokens


def validate_fact_count(
    count: int, field: str = "facts", *, counted_all: bool = True
) -> list[Violation]:
    """Violations of the number of facts in one list: at most 200.

    ``counted_all=False`` says the count is a lower bound (counting stopped past the limit).

    Example:
        >>> validate_fact_count(201)
        [('facts', 'has 201 facts; at most 200 are allowed')]
        >>> validate_fact_count(201, counted_all=False)
        [('facts', 'has more than 200 facts; at most 200 are allowed')]
    """
    if count <= MAX_FACTS:
        return []
    found = f"{count:,}" if counted_all else f"more than {MAX_FACTS:,}"
    return [(field, f"has {found} facts; at most {MAX_FACTS:,} are allowed")]


def validate_fact_texts(texts: Iterable[tuple[str, str]]) -> list[Violation]:
    """Violations of the fact length: each (field path, text) at most 10,000 characters.

    Example:
        >>> validate_fact_texts([("facts[0].chunk.text", "x" * 10_001)])
        [('facts[0].chunk.text', 'is 10,001 characters long; at most 10,000 are allowed')]
    """
    return [
        (path, f"is {len(text):,} characters long; at most {MAX_FACT_CHARACTERS:,} are allowed")
        for path, text in texts
        if len(text) > MAX_FACT_CHARACTERS
    ]


def validate_text_given(text: str, field: str) -> list[Violation]:
    """Violations of the rule that a call has text to work on: an empty or blank text is refused.

    CheckGrounding's answer, CorroborateContent's content and GenerateGroundedContent's prompt
    are held to it in every surface, as there is nothing to check or answer without one.

    Example:
        >>> validate_text_given("  ", "answer_candidate")
        [('answer_candidate', 'is empty')]
        >>> validate_text_given("Hi.", "answer_candidate")
        []
    """
    if text and not text.isspace():
        return []
    return [(field, "is empty")]


def validate_answer_candidate(
    answer_candidate: str, api_version: str, field: str = "answer_candidate"
) -> list[Violation]:
    """Violations of the answer limit: 4,096 tokens in v1 and v1beta, 1,024 characters in v1alpha.

    Example:
        >>> validate_answer_candidate("é" * 1_025, "v1alpha")
        [('answer_candidate', 'is 1,025 characters long; at most 1,024 are allowed in v1alpha')]
    """
    if api_version == "v1alpha":
        if len(answer_candidate) > MAX_ANSWER_CHARACTERS_V1ALPHA:
            return [
                (
                    field,
                    f"is {len(answer_candidate):,} characters long;"
                    f" at most {MAX_ANSWER_CHARACTERS_V1ALPHA:,} are allowed in v1alpha",
                )
            ]
        return []
    if len(answer_candidate) <= MAX_ANSWER_TOKENS:
        return []  # every token takes at least one character: no need to count
    if count_tokens(answer_candidate, stop_after=MAX_ANSWER_TOKENS) > MAX_ANSWER_TOKENS:
        limit = f"at most {MAX_ANSWER_TOKENS:,} are allowed in {api_version}"
        return [(field, f"has more than {MAX_ANSWER_TOKENS:,} tokens; {limit}")]
    return []


def validate_citation_threshold(value: float | None, field: str) -> list[Violation]:
    """Violations of the citation threshold range [0, 1]; None (unset) is fine.

    Example:
        >>> validate_citation_threshold(1.5, "grounding_spec.citation_threshold")
        [('grounding_spec.citation_threshold', 'is 1.5; it must be between 0 and 1')]
    """
    if value is None or (math.isfinite(value) and 0.0 <= value <= 1.0):
        return []
    return [(field, f"is {value!r}; it must be between 0 and 1")]


def validate_user_labels(labels: Mapping[str, str], field: str = "user_labels") -> list[Violation]:
    """Violations of the label rules: at most 64 labels, keys 1–63 and values 0–63 characters.

    Example:
        >>> validate_user_labels({"team": "search", "Env": "prod"})
        [('user_labels', "key 'Env' must start with a lowercase or international letter")]
    """
    violations: list[Violation] = []
    if len(labels) > MAX_USER_LABELS:
        violations.append(
            (field, f"has {len(labels)} labels; at most {MAX_USER_LABELS} are allowed")
        )
    for key, value in labels.items():
        violations.extend((field, problem) for problem in _label_problems(key, value))
    return violations


def _label_problems(key: str, value: str) -> list[str]:
    problems: list[str] = []
    rest_of_key = key
    if not key:
        problems.append("a key is empty; keys must have 1 to 63 characters")
    elif unicodedata.category(key[0]) not in _LABEL_START_CATEGORIES:
        problems.append(f"key {_shown(key)} must start with a lowercase or international letter")
        rest_of_key = key[1:]
    for role, text, checked in (("key", key, rest_of_key), ("value", value, value)):
        if len(text) > MAX_LABEL_CHARACTERS:
            problems.append(
                f"{role} {_shown(text)} is {len(text)} characters long;"
                f" at most {MAX_LABEL_CHARACTERS} are allowed"
            )
        bad = sorted({char for char in checked if not _label_character(char)})
        if bad:
            problems.append(
                f"{role} {_shown(text)} contains {''.join(bad)!r}; only lowercase letters,"
                " digits, '_' and '-' are allowed"
            )
    return problems


def _label_character(char: str) -> bool:
    return char in "_-" or unicodedata.category(char) in _LABEL_CATEGORIES


def _shown(text: object) -> str:
    shown = repr(text)
    if len(shown) > _SHOWN_KEY_CHARACTERS:
        shown = shown[: _SHOWN_KEY_CHARACTERS - 1] + "…"
    return shown


_RESOURCE_PREFIX = re.compile(r"projects/(?P<project>[^/]*)/locations/(?P<location>[^/]*)(?:/|$)")
_PROJECT_ID = re.compile(r"(?:[a-z0-9][a-z0-9.-]*:)?[a-z][a-z0-9-]*|[0-9]+")
_LOCATION = re.compile(r"[a-z][a-z0-9-]*")


def validate_resource_name(name: str, field: str) -> list[Violation]:
    """Violations of Google's characters for the project and location a resource name holds.

    A project is an ID (a legacy one keeps its `example.com:` prefix) or a number; its length
    is unchecked, so a test project `p` works. Which locations exist is the service's to say;
    a name of another form is left to the path check.

    Example:
        >>> [v[1][:30] for v in validate_resource_name("projects/A b/locations/x", "parent")]
        ["names project 'A b'; a project"]
        >>> validate_resource_name("projects/123/locations/us-central1/x/y", "parent")
        []
    """
    found = _RESOURCE_PREFIX.match(name)
    if found is None:
        return []
    violations: list[Violation] = []
    if _PROJECT_ID.fullmatch(found["project"]) is None:
        violations.append(
            (
                field,
                f"names project {_shown(found['project'])}; a project is an ID of lowercase "
                "letters, digits and hyphens starting with a letter, or a project number",
            )
        )
    if _LOCATION.fullmatch(found["location"]) is None:
        violations.append(
            (
                field,
                f"names location {_shown(found['location'])}; a location is lowercase "
                "letters, digits and hyphens starting with a letter, e.g. global or us-central1",
            )
        )
    return violations


def raise_if_any(request: str, violations: Sequence[Violation]) -> None:
    """Raises one InvalidArgument naming every violation of a `request` (an RPC name); else nothing.

    Example:
        >>> try:
        ...     raise_if_any("CheckGrounding", validate_fact_count(201))
        ... except Exception as error:
        ...     print(error.code.name, error.details[0].field_violations[0].field)
        INVALID_ARGUMENT facts
    """
    if not violations:
        return
    summary = "; ".join(f"{field} {problem}" for field, problem in violations[:_SHOWN_VIOLATIONS])
    if len(violations) > _SHOWN_VIOLATIONS:
        summary += f"; and {len(violations) - _SHOWN_VIOLATIONS} more"
    raise bad_request(violations, f"invalid {request} request: {summary}")
