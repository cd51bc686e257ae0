"""Calls in turn on a sync or an asyncio REST transport, for tests that hold both to one rule."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from google.protobuf.message import Message

from groundwire.transports.rest import RestTransport
from groundwire.transports.rest_aio import AsyncRestTransport
from tests.transports import canned

Kind = Literal["sync", "async"]
KINDS: list[Kind] = ["sync", "async"]


def calls(kind: Kind, base_url: str, count: int = 1, **options: Any) -> list[Message]:
    """`count` CheckGrounding calls in turn on one new transport of `kind`, then closed.

    `options` go to the transport's constructor (credentials default to none).
    """
    options.setdefault("credentials", None)
    request = canned.check_request()
    if kind == "sync":
        transport = RestTransport(base_url, **options)
        try:
            return [
                transport.unary(canned.CHECK, request, timeout=5, metadata=canned.METADATA)
                for _ in range(count)
            ]
        finally:
            transport.close()

    async def run() -> list[Message]:
        aio = AsyncRestTransport(base_url, **options)
        try:
            return [
                await aio.unary(canned.CHECK, request, timeout=5, metadata=canned.METADATA)
                for _ in range(count)
            ]
        finally:
            await aio.close()

    return asyncio.run(run())
