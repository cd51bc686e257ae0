"""Explains "Incorrect API endpoint used": names the regional host the request needed.

Discovery Engine serves a regional data store only from that region's host.
"""

from __future__ import annotations

import re

from google.protobuf import message

from groundwire.contract.errors import GroundwireError

_INCORRECT = re.compile(r"incorrect api endpoint", re.IGNORECASE)
_GOT_REGION = re.compile(r'got\s+"([a-z0-9-]+)"\s+region', re.IGNORECASE)
_REQUEST_LOCATION = re.compile(rb"/locations/([a-z0-9-]{1,63})/")


def explain_wrong_endpoint(
    error: GroundwireError, request: message.Message | None, location: str, universe: str
) -> GroundwireError:
    """`error` with the right host added to its message, when it is a wrong-endpoint answer.

    Any other error, or one whose region cannot be told, is returned as it is.

    Example:
        >>> from groundwire.contract.errors import InvalidArgument
        >>> error = InvalidArgument('Incorrect API endpoint used. The current endpoint can '
        ...     'only serve traffic from "global" region, but got "us" region from the request.')
        >>> print(explain_wrong_endpoint(error, None, "global", "googleapis.com").message)
        ... # doctest: +ELLIPSIS
        Incorrect API endpoint used. ... Use the host of location 'us', \
us-discoveryengine.googleapis.com: create the client with location='us' (or \
endpoint='us-discoveryengine.googleapis.com').
    """
    if not _INCORRECT.search(error.message):
        return error
    region = _region(error.message, request, location)
    if region is None:
        return error
    host = f"{region}-discoveryengine.{universe}"
    hint = (
        f" Use the host of location {region!r}, {host}: create the client with "
        f"location={region!r} (or endpoint={host!r})."
    )
    return type(error)(
        error.message.rstrip() + hint,
        details=error.details,
        http_status=error.http_status,
        retry_delay=error.retry_delay,
    )


def _region(text: str, request: message.Message | None, location: str) -> str | None:
    """The region the request needs: the server's word for it, else the request's own."""
    found = _GOT_REGION.search(text)
    if found and found.group(1).lower() != "global":
        return found.group(1).lower()
    if request is None:
        return None
    named = {
        name.decode()
        for name in _REQUEST_LOCATION.findall(request.SerializeToString())
        if name not in (b"global", location.encode())
    }
    return named.pop() if len(named) == 1 else None
