"""Reads what a command works on (answers, facts, JSON documents) from flags, files and stdin."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from groundwire.cli.errors import InputError
from groundwire.features.batch_spec import BY_COMMAND

if TYPE_CHECKING:
    from groundwire.contract.requests import FactLike

ANSWER_KEYS = BY_COMMAND["check"].text_keys
CONTENT_KEYS = BY_COMMAND["corroborate"].text_keys

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
"""A surrogate's escape (or itself) in JSON text: only then is the document searched for one."""


@dataclass(frozen=True)
class GroundingInput:
    """One request's worth of input: the text to ground, its facts, and a threshold."""

    text: str
    facts: list[FactLike] = field(default_factory=list)
    citation_threshold: float | None = None

    @property
    def characters(self) -> int:
        """Characters of the text and the fact texts: the unit Google bills checks by."""
        return len(self.text) + sum(len(fact_text(fact)) for fact in self.facts)


def fact_text(fact: FactLike) -> str:
    """The text of a fact however it was given (string, pair or dict).

    >>> fact_text({"fact_text": "Paris is in France."})
    'Paris is in France.'
    """
    if isinstance(fact, str):
        return fact
    if isinstance(fact, tuple):
        return fact[0]
    if isinstance(fact, Mapping):
        for key in ("fact_text", "text", "summary"):
            value = fact.get(key)
            if isinstance(value, str):
                return value
    return ""


def read_bytes(stream: IO[Any]) -> bytes:
    """All of `stream`, as bytes whether it is a text or a binary stream."""
    buffer = getattr(stream, "buffer", None)
    data = buffer.read() if buffer is not None else stream.read()
    return data if isinstance(data, bytes) else str(data).encode()


def decode(data: bytes, source: str) -> str:
    """`data` as UTF-8 text (a leading BOM dropped); InputError naming `source` otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{source}: not UTF-8 text (byte {error.start})") from None


def read_text_file(path: str) -> str:
    """The UTF-8 text of the file at `path`."""
    try:
        with open(path, "rb") as file:
            return decode(file.read(), path)
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None


def parse_json(text: str, source: str) -> Any:
    r"""The JSON document in `text`; InputError naming `source` and the position otherwise.

    A document no request could carry is refused here too: an integer too long for Python
    to read (over `sys.get_int_max_str_digits()` digits) and a string holding a lone
    surrogate escape such as `"\ud800"`, which is no text and cannot be sent as UTF-8.

    >>> parse_json('["\\ud800"]', "line 2")
    Traceback (most recent call last):
    groundwire.cli.errors.InputError: line 2: not valid JSON: [0] holds a lone surrogate (\ud800)
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{source}: not valid JSON: {error}") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nested too deeply") from None
    except ValueError:  # the one ValueError left: an integer of more digits than Python reads
        digits = sys.get_int_max_str_digits()
        raise InputError(f"{source}: holds an integer of more than {digits} digits") from None
    where = _lone_surrogate(document) if _MAYBE_SURROGATE.search(text) else None
    if where is not None:
        raise InputError(f"{source}: not valid JSON: {where}")
    return document


def _lone_surrogate(document: Any) -> str | None:
    """Where `document` holds a string with a lone surrogate, and which; None if nowhere.

    Walks the document with a stack (no recursion: depth is what JSON allowed).
    """
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            found = _SURROGATE.search(value)
            if found is not None:
                return f"{path or 'the document'} holds a lone surrogate (\\u{ord(found[0]):04x})"
        elif isinstance(value, dict):
            for key, item in value.items():
                if _SURROGATE.search(key) is not None:
                    return f"{path or 'the document'} has a key with a lone surrogate"
                stack.append((f"{path}.{key}" if path else key, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
    return None


def parse_fact(value: Any, where: str) -> FactLike:
    """A fact from JSON: a string, an object, or a `[text, attributes]` pair.

    An object holds the text under `text` or `fact_text`, and optional `attributes`.

    >>> parse_fact(["Tokyo is in Japan.", {"author": "atlas"}], "facts[0]")
    ('Tokyo is in Japan.', {'author': 'atlas'})
    """
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        _check_attributes(value.get("attributes"), f"{where}.attributes")
        return value
    if (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], dict)
    ):
        _check_attributes(value[1], f"{where}[1]")
        return value[0], value[1]
    raise InputError(
        f'{where}: expected text, an object with "text" and "attributes", '
        f"or a [text, attributes] pair; got {_json_kind(value)}"
    )


def _check_attributes(attributes: Any, where: str) -> None:
    if attributes is None:
        return
    if not isinstance(attributes, dict) or not all(
        isinstance(value, str) for value in attributes.values()
    ):
        raise InputError(f'{where}: expected an object of text values, e.g. {{"author": "..."}}')


def parse_facts(value: Any, where: str) -> list[FactLike]:
    """The facts of a JSON list."""
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list of facts, got {_json_kind(value)}")
    return [parse_fact(item, f"{where}[{index}]") for index, item in enumerate(value)]


def parse_fact_file(text: str, source: str) -> list[FactLike]:
    r"""The facts of a fact file: a JSON list, or plain text with one fact per paragraph.

    >>> parse_fact_file("Tokyo is in Japan.\n\nParis is\nin France.\n", "facts.txt")
    ['Tokyo is in Japan.', 'Paris is\nin France.']
    """
    stripped = text.strip()
    if stripped.startswith("["):
        return parse_facts(parse_json(stripped, source), source)
    return [p.strip() for p in _PARAGRAPH_BREAK.split(stripped) if p.strip()]


def parse_threshold(value: Any, where: str) -> float | None:
    """A citation threshold from JSON: a number (or null)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"{where}: expected a number between 0 and 1, got {value!r}")
    return float(value)


def parse_labels(pairs: Sequence[str]) -> dict[str, str]:
    """Labels from `key=value` flags.

    >>> parse_labels(["team=search", "env=dev"])
    {'team': 'search', 'env': 'dev'}
    """
    labels: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--label {pair!r}: expected KEY=VALUE")
        labels[key] = value
    return labels


def grounding_input_from_json(
    document: Any, text_keys: Sequence[str], source: str
) -> GroundingInput:
    """One request's input from a JSON object; keys other than those below are ignored.

    The text is under the first of `text_keys` present; `facts` is required and
    `citation_threshold` optional.

    >>> grounding_input_from_json({"answer": "Hi.", "facts": ["Hi."]}, ANSWER_KEYS, "stdin")
    GroundingInput(text='Hi.', facts=['Hi.'], citation_threshold=None)
    """
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a JSON object, got {_json_kind(document)}")
    key = next((k for k in text_keys if k in document), None)
    if key is None:
        raise InputError(f"{source}: missing {' or '.join(repr(k) for k in text_keys)}")
    text = document[key]
    if not isinstance(text, str):
        raise InputError(f"{source}: {key!r} must be text, got {_json_kind(text)}")
    if "facts" not in document:
        raise InputError(f"{source}: missing 'facts' (a list of facts)")
    return GroundingInput(
        text,
        parse_facts(document["facts"], f"{source}: facts"),
        parse_threshold(document.get("citation_threshold"), f"{source}: citation_threshold"),
    )


@dataclass(frozen=True)
class InputFlags:
    """What a check or corroborate command was given on its command line."""

    text: str | None
    text_file: str | None
    facts: Sequence[str]
    fact_files: Sequence[str]
    citation_threshold: float | None


def gather_input(
    flags: InputFlags, stdin: IO[Any] | None, text_keys: Sequence[str], noun: str
) -> GroundingInput:
    """The input of one check or corroboration, from flags, files, or JSON on stdin.

    The text comes from the text flag, else the text file, else a JSON document on stdin
    (when stdin is not a terminal); facts from the JSON come first, then `--fact` flags, then
    fact files. A threshold flag wins over one in the JSON.
    """
    facts: list[FactLike] = []
    threshold = None
    if flags.text is not None and flags.text_file is not None:
        raise InputError(f"give --{noun} or --{noun}-file, not both")
    if flags.text is not None:
        text = flags.text
    elif flags.text_file is not None:
        text = read_text_file(flags.text_file)
    else:
        document = _stdin_document(stdin, noun)
        from_json = grounding_input_from_json(document, text_keys, "stdin")
        text, facts, threshold = from_json.text, from_json.facts, from_json.citation_threshold
    facts.extend(flags.facts)
    for path in flags.fact_files:
        facts.extend(parse_fact_file(read_text_file(path), path))
    if flags.citation_threshold is not None:
        threshold = flags.citation_threshold
    return GroundingInput(text, facts, threshold)


def _stdin_document(stdin: IO[Any] | None, noun: str) -> Any:
    missing = f"no {noun}: pass --{noun} TEXT, --{noun}-file PATH, or a JSON object on stdin"
    if stdin is None or _is_terminal(stdin):
        raise InputError(missing)
    try:
        data = read_bytes(stdin)
    except (OSError, ValueError):
        raise InputError(missing) from None
    text = decode(data, "stdin")
    if not text.strip():
        raise InputError(missing + " (stdin was empty)")
    return parse_json(text, "stdin")


def _is_terminal(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def add_fact_options(group: Any, fact: str) -> None:
    """The repeatable `--fact TEXT` (described as `fact`) and `--fact-file PATH` flags."""
    group.add_argument(
        "--fact",
        dest="facts",
        action="append",
        default=[],
        metavar="TEXT",
        help=f"{fact} (repeatable)",
    )
    group.add_argument(
        "--fact-file",
        dest="fact_files",
        action="append",
        default=[],
        metavar="PATH",
        help="facts from a file: one per paragraph, or a JSON list (repeatable)",
    )


def add_input_options(parser: argparse.ArgumentParser, noun: str) -> None:
    """The flags that give a check or corroboration its text and facts."""
    group = parser.add_argument_group("input (flags, files, or a JSON object on stdin)")
    group.add_argument(f"--{noun}", dest="text", metavar="TEXT", help=f"the {noun} text")
    group.add_argument(
        f"--{noun}-file",
        dest="text_file",
        metavar="PATH",
        help=f"read the {noun} from a UTF-8 file",
    )
    add_fact_options(group, "a fact")
    group.add_argument(
        "--citation-threshold",
        type=float,
        metavar="0..1",
        help="higher gives fewer, stronger citations (service default: 0.6)",
    )


def input_flags(args: argparse.Namespace) -> InputFlags:
    """The input flags `add_input_options` defined, as parsed."""
    return InputFlags(
        text=args.text,
        text_file=args.text_file,
        facts=args.facts,
        fact_files=args.fact_files,
        citation_threshold=args.citation_threshold,
    )
