"""Both servers in the background of this process, on one event loop thread shared by all.

`start_servers` starts the gRPC server and the REST gateway on the process's emulator loop and
returns a handle that stops them; `groundwire.emulator.emulator()`, the `serve` command and
each of its workers use it. Both servers share one switchboard (stubs, then the engine); the
REST port also serves the admin API and CORS (`groundwire.emulator.control`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwire.emulator.control import ControlState, local_state
from groundwire.emulator.faults import FaultPolicy
from groundwire.emulator.judges import Judge
from groundwire.emulator.limits import Limits
from groundwire.emulator.serving import (
    BACKLOG,
    SHUTDOWN_GRACE_SECONDS,
    STARTUP_TIMEOUT_SECONDS,
    Activity,
    LoopThread,
    check_free,
    host_port,
    listening_socket,
)
from groundwire.transports import lifetime

if TYPE_CHECKING:
    from groundwire.emulator.grpc_server import GrpcServer
    from groundwire.emulator.http_server import HttpServer
    from groundwire.emulator.rest_gateway import RestGateway

_emulator_loop = LoopThread("groundwire-emulator")
"""The process's emulator loop, shared by every server it starts."""


@dataclass
class Servers:
    """Both servers running in this process; `stop` ends them, letting in-flight calls finish."""

    grpc_address: str
    http_url: str
    activity: Activity
    """What both servers are doing, counted as it happens."""
    _grpc: GrpcServer
    _http: HttpServer
    _gateway: RestGateway
    _loop: asyncio.AbstractEventLoop

    def stop(self, grace: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Stops accepting calls, waits up to `grace` seconds for running ones, then returns."""
        stopping = asyncio.run_coroutine_threadsafe(self._stop(grace), self._loop)
        stopping.result(timeout=grace + 10)
        lifetime.grpc_servers.discard(id(self))

    async def _stop(self, grace: float) -> None:
        await asyncio.gather(self._grpc.stop(grace), self._http.close(grace))
        await asyncio.get_running_loop().run_in_executor(None, self._gateway.close)


def start_servers(
    host: str = "127.0.0.1",
    grpc_port: int = 0,
    http_port: int = 0,
    *,
    faults: FaultPolicy | None = None,
    limits: Limits | None = None,
    reuse_port: bool = False,
    control: ControlState | None = None,
    judge: Judge | None = None,
) -> Servers:
    """Starts both servers in the background; port 0 picks a free port.

    `control` holds the stubs and the journal (by default this process's own, with the
    admin API on). A `judge` scores claims in the engine's place; it is loaded first
    (`ConfigurationError` if it cannot be). A port that is taken raises `PortInUse`, naming it.

    Example:
        >>> servers = start_servers()
        >>> servers.http_url.startswith("http://127.0.0.1:")
        True
        >>> servers.stop(grace=0)
    """
    if control is not None and control.options.cassette is not None:
        from groundwire.emulator.recorder import RecordOptions

        if isinstance(control.options.cassette, RecordOptions):
            control.options.cassette.check_host(host)  # it holds credentials: loopback only
    if judge is not None:
        judge.load()
    if not reuse_port:
        for protocol, port in (("gRPC", grpc_port), ("REST", http_port)):
            check_free(protocol, host, port)
    loop = _emulator_loop.loop()
    starting = asyncio.run_coroutine_threadsafe(
        _start(
            host,
            grpc_port,
            http_port,
            faults,
            limits or Limits(),
            reuse_port,
            control or local_state(),
            judge,
        ),
        loop,
    )
    servers = starting.result(timeout=STARTUP_TIMEOUT_SECONDS)
    lifetime.grpc_servers.add(id(servers))  # gRPC is not safe in a child forked while it runs
    return servers


async def _start(
    host: str,
    grpc_port: int,
    http_port: int,
    faults: FaultPolicy | None,
    limits: Limits,
    reuse_port: bool,
    control: ControlState,
    judge: Judge | None,
) -> Servers:
    from groundwire.emulator.admin import AdminApi, with_admin
    from groundwire.emulator.control import switchboard_for
    from groundwire.emulator.cors import with_cors, with_host_check
    from groundwire.emulator.grpc_server import create_server
    from groundwire.emulator.http_server import HttpServer
    from groundwire.emulator.rest_gateway import RestGateway

    switchboard = switchboard_for(control, judge)
    activity = Activity()
    grpc_server = await create_server(
        host,
        grpc_port,
        faults=faults,
        limits=limits,
        reuse_port=reuse_port,
        switchboard=switchboard,
        activity=activity,
    )
    gateway = RestGateway(faults=faults, switchboard=switchboard)
    options = control.options
    admin = AdminApi(control.book, control.journal, options.cors_origins) if options.admin else None
    handler = with_host_check(
        with_cors(with_admin(gateway, admin), options.cors_origins), host, options.allowed_hosts
    )
    http = HttpServer(handler, limits, activity)
    try:
        sock = listening_socket(host, http_port, reuse_port)
        await http.start(sock, backlog=BACKLOG)
    except BaseException:
        gateway.close()
        await grpc_server.stop(None)
        raise
    return Servers(
        grpc_address=host_port(host, grpc_server.port),
        http_url=f"http://{host_port(host, sock.getsockname()[1])}",
        activity=activity,
        _grpc=grpc_server,
        _http=http,
        _gateway=gateway,
        _loop=asyncio.get_running_loop(),
    )
