"""A real ASGI server for tests: an app under uvicorn on a free loopback port, in a thread."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

WAIT = 60.0
"""Seconds the server may take to start or stop: only catches a hang."""


@contextmanager
def served(app: Any, *, lifespan: Literal["on", "off"] = "on") -> Iterator[str]:
    """Serves `app` with uvicorn on 127.0.0.1 until the block ends; yields `http://host:port`."""
    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, log_level="warning", lifespan=lifespan, ws="none", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    started = threading.Event()
    for _ in range(int(WAIT * 10)):  # bounded: the server starts in well under the bound
        if server.started or started.wait(0.1):
            break
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(WAIT)
        listener.close()
