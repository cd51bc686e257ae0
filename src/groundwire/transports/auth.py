"""OAuth tokens for every transport, refreshed over httpx (the `requests` package is not needed).

google-auth talks to token endpoints through a `google.auth.transport.Request`; `HttpxRequest`
is that adapter. `AccessTokens` puts a token on a call, refreshing it once for all threads
when it has expired. Nothing here logs a token.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, MutableMapping
from typing import Any

import httpx
from google.auth import exceptions as auth_exceptions
from google.auth import transport as auth_transport
from google.auth.credentials import Credentials

from groundwire.core.errors import GroundwireError, Unauthenticated, Unavailable

_TOKEN_TIMEOUT = 30.0


class _Response(auth_transport.Response):
    """A finished HTTP response, as google-auth reads it."""

    def __init__(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
        self._status, self._headers, self._data = status, headers, data

    @property
    def status(self) -> int:
        return self._status

    @property
    def headers(self) -> Mapping[str, str]:
        return self._headers

    @property
    def data(self) -> bytes:
        return self._data


class HttpxRequest(auth_transport.Request):
    """google-auth's HTTP interface over a (thread-safe) httpx.Client, used to fetch tokens.

    Example:
        >>> import google.oauth2.credentials
        >>> request = HttpxRequest()
        >>> credentials = google.oauth2.credentials.Credentials(token="t")
        >>> credentials.refresh(request)  # doctest: +SKIP
    """

    def __init__(self, client: httpx.Client | None = None, *,
                 timeout: float = _TOKEN_TIMEOUT) -> None:
        self._client = client
        self._owns_client = client is None
        self._timeout = timeout
        self._lock = threading.Lock()

    def __call__(self, url: str, method: str = "GET", body: bytes | None = None,
                 headers: Mapping[str, str] | None = None, timeout: float | None = None,
                 **kwargs: Any) -> _Response:
        """Sends one request; any failure is a google.auth TransportError, as google-auth wants."""
        try:
            response = self._http().request(method, url, content=body, headers=headers,
                                            timeout=self._timeout if timeout is None else timeout)
        except httpx.HTTPError as error:
            raise auth_exceptions.TransportError(  # type: ignore[no-untyped-call]
                f"token request to {url} failed: {type(error).__name__}: {error}") from error
        return _Response(response.status_code, response.headers, response.content)

    def close(self) -> None:
        """Closes the connection pool this adapter opened (not one it was given)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None and self._owns_client:
            client.close()

    def _http(self) -> httpx.Client:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = httpx.Client(follow_redirects=False)
                client = self._client
        return client


class AccessTokens:
    """Adds `authorization` (and any quota project) headers from google-auth credentials.

    Thread-safe: when the token has expired, one thread refreshes it and the others wait.

    Example:
        >>> import google.oauth2.credentials
        >>> tokens = AccessTokens(google.oauth2.credentials.Credentials(token="t"))
        >>> headers = {}
        >>> tokens.apply(headers, "https://discoveryengine.googleapis.com/v1/x")
        >>> headers["authorization"] == "Bearer t"
        True
    """

    def __init__(self, credentials: Credentials, request: HttpxRequest | None = None) -> None:
        self.credentials = credentials
        self.request = request or HttpxRequest()
        self._lock = threading.Lock()

    def needs_refresh(self) -> bool:
        """Whether the token is missing or expired (an async caller refreshes in a thread)."""
        return not self.credentials.valid

    def refresh(self) -> None:
        """Refreshes the token unless another thread has just done so; failures as errors."""
        with self._lock:
            if self.credentials.valid:
                return
            try:
                self.credentials.refresh(self.request)  # type: ignore[no-untyped-call]
            except Exception as error:
                raise auth_error(error) from None

    def apply(self, headers: MutableMapping[str, str], url: str) -> None:
        """Adds the credentials' headers to `headers`, refreshing the token first if needed."""
        if self.needs_refresh():
            self.refresh()
        try:
            self.credentials.before_request(  # type: ignore[no-untyped-call]
                self.request, "POST", url, headers)
        except Exception as error:
            raise auth_error(error) from None

    def close(self) -> None:
        """Closes the token endpoint's connection pool."""
        self.request.close()


def auth_error(error: Exception) -> GroundwireError:
    """The GroundwireError for a failure to get a token (never including the token)."""
    if isinstance(error, GroundwireError):
        return error
    text = f"could not get an access token: {type(error).__name__}: {error}"
    if isinstance(error, auth_exceptions.TransportError) or getattr(error, "retryable", False):
        return Unavailable(text)
    return Unauthenticated(text)
