"""Which process a transport belongs to: fork detection, and what a forked child may use.

A forked child must not send on, visibly close, or even let gRPC destroy what it inherited
(the parent's calls would cross; gRPC's core may hang or crash). So a client notices the
fork (`forks`, bumped by an `os.register_at_fork` hook), keeps what it inherited
(`leave_behind`) and builds new transports. Measured with grpcio 1.72 and 1.85, a child's
new channel hangs or crashes in one child in three if a call was in flight at the fork, and
always with `GRPC_ENABLE_FORK_SUPPORT=false`; with 1.72 it stops the parent's calls when the
parent runs a gRPC server; grpc.aio fails while the parent has a grpc.aio channel open.
`grpc_refusal` says which applies.
"""

from __future__ import annotations

import os
import threading

forks = 0
"""How many forks made this process, counted from the one that imported groundwire."""

lock = threading.Lock()
"""Serialises a client's move to a new process; made anew in each child."""

grpc_calls: set[object] = set()
"""A token per blocking gRPC call in flight in this process (`GrpcTransport` adds them)."""

grpc_servers: set[object] = set()
"""The gRPC servers running in this process, by id (the embedded emulator adds its own)."""

aio_channels: set[object] = set()
"""The grpc.aio channels open in this process (`AsyncGrpcTransport` adds them)."""

_refusal: str | None = None
_aio_refusal: str | None = None
_left_behind: list[object] = []  # referenced until the process ends, so never released

_FALSE = frozenset({"0", "false", "f", "no", "n", "off"})


def grpc_refusal(*, asynchronous: bool) -> str | None:
    """Why gRPC (grpc.aio when `asynchronous`) cannot be used in this process; None: it can.

    Example:
        >>> grpc_refusal(asynchronous=False) is None  # a process that never forked
        True
    """
    if asynchronous and _aio_refusal is not None:
        return _aio_refusal
    return _refusal


def leave_behind(inherited: object) -> None:
    """Keeps an object inherited from the parent alive, untouched, for this process's life."""
    _left_behind.append(inherited)


def _after_fork_in_child() -> None:
    global forks, lock, _refusal, _aio_refusal
    forks += 1
    lock = threading.Lock()
    if _refusal is None:
        if os.environ.get("GRPC_ENABLE_FORK_SUPPORT", "").strip().lower() in _FALSE:
            _refusal = (
                "this process was forked with GRPC_ENABLE_FORK_SUPPORT=false, and gRPC "
                "cannot work in a forked child without its fork handlers"
            )
        elif grpc_servers:
            _refusal = (
                "this process was forked while it ran a gRPC server (an embedded emulator), "
                "and gRPC is not safe in a child forked then (it may hang, or stop the parent's)"
            )
        elif grpc_calls:
            _refusal = (
                "this process was forked while a gRPC call was in flight, and gRPC is not "
                "safe in a child forked then (it may hang or crash)"
            )
    if _aio_refusal is None and aio_channels:
        _aio_refusal = (
            "this process was forked while a grpc.aio channel was open, and grpc.aio does "
            "not work in such a child"
        )
    grpc_calls.clear()
    grpc_servers.clear()
    aio_channels.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)
