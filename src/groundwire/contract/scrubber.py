"""Keeps credentials out of error messages, error details, logs and spans: the one scrubber.

Patterns catch what looks like a credential; a client's own current access token is removed
wherever it stands, as a server that echoes it back bare shows no shape a pattern could know.
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.protobuf.message import Message

REDACTED = "[REDACTED]"
_SHORTEST_TOKEN = 8  # shorter "tokens" are test stand-ins; replacing them would garble text

_token_holders: tuple[weakref.ref[Any], ...] = ()
_token_holders_lock = threading.Lock()


@functools.cache
def _secret_pattern() -> re.Pattern[str]:
    """Compiled on first use, so importing this module compiles no regular expression.

    Shapes: a named secret or an auth scheme and its value, a cookie header to the end of its
    line, a URL's password, and tokens recognisable on their own. The scheme matches in any
    case (RFC 7235), but spelled other than `Bearer` its value must hold a digit or a token's
    punctuation, so that "the bearer of bad news" stays prose.
    """
    return re.compile(
        r"(?i)(?P<name>\b(?:(?:proxy-)?authorization|x-goog-api-key|access_token|refresh_token"
        r"|id_token|token|client_secret|password|api_?key)[\"']?\s*[:=]\s*[\"']?|[?&]key="
        r"|\b(?-i:Bearer)\s+|\bbearer\s+(?=[^\"'&\s,;}]*[\d._~+/=-]))"
        r"(?:(?:bearer|basic)\s+)?[^\"'&\s,;}]+"
        r"|(?P<cookie>\b(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?)[^\r\n\"'}]+"
        r"|(?P<user>://[^/\s:@]*:)[^/\s@]+@"
        r"|ya29\.[\w.-]+|AIza[\w-]{20,}|\beyJ[\w-]+\.[\w-]+\.[\w-]*|\b1//[\w-]{20,}"
    )


def _redacted(found: re.Match[str]) -> str:
    if found["user"] is not None:
        return found["user"] + REDACTED + "@"
    return (found["name"] or found["cookie"] or "") + REDACTED


def scrub_secrets(text: str) -> str:
    """Replace anything that looks like a credential, and the tokens of `scrub_tokens_of`.

    Example:
        >>> scrub_secrets("Authorization: Bearer ya29.a0AfH6SM")
        'Authorization: [REDACTED]'
        >>> scrub_secrets("BEARER opaque-value, via http://proxy-user:hunter2@proxy.example")
        'BEARER [REDACTED], via http://proxy-user:[REDACTED]@proxy.example'
    """
    text = _secret_pattern().sub(_redacted, text)
    for token in _current_tokens():
        if token in text:
            text = text.replace(token, REDACTED)
    return text


def scrub_tokens_of(credentials: Any) -> None:
    """Has `scrub_secrets` remove `credentials`' current access token from any text.

    The credentials are not kept alive; their token is read at each scrub, so a refreshed
    one counts.

    Example:
        >>> import google.oauth2.credentials
        >>> credentials = google.oauth2.credentials.Credentials(token="opaque-0123456789")
        >>> scrub_tokens_of(credentials)
        >>> scrub_secrets("the server says: opaque-0123456789")
        'the server says: [REDACTED]'
    """
    global _token_holders
    with _token_holders_lock:
        alive = tuple(holder for holder in _token_holders if holder() is not None)
        if any(holder() is credentials for holder in alive):
            return
        _token_holders = (*alive, weakref.ref(credentials))


def scrub_message(message: Message) -> Message:
    """A copy of `message` (an error detail) with every string in it scrubbed.

    Example:
        >>> from google.rpc.error_details_pb2 import ErrorInfo
        >>> scrub_message(ErrorInfo(metadata={"echo": "Bearer opaque-value"})).metadata["echo"]
        'Bearer [REDACTED]'
    """
    copy = type(message)()
    copy.CopyFrom(message)
    _scrub_in_place(copy)
    return copy


def _scrub_in_place(message: Message) -> None:
    for field, value in message.ListFields():
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            for key in list(value):
                if value_field.type == value_field.TYPE_STRING:
                    value[key] = scrub_secrets(value[key])
                elif value_field.message_type is not None:
                    _scrub_in_place(value[key])
        elif field.type == field.TYPE_STRING:
            if field.is_repeated:
                value[:] = [scrub_secrets(item) for item in value]
            else:
                setattr(message, field.name, scrub_secrets(value))
        elif field.message_type is not None:
            for child in value if field.is_repeated else [value]:
                _scrub_in_place(child)


def _current_tokens() -> list[str]:
    """The current tokens of the registered credentials still alive (long enough to be real)."""
    tokens = []
    for holder in _token_holders:
        credentials = holder()
        token = getattr(credentials, "token", None)
        if isinstance(token, str) and len(token) >= _SHORTEST_TOKEN:
            tokens.append(token)
    return tokens
