"""The blocking REST transport (JSON over HTTP/1.1), for networks where gRPC cannot pass.

Also what the asyncio REST transport shares: the URL and header rules, decoding of response
bodies and stream elements, and the translation of httpx failures into `GroundwireError`.
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import httpx
from google.auth.credentials import Credentials
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.errors import (
    DeadlineExceeded,
    GroundwireError,
    Internal,
    Unavailable,
    Unknown,
    error_from_http,
)
from groundwire.core.jsonstream import JsonArrayStream
from groundwire.core.transcoding import decode_message, encode_request, encode_stream_request
from groundwire.transports.auth import AccessTokens
from groundwire.transports.base import ConnectionFailure, Metadata, refuse_plaintext

# Enums as numbers, like Google's own REST clients: values newer than our stubs survive.
SYSTEM_QUERY = "?%24alt=json%3Benum-encoding%3Dint"
DEFAULT_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=100,
                              keepalive_expiry=30.0)
_EXCERPT = 120


def base_url_for(base_url: str, credentials: Credentials | None) -> str:
    """Checks and normalises a base URL: https, or http to loopback without credentials.

    Example:
        >>> base_url_for("https://discoveryengine.googleapis.com/", None)
        'https://discoveryengine.googleapis.com'
    """
    url = httpx.URL(base_url)
    if url.scheme == "http":
        refuse_plaintext(f"REST base URL {base_url}", url.host, credentials is not None)
    elif url.scheme != "https":
        raise ValueError(f"REST base URL {base_url}: use https:// (or http:// to loopback)")
    if url.query or url.fragment:
        raise ValueError(f"REST base URL {base_url}: no query or fragment allowed")
    return str(url).rstrip("/")


def request_headers(metadata: Metadata) -> dict[str, str]:
    """The HTTP headers of a call: JSON content type plus the client's metadata."""
    headers = {"content-type": "application/json"}
    headers.update(metadata)
    return headers


def decode_response(method: Method, body: bytes) -> Message:
    """Decodes a 2xx body; anything but the response message raises `Internal`."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise Internal(f"{method.name} answered with a body that is not valid JSON "
                       f"({error}){excerpt(body)}") from None
    return _message_from(method, parsed, body)


def decode_element(method: Method, element: bytes, headers: Mapping[str, str]) -> Message:
    """Decodes one element of a streamed array; an `{"error": ...}` element raises it."""
    try:
        parsed = json.loads(element)
    except (ValueError, RecursionError) as error:
        raise Internal(f"{method.name} streamed an element that is not valid JSON "
                       f"({error}){excerpt(element)}") from None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) and len(parsed) == 1:
        status = parsed["error"].get("code")
        raise error_from_http(status if isinstance(status, int) else 500, element, headers)
    return _message_from(method, parsed, element)


def _message_from(method: Method, parsed: Any, body: bytes) -> Message:
    name = method.response_class.DESCRIPTOR.name
    if not isinstance(parsed, dict):
        raise Internal(f"{method.name} answered with a JSON {type(parsed).__name__} instead of "
                       f"a {name} object{excerpt(body)}")
    try:
        return decode_message(parsed, method.response_class)
    except GroundwireError as error:
        raise Internal(f"{method.name} answered with a {name} that does not fit its schema: "
                       f"{error.message}") from None


def excerpt(body: bytes) -> str:
    """A short single-line excerpt of a body, for error messages."""
    text = " ".join(body[: _EXCERPT * 4].decode("utf-8", "replace").split())
    if not text:
        return " (empty body)"
    return f": {text[:_EXCERPT]}…" if len(text) > _EXCERPT else f": {text}"


def error_from_exception(error: httpx.HTTPError) -> GroundwireError:
    """The GroundwireError for an httpx failure (no connection, timeout, dropped connection).

    Example:
        >>> type(error_from_exception(httpx.ConnectError("refused"))).__name__
        'ConnectionFailure'
    """
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return ConnectionFailure(f"could not connect: {text}")
    if isinstance(error, httpx.TimeoutException):
        return DeadlineExceeded(f"the attempt's timeout passed: {text}")
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return Unavailable(f"the connection dropped: {text}")
    if isinstance(error, httpx.DecodingError):
        return Internal(f"the response could not be decoded: {text}")
    if isinstance(error, httpx.TransportError):
        return Unavailable(text)
    return Unknown(text)


def stream_deadline_error(timeout: float | None) -> DeadlineExceeded:
    """The error for a stream still running when its timeout has passed."""
    return DeadlineExceeded(f"the stream ran past its timeout of {timeout} s")


class RestTransport:
    """Calls over a keep-alive pool of HTTP/1.1 connections; thread-safe.

    `base_url` is `https://host` (or `http://127.0.0.1:port` for a local emulator, without
    credentials). With credentials every call carries `Authorization: Bearer`, refreshed when
    it expires. `ssl_context` replaces the system's certificate checks (a corporate CA).

    A stream is one POST whose body is the JSON array of all requests, so `requests` is read
    to its end before anything is sent; responses are yielded as the array arrives. The
    timeout bounds each phase (connect, send, every read) and, for a stream, its whole run.

    Example:
        >>> transport = RestTransport("http://127.0.0.1:8080", credentials=None)
        >>> transport.close()
    """

    def __init__(self, base_url: str, *, credentials: Credentials | None,
                 ssl_context: ssl.SSLContext | None = None,
                 limits: httpx.Limits = DEFAULT_LIMITS) -> None:
        self.base_url = base_url_for(base_url, credentials)
        self._tokens = None if credentials is None else AccessTokens(credentials)
        self._client = httpx.Client(limits=limits, follow_redirects=False,
                                    verify=True if ssl_context is None else ssl_context)

    def unary(self, method: Method, request: Message, *, timeout: float | None,
              metadata: Metadata) -> Message:
        """POSTs the transcoded request; returns the decoded response."""
        http_request = encode_request(method, request)
        url = self.base_url + http_request.path + SYSTEM_QUERY
        headers = request_headers(metadata)
        if self._tokens is not None:
            self._tokens.apply(headers, url)
        try:
            response = self._client.request(http_request.verb, url, content=http_request.body,
                                            headers=headers, timeout=timeout)
        except httpx.HTTPError as error:
            raise error_from_exception(error) from None
        if not response.is_success:
            raise error_from_http(response.status_code, response.content, response.headers)
        return decode_response(method, response.content)

    def stream(self, method: Method, requests: Iterable[Message], *, timeout: float | None,
               metadata: Metadata) -> Iterator[Message]:
        """POSTs all requests as one JSON array; yields each response as its JSON completes."""
        http_request = encode_stream_request(method, requests)
        url = self.base_url + http_request.path + SYSTEM_QUERY
        headers = request_headers(metadata)
        if self._tokens is not None:
            self._tokens.apply(headers, url)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            with self._client.stream(http_request.verb, url, content=http_request.body,
                                     headers=headers, timeout=timeout) as response:
                if not response.is_success:
                    raise error_from_http(response.status_code, response.read(),
                                          response.headers)
                elements = JsonArrayStream()
                for chunk in response.iter_bytes():
                    for element in elements.feed(chunk):
                        yield decode_element(method, element, response.headers)
                    if deadline is not None and time.monotonic() > deadline:
                        raise stream_deadline_error(timeout)
                elements.close()
        except httpx.HTTPError as error:
            raise error_from_exception(error) from None

    def close(self) -> None:
        """Closes the connection pool and the token adapter."""
        self._client.close()
        if self._tokens is not None:
            self._tokens.close()
