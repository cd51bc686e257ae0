"""The admin API on the REST port: stubs and the request journal, for tests in any language.

Served under `/groundwire/v1/`, a prefix no Google path uses, and never on the gRPC port:

* `POST /groundwire/v1/stubs` with a stub (`stubs.parse_stub`) registers it and answers it
  back with its `id`; `GET` lists the stubs in the order they are tried (each with
  `answered`, the calls it took); `DELETE` removes them all, `DELETE .../stubs/{id}` one.
* `GET /groundwire/v1/requests` lists the journal, oldest first (`?method=CheckGrounding`
  or a full gRPC name filters, `?after=N` keeps entries numbered above N), with `last`, the
  number of the last call received; `DELETE` clears it. A page shows at most `pageSize`
  entries (1,000 at most and by default) and 16 MiB of them; `nextPageToken`, when more
  follow, goes back as `pageToken` for the next page.

Answers are JSON; a malformed stub gets Google's JSON error body (400) naming the bad field.
No browser drives it: a request naming an `Origin` not allowed (`serve --cors-origin`) is
refused with 403, and one with a body must say `Content-Type: application/json` (else 415),
which a page can send to another origin only after a CORS preflight. The Host check is the
REST port's (`cors.with_host_check`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qs

from groundwire.contract.errors import (
    FailedPrecondition,
    GroundwireError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unimplemented,
    bad_request,
)
from groundwire.emulator.browsers import json_content_type, origin_allowed
from groundwire.emulator.http_server import Handler, HttpRequest, Reply
from groundwire.emulator.journal import PAGE_ENTRIES
from groundwire.emulator.stubs import parse_stub, stub_size
from groundwire.wire.error_codecs import error_to_json

PREFIX = "/groundwire/v1/"
STUBS = PREFIX + "stubs"
REQUESTS = PREFIX + "requests"
_JSON_REPLY = [("Content-Type", "application/json; charset=utf-8")]
_T = TypeVar("_T")


class AdminApi:
    """Serves the admin paths over a stub book and a journal (local, or a manager's proxies).

    `journal` is None when the journal is off (`serve --journal 0`); `origins` are the web
    origins allowed to call it (`serve --cors-origin`).
    """

    def __init__(self, book: Any, journal: Any | None, origins: Sequence[str] = ()) -> None:
        self.book = book
        self.journal = journal
        self.origins = frozenset(origins)

    async def __call__(self, request: HttpRequest, reply: Reply) -> None:
        """Answers one admin request with JSON, or Google's JSON error."""
        try:
            status, document = await self._answer(request)
        except GroundwireError as error:
            await reply.send(error.http_status, _JSON_REPLY, error_to_json(error))
            return
        body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
        await reply.send(status, _JSON_REPLY, body)

    async def _answer(self, request: HttpRequest) -> tuple[int, Any]:
        self._check_browser(request)
        path, verb = request.path.rstrip("/"), request.method
        if path == STUBS:
            if verb == "POST":
                stub = parse_stub(_json_body(request.body))
                return 200, await _off_loop(self.book.add, stub, stub_size(stub))
            if verb == "GET":
                return 200, {"stubs": await _off_loop(self.book.stubs)}
            if verb == "DELETE":
                await _off_loop(self.book.clear)
                return 200, {}
            raise _not_allowed(verb, path, "GET, POST, DELETE")
        if path.startswith(STUBS + "/"):
            if verb != "DELETE":
                raise _not_allowed(verb, path, "DELETE")
            stub_id = path.removeprefix(STUBS + "/")
            if not await _off_loop(self.book.remove, stub_id):
                raise NotFound(f"there is no stub {stub_id!r}")
            return 200, {}
        if path == REQUESTS:
            if self.journal is None:
                raise FailedPrecondition("the journal is off: serve without --journal 0")
            if verb == "GET":
                return 200, await _off_loop(self.journal.page, *_journal_query(request.query))
            if verb == "DELETE":
                await _off_loop(self.journal.clear)
                return 200, {}
            raise _not_allowed(verb, path, "GET, DELETE")
        raise NotFound(f"the admin API has nothing at {verb} {path}")

    def _check_browser(self, request: HttpRequest) -> None:
        """Refuses what only a web page of another origin would send (see the module's text)."""
        if not origin_allowed(request.headers.get("origin"), self.origins):
            raise PermissionDenied(
                "the admin API does not answer web pages of this Origin; allow one with "
                "serve --cors-origin ORIGIN"
            )
        if (request.body or request.method == "POST") and not json_content_type(
            request.headers.get("content-type")
        ):
            raise InvalidArgument(
                "the admin API takes JSON: send Content-Type: application/json",
                http_status=415,
            )


def with_admin(handler: Handler, admin: AdminApi | None) -> Handler:
    """`handler`, with the paths under `PREFIX` answered by `admin` (404 when it is off)."""

    async def routed(request: HttpRequest, reply: Reply) -> None:
        if not request.path.startswith(PREFIX):
            await handler(request, reply)
        elif admin is None:
            error = NotFound(
                "the admin API is off: it is served on loopback, or with serve --admin"
            )
            await reply.send(error.http_status, _JSON_REPLY, error_to_json(error))
        else:
            await admin(request, reply)

    return routed


async def _off_loop(function: Callable[..., _T], *args: Any) -> _T:
    """Runs a call on the book or journal in a thread: across processes it waits on a pipe."""
    return await asyncio.to_thread(function, *args)


def _json_body(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise bad_request([("body", str(error)[:200])], "the body is not JSON") from None


def _journal_query(query: str) -> tuple[str | None, int, int]:
    """The method, the number to list after, and the page size a journal query asks for."""
    fields = parse_qs(query)
    method = fields.get("method", [None])[-1]
    after = _whole_number(fields, "after", "an entry number", 0)
    token = _whole_number(fields, "pageToken", "a nextPageToken", 0)
    size = _whole_number(fields, "pageSize", f"from 1 to {PAGE_ENTRIES}", PAGE_ENTRIES)
    if not 1 <= size <= PAGE_ENTRIES:
        raise bad_request([("pageSize", f"must be from 1 to {PAGE_ENTRIES}")], "bad pageSize")
    return method, max(after, token), size


def _whole_number(fields: dict[str, list[str]], name: str, what: str, default: int) -> int:
    text = fields.get(name, [str(default)])[-1]
    if not text.isdigit() or len(text) > 18:
        raise bad_request([(name, f"must be {what}")], f"{name}={text[:40]!r}")
    return int(text)


def _not_allowed(verb: str, path: str, allowed: str) -> Unimplemented:
    return Unimplemented(f"{verb} is not allowed on {path}; use {allowed}", http_status=405)
