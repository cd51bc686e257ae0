"""The documented request limits, checked before sending and by the emulator to reject input.

Each ``validate_*`` request check collects every violation and raises one InvalidArgument
whose BadRequest field violations name proto field paths (``facts[3].fact_text``).

Label characters follow the Cloud labels rules as documented ("lowercase letters, numeric
characters, underscores, and dashes ... international characters are allowed"), read as
Unicode categories: a key starts with a lowercase letter (Ll) or a caseless letter (Lo, Lm);
later characters may also be combining marks (Mn, Mc), which scripts such as Devanagari need,
digits and numerals (Nd, Nl, No), ``_`` and ``-``. Uppercase and titlecase letters never pass.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence

from groundwire.core.errors import bad_request

Violation = tuple[str, str]
"""One problem: (proto field path, description)."""

MAX_FACTS = 200
MAX_FACT_CHARACTERS = 10_000
MAX_ANSWER_TOKENS = 4_096
MAX_ANSWER_CHARACTERS_V1ALPHA = 1_024
MAX_USER_LABELS = 64
MAX_LABEL_CHARACTERS = 63
API_VERSIONS = ("v1", "v1beta", "v1alpha")
GENERATE_FACTS_FIELD = "grounding_spec.grounding_sources[0].inline_source.grounding_facts"

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


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """Compiled on first use: the CJK ranges make it the slowest thing to import here."""
    return re.compile(
        rf"(?P<cjk>[{_CJK}])|(?P<end>[{_SENTENCE_END}]+)|(?P<word>{_WORD_RUN}(?:\.{_WORD_RUN})*)"
    )


def count_tokens(text: str) -> int:
    """Count tokens as the limits mean them: words and sentence-ending punctuation marks.

    A word is a run of characters between spaces that holds a letter or digit ("3.14",
    "don't" and "e-mail" are one word each); each Chinese or Japanese character counts as a
    word, since those scripts do not separate words with spaces; a run of sentence-ending
    marks ("?!", "。") counts once. Other punctuation and symbols count for nothing.

    Example:
        >>> count_tokens("Tokyo is the capital of Japan."), count_tokens("東京は日本の首都です。")
        (7, 11)
    """
    return sum(
        1
        for match in _token_pattern().finditer(text)
        if match.lastgroup != "word" or _ALPHANUMERIC.search(match.group())
    )


def validate_facts(
    fact_texts: Sequence[str], field: str = "facts", text_field: str = "fact_text"
) -> list[Violation]:
    """Violations of the fact limits: at most 200 facts, each at most 10,000 characters.

    Example:
        >>> validate_facts(["ok", "x" * 10_001])
        [('facts[1].fact_text', 'is 10,001 characters long; at most 10,000 are allowed')]
    """
    violations: list[Violation] = []
    if len(fact_texts) > MAX_FACTS:
        violations.append(
            (field, f"has {len(fact_texts):,} facts; at most {MAX_FACTS:,} are allowed")
        )
    for index, fact_text in enumerate(fact_texts):
        if len(fact_text) > MAX_FACT_CHARACTERS:
            violations.append(
                (
                    f"{field}[{index}].{text_field}",
                    f"is {len(fact_text):,} characters long;"
                    f" at most {MAX_FACT_CHARACTERS:,} are allowed",
                )
            )
    return violations


def validate_answer_candidate(
    answer_candidate: str, api_version: str, field: str = "answer_candidate"
) -> list[Violation]:
    """Violations of the answer limit: 4,096 tokens in v1 and v1beta, 1,024 characters in v1alpha.

    Example:
        >>> validate_answer_candidate("é" * 1_025, "v1alpha")
        [('answer_candidate', 'is 1,025 characters long; at most 1,024 are allowed in v1alpha')]
    """
    if api_version not in API_VERSIONS:
        raise ValueError(f"api_version must be one of {', '.join(API_VERSIONS)}: {api_version!r}")
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
    tokens = count_tokens(answer_candidate)
    if tokens > MAX_ANSWER_TOKENS:
        limit = f"at most {MAX_ANSWER_TOKENS:,} are allowed in {api_version}"
        return [(field, f"has {tokens:,} tokens; {limit}")]
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


def validate_check_grounding(
    *,
    api_version: str,
    answer_candidate: str,
    fact_texts: Sequence[str],
    citation_threshold: float | None,
    user_labels: Mapping[str, str],
) -> None:
    """Raise InvalidArgument naming every field of a CheckGrounding request that breaks a limit.

    Example:
        >>> validate_check_grounding(
        ...     api_version="v1", answer_candidate="Paris is in France.",
        ...     fact_texts=["Paris is the capital of France."], citation_threshold=0.6,
        ...     user_labels={"team": "search"})
    """
    _raise_if_any(
        "CheckGrounding",
        [
            *validate_answer_candidate(answer_candidate, api_version),
            *validate_facts(fact_texts),
            *validate_citation_threshold(citation_threshold, "grounding_spec.citation_threshold"),
            *validate_user_labels(user_labels),
        ],
    )


def validate_corroborate(
    *,
    content_text: str,
    fact_texts: Sequence[str],
    citation_threshold: float | None,
    fact_text_field: str = "summary",
) -> None:
    """Raise InvalidArgument naming every field of a CorroborateContent request over a limit.

    Facts follow CheckGrounding's limits; ``fact_text_field`` is the Fact field that carries
    each fact's text. ``content_text`` has no documented limit and is accepted as it is.

    Example:
        >>> try:
        ...     validate_corroborate(content_text="Paris is in France.",
        ...                          fact_texts=["x" * 10_001], citation_threshold=1.5)
        ... except Exception as error:
        ...     print([v.field for v in error.details[0].field_violations])
        ['facts[0].summary', 'parameters.citation_threshold']
    """
    _raise_if_any(
        "CorroborateContent",
        [
            *validate_facts(fact_texts, text_field=fact_text_field),
            *validate_citation_threshold(citation_threshold, "parameters.citation_threshold"),
        ],
    )


def validate_generate(
    *,
    fact_texts: Sequence[str],
    user_labels: Mapping[str, str],
    facts_field: str = GENERATE_FACTS_FIELD,
) -> None:
    """Raise InvalidArgument for GenerateGroundedContent inline facts or labels over a limit.

    Inline facts follow CheckGrounding's limits; ``facts_field`` is the path of the
    ``grounding_facts`` being checked (the first inline source by default).

    Example:
        >>> validate_generate(fact_texts=["Paris is in France."], user_labels={"app": "demo"})
    """
    _raise_if_any(
        "GenerateGroundedContent",
        [*validate_facts(fact_texts, facts_field), *validate_user_labels(user_labels)],
    )


def _label_problems(key: str, value: str) -> list[str]:
    if not isinstance(key, str) or not isinstance(value, str):
        return [f"key {_shown(key)} and its value must both be strings"]
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


def _raise_if_any(request: str, violations: list[Violation]) -> None:
    if not violations:
        return
    summary = "; ".join(f"{field} {problem}" for field, problem in violations[:_SHOWN_VIOLATIONS])
    if len(violations) > _SHOWN_VIOLATIONS:
        summary += f"; and {len(violations) - _SHOWN_VIOLATIONS} more"
    raise bad_request(violations, f"invalid {request} request: {summary}")
