"""OAuth tokens for every transport, fetched over `http1` (no `requests` needed).

`TokenRequest` is google-auth's HTTP adapter; `AccessTokens` puts a token on a call,
refreshing it once for all threads. Nothing here logs a token.
"""

from __future__ import annotations

import copy
import threading
import time
import urllib.parse
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from google.auth import exceptions as auth_exceptions
from google.auth import transport as auth_transport
from google.auth.credentials import Credentials

from groundwire.contract.errors import (
    DeadlineExceeded,
    EndpointError,
    GroundwireError,
    Unauthenticated,
    Unavailable,
)

if TYPE_CHECKING:
    from groundwire.transports.http1 import ConnectionPool

_TOKEN_TIMEOUT = 30.0


class _Response(auth_transport.Response):
    """A finished HTTP response, as google-auth reads it."""

    status: int = 0
    headers: Mapping[str, str] = {}
    data: bytes = b""

    def __init__(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
        self.status, self.headers, self.data = status, headers, data


class TokenRequest(auth_transport.Request):
    """google-auth's HTTP interface for fetching tokens; thread-safe, one pool per origin.

    Example:
        >>> import google.oauth2.credentials
        >>> request = TokenRequest()
        >>> credentials = google.oauth2.credentials.Credentials(token="t")
        >>> credentials.refresh(request)  # doctest: +SKIP
        >>> request.close()
    """

    def __init__(self) -> None:
        self._pools: dict[tuple[str, str, int | None], ConnectionPool] = {}
        self._lock = threading.Lock()
        self._deadline: float | None = None  # set on the copies `until` makes

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _Response:
        """Sends one request; any failure is a google.auth TransportError, as google-auth wants."""
        from groundwire.transports.http1 import WIRE_ERRORS

        timeout = _TOKEN_TIMEOUT if timeout is None else timeout
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise auth_exceptions.TransportError(  # type: ignore[no-untyped-call]
                    f"token request to {url} not sent: the call's timeout has passed"
                )
            timeout = min(left, timeout)
        parts = urllib.parse.urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if isinstance(body, str):
            body = body.encode()
        try:
            response = self._pool(parts).request(method, target, body, headers or {}, timeout)
            data = response.read()
        except (*WIRE_ERRORS, ValueError) as error:
            raise auth_exceptions.TransportError(  # type: ignore[no-untyped-call]
                f"token request to {url} failed: {type(error).__name__}: {error}"
            ) from error
        return _Response(response.status, response.headers, data)

    def until(self, deadline: float | None) -> TokenRequest:
        """This adapter, its requests cut short at `deadline` (a copy sharing its connections).

        Example:
            >>> request = TokenRequest()
            >>> request.until(None) is request
            True
        """
        if deadline is None:
            return self
        bounded = copy.copy(self)
        bounded._deadline = deadline
        return bounded

    def close(self) -> None:
        """Closes the connections this adapter opened."""
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()

    def abandon(self) -> None:
        """Closes, in this process only, connections inherited across `os.fork()`."""
        pools, self._pools = list(self._pools.values()), {}
        self._lock = threading.Lock()  # a thread of the parent's may have held it
        for pool in pools:
            pool.abandon()

    def _pool(self, parts: urllib.parse.SplitResult) -> ConnectionPool:
        from groundwire.transports.http1 import ConnectionPool

        key = (parts.scheme, parts.hostname or "", parts.port)
        with self._lock:
            pool = self._pools.get(key)
            if pool is None:
                pool = self._pools[key] = ConnectionPool(*key)
            return pool


class AccessTokens:
    """Adds `authorization` (and any quota project) headers from google-auth credentials.

    Thread-safe: one thread refreshes an expired token while the others wait.

    Example:
        >>> import google.oauth2.credentials
        >>> tokens = AccessTokens(google.oauth2.credentials.Credentials(token="t"))
        >>> headers = {}
        >>> tokens.apply(headers, "https://discoveryengine.googleapis.com/v1/x")
        >>> headers["authorization"] == "Bearer t"
        True
    """

    def __init__(self, credentials: Credentials) -> None:
        self.credentials = credentials
        self.request = TokenRequest()
        self._lock = threading.Lock()

    def needs_refresh(self) -> bool:
        """Whether the token is missing or expired (an async caller refreshes in a thread)."""
        return not self.credentials.valid

    def refresh(self, timeout: float | None = None) -> None:
        """Refreshes the token unless another thread just did; failures as GroundwireError.

        `timeout` (None: the adapter's own, per request) bounds the wait and the token
        requests; past it, DeadlineExceeded.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._lock.acquire(timeout=-1 if timeout is None else max(timeout, 0)):
            raise _token_deadline_error(timeout)
        try:
            if self.credentials.valid:
                return
            try:
                self.credentials.refresh(  # type: ignore[no-untyped-call]
                    self.request.until(deadline)
                )
            except Exception as error:
                if deadline is not None and time.monotonic() >= deadline:
                    raise _token_deadline_error(timeout) from None
                raise auth_error(error) from None
        finally:
            self._lock.release()

    def apply(
        self, headers: MutableMapping[str, str], url: str, timeout: float | None = None
    ) -> None:
        """Adds the credentials' headers to `headers`, refreshing the token within `timeout`.

        Raises EndpointError (a ValueError) for a `url` that is not https: credentials travel
        only over TLS.
        """
        if urllib.parse.urlsplit(url).scheme.lower() != "https":
            raise EndpointError(
                f"refusing to attach credentials to {url.partition('?')[0]}: "
                "credentials travel only over TLS (https://)"
            )
        if self.needs_refresh():
            self.refresh(timeout)
        try:
            self.credentials.before_request(  # type: ignore[no-untyped-call]
                self.request, "POST", url, headers
            )
        except Exception as error:
            raise auth_error(error) from None

    def close(self) -> None:
        """Closes the token endpoint's connection pool."""
        self.request.close()


def _token_deadline_error(timeout: float | None) -> DeadlineExceeded:
    return DeadlineExceeded(
        f"the attempt's timeout of {timeout} s passed while getting an access token"
    )


def auth_error(error: Exception) -> GroundwireError:
    """The GroundwireError for a failure to get a token (never including the token)."""
    if isinstance(error, GroundwireError):
        return error
    text = f"could not get an access token: {type(error).__name__}: {error}"
    if isinstance(error, auth_exceptions.TransportError) or getattr(error, "retryable", False):
        return Unavailable(text)
    return Unauthenticated(text)
