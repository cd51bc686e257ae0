"""Cassettes: recorded exchanges with an API, as JSON lines that a replay answers from.

A cassette's first line is its header, `{"groundwireCassette": 1, ...}` (the format's
version, when and from where it was recorded). Every other line is one exchange:

    {"method": "google.cloud.discoveryengine.v1.GroundedGenerationService/CheckGrounding",
     "transport": "grpc", "time": "2026-12-02T07:40:00.000Z",
     "request": {"groundingConfig": "...", "answerCandidate": "..."},
     "response": {"supportScore": 0.25}, "delayMs": 180}

The request in Google's JSON, then its outcome as a stub spells one (`outcomes`): a
`response`, an `error` or a `stream` of pieces, each with the `delayMs` it came after. No
metadata is kept: credentials and cookies never reach the file.

`read_cassette` checks every line at start-up and refuses a corrupt one, naming it; a torn
last line (one without its newline that does not parse: a recorder stopped mid-write) is
dropped with a warning, as `groundwire batch` drops the torn last line of its output.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from groundwire.contract.apis import Method, all_methods
from groundwire.contract.errors import ConfigurationError, GroundwireError
from groundwire.emulator.outcomes import Outcome, outcome_from_json, outcome_to_json
from groundwire.features.records import record_line

VERSION = 1
"""The cassette format's version, in its header line."""

_log = logging.getLogger(__name__)
_EXCHANGE_FIELDS = frozenset(
    {"method", "transport", "time", "request", "response", "error", "stream", "delayMs"}
)


@dataclass(frozen=True)
class Exchange:
    """One recorded call: its method, its request and how it was answered.

    `line` is where it stands in its cassette (1 is the header), for error messages.
    """

    method: Method
    request: dict[str, Any]
    outcome: Outcome
    line: int = 0


def request_key(request: Mapping[str, Any]) -> str:
    """The request's content as one text, blind to the order of its fields.

    Example:
        >>> request_key({"b": 1, "a": [2, 1]}) == request_key({"a": [2, 1], "b": 1})
        True
    """
    return json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def header_line(upstream: str) -> bytes:
    r"""The header line of a cassette recorded from `upstream`.

    Example:
        >>> header_line("127.0.0.1:50051")[:24]
        b'{"groundwireCassette":1,'
    """
    return record_line({"groundwireCassette": VERSION, "recorded": _now(), "upstream": upstream})


def exchange_line(exchange: Exchange, transport: str) -> bytes:
    r"""The cassette line of `exchange`, received over `transport` (grpc or rest).

    Example:
        >>> from groundwire.contract.apis import method
        >>> from groundwire.emulator.outcomes import Piece
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> response = check.response_class(support_score=0.5)
        >>> line = exchange_line(Exchange(check, {}, Outcome((Piece(response),))), "rest")
        >>> json.loads(line)["response"]
        {'supportScore': 0.5}
    """
    return record_line(
        {
            "method": exchange.method.grpc_path.lstrip("/"),
            "transport": transport,
            "time": _now(),
            "request": exchange.request,
            **outcome_to_json(exchange.outcome),
        }
    )


def read_cassette(path: str | os.PathLike[str]) -> list[Exchange]:
    """The exchanges of the cassette at `path`, every line checked; `ConfigurationError` if not.

    A corrupt line is refused, naming it; only a torn last line is dropped, with a warning.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ConfigurationError(f"cassette {os.fspath(path)}: {error.strerror or error}") from None
    lines = data.splitlines(keepends=True)
    if lines and not lines[-1].endswith(b"\n") and _parses(lines[-1]) is None:
        _log.warning(
            "cassette %s: dropped a torn last line %d (%d bytes) from an interrupted recording",
            os.fspath(path),
            len(lines),
            len(lines[-1]),
        )
        lines.pop()
    if not lines:
        raise ConfigurationError(f"cassette {os.fspath(path)}: is empty; it needs a header line")
    _check_header(path, lines[0])
    methods = {method.grpc_path.lstrip("/"): method for method in all_methods()}
    return [_exchange(path, number, raw, methods) for number, raw in enumerate(lines[1:], start=2)]


class CassetteWriter:
    """Appends exchanges to a new cassette, one whole line at a time; safe across threads."""

    def __init__(self, path: str | os.PathLike[str], upstream: str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            with self.path.open("xb") as file:
                file.write(header_line(upstream))
        except FileExistsError:
            raise ConfigurationError(
                f"cassette {self.path}: already exists; remove it to record again, or record "
                "to another file"
            ) from None
        except OSError as error:
            raise ConfigurationError(f"cassette {self.path}: {error.strerror or error}") from None

    def write(self, exchange: Exchange, transport: str) -> None:
        """Appends `exchange` as one line, flushed before it returns."""
        line = exchange_line(exchange, transport)
        with self._lock, self.path.open("ab") as file:
            file.write(line)


def _check_header(path: str | os.PathLike[str], raw: bytes) -> None:
    header = _parses(raw)
    if not isinstance(header, dict) or "groundwireCassette" not in header:
        raise ConfigurationError(
            f"cassette {os.fspath(path)}: line 1 is no cassette header "
            '({"groundwireCassette": 1, ...})'
        )
    if header["groundwireCassette"] != VERSION:
        raise ConfigurationError(
            f"cassette {os.fspath(path)}: line 1: version {header['groundwireCassette']!r} "
            f"is not one this groundwire reads ({VERSION})"
        )


def _exchange(
    path: str | os.PathLike[str], number: int, raw: bytes, methods: Mapping[str, Method]
) -> Exchange:
    where = f"cassette {os.fspath(path)}: line {number}"
    data = _parses(raw)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{where}: is not a JSON object (a corrupt or cut line)")
    unknown = sorted(set(data) - _EXCHANGE_FIELDS)
    if unknown:
        raise ConfigurationError(f"{where}: {unknown[0]!r} is not a field of an exchange")
    method = methods.get(str(data.get("method", "")).lstrip("/"))
    if method is None:
        raise ConfigurationError(
            f"{where}: method {data.get('method')!r} is no RPC groundwire knows"
        )
    request = method.request_class()
    try:
        json_format.ParseDict(data.get("request", {}), request)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        message = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        raise ConfigurationError(f"{where}: request: {message}") from None
    outcome_fields = {
        key: data[key] for key in ("response", "error", "stream", "delayMs") if key in data
    }
    try:
        outcome = outcome_from_json(method, outcome_fields)
    except GroundwireError as error:
        raise ConfigurationError(f"{where}: {error.message}") from None
    return Exchange(method, json_format.MessageToDict(request), outcome, number)


def _parses(raw: bytes) -> Any:
    """The JSON of one line, or None when it is not JSON."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _now() -> str:
    now = datetime.datetime.now(datetime.UTC)
    return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
