"""One spec per RPC: how it is built, checked, routed and read, the same for every layer.

Every layer knows a method only through its entry here and its descriptor
(`groundwire.contract.apis`); a new RPC is one entry in `SPECS` (docs/inside.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import message

from groundwire.contract import apis, metadata, requests, results, validation
from groundwire.contract.offsets import OffsetUnit
from groundwire.contract.transcoding import resource_violations
from groundwire.contract.validation import Violation
from groundwire.contract.version import DISCOVERY_VERSIONS

Builder = Callable[..., message.Message]
"""`build(method, project, location, subject, **options)`: a request from user input."""
Checker = Callable[[apis.Method, Any], list[Violation]]
"""`violations(method, request)`: what breaks a documented limit, as (field path, problem)."""
Reader = Callable[[Any, Any, OffsetUnit, "str | None"], Any]
"""`read(request, response, offset_unit, text)`: the result a user gets for one response.

`text`, the string the request was built from when it was, spares reading it back out.
"""
Counter = Callable[[Any], "int | None"]
"""`billed_characters(request)`: the characters Google bills the call by (None: not so billed)."""


def _not_billed_by_characters(request: Any) -> int | None:
    return None


@dataclass(frozen=True)
class Spec:
    """Everything groundwire knows about one RPC beyond its descriptor."""

    rpc: str
    api: apis.Api
    versions: tuple[str, ...]
    build: Builder
    violations: Checker
    read: Reader
    billed_characters: Counter = _not_billed_by_characters
    option_defaults: Mapping[str, Any] = field(init=False, repr=False)
    _methods: dict[str, apis.Method] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """The method at each API version asked for, looked up once."""

    def __post_init__(self) -> None:
        parameters = list(inspect.signature(self.build).parameters.values())[4:]
        defaults = {p.name: p.default for p in parameters}
        object.__setattr__(self, "option_defaults", defaults)

    def method(self, api_version: str) -> apis.Method:
        """The descriptor-derived method at `api_version`, or at the only version there is.

        >>> SPECS["CorroborateContent"].method("v1alpha").version
        'v1'
        """
        found = self._methods.get(api_version)
        if found is None:
            version = api_version if api_version in self.versions else self.versions[0]
            found = self._methods[api_version] = apis.method(self.api, version, self.rpc)
        return found

    def given(self, options: Mapping[str, Any]) -> list[str]:
        """The options that say something: not None, not their default, not an empty list.

        >>> SPECS["CheckGrounding"].given({"facts": [], "citation_threshold": 0.5})
        ['citation_threshold']
        """
        return [
            name
            for name, value in options.items()
            if value is not None
            and not (isinstance(value, Sized) and not isinstance(value, str) and not len(value))
            and value != self.option_defaults.get(name, inspect.Parameter.empty)
        ]

    def check(self, method: apis.Method, request: Any) -> None:
        """Raises one `InvalidArgument` naming every field of `request` that breaks a limit."""
        validation.raise_if_any(self.rpc, self.violations(method, request))


def route(
    method: apis.Method, request: message.Message, quota_project: str | None
) -> tuple[tuple[str, str], ...]:
    """The call's headers, routed by the resource that `request` itself names.

    >>> m = SPECS["CorroborateContent"].method("v1")
    >>> route(m, m.request_class(parent="projects/p/locations/eu"), None)[0]
    ('x-goog-request-params', 'parent=projects%2Fp%2Flocations%2Feu')
    """
    field = method.routing_field
    return metadata.call_headers(field, getattr(request, field), quota_project)


def _resource_violations(method: apis.Method, request: Any) -> list[Violation]:
    """The resource name's fit to the URL pattern, then its project's and location's characters."""
    misfits = resource_violations(method, request)
    if misfits:
        return misfits
    field = method.routing_field
    return validation.validate_resource_name(getattr(request, field), field)


def _fact_text(path: str, text: str, api_version: str) -> list[Violation]:
    return validation.validate_fact_texts([(path, text)])


def _answer(path: str, text: str, api_version: str) -> list[Violation]:
    return validation.validate_answer_candidate(text, api_version, path)


INLINE_FACTS = "grounding_spec.grounding_sources.inline_source.grounding_facts"
FACT_LISTS = frozenset({"facts", INLINE_FACTS})
"""The fact lists, as unindexed proto paths: at most `validation.MAX_FACTS` elements each."""

TextRule = Callable[[str, str, str], list[Violation]]
LIMITED_TEXTS: Mapping[str, tuple[int, TextRule]] = {
    "facts.fact_text": (validation.MAX_FACT_CHARACTERS, _fact_text),
    "facts.summary": (validation.MAX_FACT_CHARACTERS, _fact_text),
    "facts.chunk.text": (validation.MAX_FACT_CHARACTERS, _fact_text),
    f"{INLINE_FACTS}.fact_text": (validation.MAX_FACT_CHARACTERS, _fact_text),
    "answer_candidate": (validation.MAX_ANSWER_CHARACTERS_V1ALPHA, _answer),
}
"""The limited texts by unindexed proto path: (bytes at or below which a text is surely
within its limit, as no character takes less than a byte; the rule that checks it). The
specs read the facts' texts from it, the emulator's prescan all of it."""

_FACT_TEXTS = {
    facts: tuple(path[len(facts) + 1 :] for path in LIMITED_TEXTS if path.startswith(f"{facts}."))
    for facts in FACT_LISTS
}
"""Each fact list's limited texts, as paths within one fact (`chunk.text`)."""


def _text_at(fact: Any, path: str) -> str:
    """The text at `path` within `fact`, or "" where its message has no such field."""
    value = fact
    for name in path.split("."):
        value = getattr(value, name, "")
    return str(value)


def _long_texts(facts: Any, path: str, key: str) -> list[tuple[str, str]]:
    """The (path, text) of each limited text of the facts at `key` that may pass its limit.

    A text has no more characters than its message has bytes: only those past it are decoded.
    """
    names = _FACT_TEXTS[key]
    return [
        (f"{path}[{index}].{name}", text)
        for index, fact in enumerate(facts)
        if fact.ByteSize() > validation.MAX_FACT_CHARACTERS
        for name in names
        if (text := _text_at(fact, name))
    ]


def _fact_violations(facts: Any, path: str, key: str = "facts") -> list[Violation]:
    return [
        *validation.validate_fact_count(len(facts), path),
        *validation.validate_fact_texts(_long_texts(facts, path, key)),
    ]


def _check_grounding_violations(method: apis.Method, request: Any) -> list[Violation]:
    spec = request.grounding_spec
    threshold = spec.citation_threshold if spec.HasField("citation_threshold") else None
    return [
        *_resource_violations(method, request),
        *validation.validate_text_given(request.answer_candidate, "answer_candidate"),
        *validation.validate_answer_candidate(request.answer_candidate, method.version),
        *_fact_violations(request.facts, "facts"),
        *validation.validate_citation_threshold(threshold, "grounding_spec.citation_threshold"),
        *validation.validate_user_labels(request.user_labels),
    ]


def _corroborate_violations(method: apis.Method, request: Any) -> list[Violation]:
    threshold = request.parameters.citation_threshold if request.HasField("parameters") else None
    content = "".join(part.text for part in request.content.parts)
    return [
        *_resource_violations(method, request),
        *validation.validate_text_given(content, "content"),
        *_fact_violations(request.facts, "facts"),
        *validation.validate_citation_threshold(threshold, "parameters.citation_threshold"),
    ]


def _prompt_violations(contents: Any) -> list[Violation]:
    """The prompt, the last turn that is not the model's, must hold text."""
    for index in range(len(contents) - 1, -1, -1):
        turn = contents[index]
        if turn.role != "model":
            prompt = "".join(part.text for part in turn.parts)
            return validation.validate_text_given(prompt, f"contents[{index}]")
    return [("contents", "needs a user turn to answer")]


def _generate_violations(method: apis.Method, request: Any) -> list[Violation]:
    found = [*_resource_violations(method, request), *_prompt_violations(request.contents)]
    for index, source in enumerate(request.grounding_spec.grounding_sources):
        path = f"grounding_spec.grounding_sources[{index}]"
        kind = source.WhichOneof("source")
        if kind is None:
            found.append((path, "names no source"))
        elif kind == "inline_source":  # each inline source holds up to 200 facts of its own
            facts = source.inline_source.grounding_facts
            found.extend(
                _fact_violations(facts, f"{path}.inline_source.grounding_facts", INLINE_FACTS)
            )
    found.extend(validation.validate_user_labels(request.user_labels))
    return found


def _check_grounding_characters(request: Any) -> int:
    """CheckGrounding is billed by characters: the answer's plus every fact's."""
    return len(request.answer_candidate) + sum(len(fact.fact_text) for fact in request.facts)


def _read_check_grounding(request: Any, response: Any, unit: OffsetUnit, text: str | None) -> Any:
    answer = request.answer_candidate if text is None else text
    return results.check_grounding_result(answer, response)


def _read_corroboration(request: Any, response: Any, unit: OffsetUnit, text: str | None) -> Any:
    if text is None:
        text = "".join(part.text for part in request.content.parts)
    return results.corroboration_result(text, tuple(request.facts), response, unit)


def _read_generate(request: Any, response: Any, unit: OffsetUnit, text: str | None) -> Any:
    return results.generate_result(response)


def _generate_spec(rpc: str) -> Spec:
    """Unary and streamed generation share everything but the name."""
    return Spec(
        rpc,
        "discoveryengine",
        DISCOVERY_VERSIONS,
        requests.generate_grounded_content_request,
        _generate_violations,
        _read_generate,
    )


SPECS: Mapping[str, Spec] = {
    spec.rpc: spec
    for spec in (
        Spec(
            "CheckGrounding",
            "discoveryengine",
            DISCOVERY_VERSIONS,
            requests.check_grounding_request,
            _check_grounding_violations,
            _read_check_grounding,
            _check_grounding_characters,
        ),
        Spec(
            "CorroborateContent",
            "aiplatform",
            ("v1",),
            requests.corroborate_content_request,
            _corroborate_violations,
            _read_corroboration,
        ),
        _generate_spec("GenerateGroundedContent"),
        _generate_spec("StreamGenerateGroundedContent"),
    )
}
"""Every RPC groundwire serves and calls, by name."""


def spec_for(method: apis.Method) -> Spec:
    """The spec of `method`, whatever its API version.

    >>> spec_for(apis.method("discoveryengine", "v1beta", "CheckGrounding")).rpc
    'CheckGrounding'
    """
    return SPECS[method.name]
