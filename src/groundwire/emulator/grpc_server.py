"""The emulator's gRPC side: every method through generic handlers, plus health and reflection.

Handlers are thin: parse the bytes, draw a fault, call `service`, send the response or the
error as a rich status (google.rpc.Status in grpc-status-details-bin). An unexpected exception
becomes INTERNAL; the server keeps serving. A client that leaves a stream is no error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from concurrent import futures
from functools import cache
from typing import NoReturn

import grpc
from google.protobuf import descriptor, descriptor_pool
from google.protobuf.message import DecodeError, Message

from groundwire.core.apis import Method, all_methods
from groundwire.core.errors import GroundwireError, Internal, InvalidArgument, error_to_status_proto
from groundwire.emulator import service
from groundwire.emulator.faults import FaultInjector, FaultPolicy

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""Room for the largest legal request: 200 facts of 10,000 four-byte characters, with margin."""

DEFAULT_THREADS = 16
MAX_CONCURRENT_RPCS = 64
"""Calls beyond this are refused with RESOURCE_EXHAUSTED instead of queueing without bound."""

_log = logging.getLogger(__name__)


def create_server(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    faults: FaultPolicy | None = None,
    reuse_port: bool = False,
    threads: int = DEFAULT_THREADS,
) -> tuple[grpc.Server, int]:
    """A started gRPC server on `host:port` and the port it got (`port=0` picks a free one).

    `reuse_port` lets several processes serve one port (SO_REUSEPORT); it is off otherwise,
    so a second emulator on a taken port fails instead of silently sharing it.

    Example:
        >>> server, port = create_server(port=0)
        >>> port > 0
        True
        >>> server.stop(grace=None).wait()
        True
    """
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="groundwire-grpc"),
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
        maximum_concurrent_rpcs=MAX_CONCURRENT_RPCS,
    )
    injector = FaultInjector(faults) if faults is not None else None
    server.add_generic_rpc_handlers(tuple(generic_handlers(injector)))
    _add_health(server)
    _add_reflection(server)
    bound = server.add_insecure_port(_address(host, port))
    if bound == 0:
        raise OSError(f"cannot listen for gRPC on {_address(host, port)}")
    server.start()
    return server, bound


def generic_handlers(
    injector: FaultInjector | None = None,
) -> list[grpc.GenericRpcHandler[bytes, Message]]:
    """One generic handler per service, serving every method of `apis.all_methods()`."""
    by_service: dict[str, dict[str, grpc.RpcMethodHandler[bytes, Message]]] = {}
    for method in all_methods():
        service_name = method.grpc_path.split("/")[1]
        by_service.setdefault(service_name, {})[method.name] = _method_handler(method, injector)
    return [
        grpc.method_handlers_generic_handler(name, handlers)
        for name, handlers in by_service.items()
    ]


def service_names() -> list[str]:
    """The full names of the emulated services.

    Example:
        >>> "google.cloud.aiplatform.v1.VertexRagService" in service_names()
        True
    """
    return sorted({method.grpc_path.split("/")[1] for method in all_methods()})


def _method_handler(
    method: Method, injector: FaultInjector | None
) -> grpc.RpcMethodHandler[bytes, Message]:
    """Requests arrive as bytes, so a malformed one is INVALID_ARGUMENT rather than INTERNAL."""
    if method.client_streaming and method.server_streaming:

        def stream(requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[Message]:
            try:
                _inject(injector)
                parsed = (_parse(method, raw) for raw in requests)
                yield from service.handle_stream(method, parsed)
            except Exception as error:  # every failure becomes a status
                if isinstance(error, grpc.RpcError) or not context.is_active():
                    # Reading requests fails once the client has cancelled or gone.
                    _log.debug("the client left a %s stream: %r", method.name, error)
                    return
                _abort(context, error)

        return grpc.stream_stream_rpc_method_handler(stream, response_serializer=_serialize)

    def unary(raw: bytes, context: grpc.ServicerContext) -> Message:
        try:
            _inject(injector)
            return service.handle_unary(method, _parse(method, raw))
        except Exception as error:  # every failure becomes a status
            _abort(context, error)

    return grpc.unary_unary_rpc_method_handler(unary, response_serializer=_serialize)


def _serialize(response: Message) -> bytes:
    return response.SerializeToString()


def _parse(method: Method, raw: bytes) -> Message:
    try:
        return method.request_class.FromString(raw)
    except (DecodeError, RuntimeError, ValueError) as error:
        raise InvalidArgument(
            f"the request is not a valid {method.request_class.DESCRIPTOR.full_name}: {error}"
        ) from None


def _inject(injector: FaultInjector | None) -> None:
    if injector is None:
        return
    fault = injector.draw()
    if fault.delay_seconds:
        time.sleep(fault.delay_seconds)
    if fault.error is not None:
        raise fault.error


def _abort(context: grpc.ServicerContext, error: Exception) -> NoReturn:
    from grpc_status import rpc_status

    if not isinstance(error, GroundwireError):
        _log.exception("emulator bug while serving a gRPC call", exc_info=error)
        error = Internal(f"the emulator failed unexpectedly: {type(error).__name__}")
    context.abort_with_status(rpc_status.to_status(error_to_status_proto(error)))


def _add_health(server: grpc.Server) -> None:
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    servicer = health.HealthServicer()
    for name in ("", *service_names()):
        servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)


def _add_reflection(server: grpc.Server) -> None:
    from grpc_health.v1 import health_pb2
    from grpc_reflection.v1alpha import reflection

    names = [
        *service_names(),
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    ]
    reflection.enable_server_reflection(names, server, pool=_reflection_pool())


@cache
def _reflection_pool() -> descriptor_pool.DescriptorPool:
    """Our stubs' files and the health and reflection protos, which live in different pools."""
    from grpc_health.v1 import health_pb2
    from grpc_reflection.v1alpha import reflection_pb2

    from groundwire.core.apis import service_descriptor

    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()
    files = [
        *(service_descriptor(m.api, m.version).file for m in all_methods()),
        health_pb2.DESCRIPTOR,
        reflection_pb2.DESCRIPTOR,
    ]
    for file in files:
        _add_file(pool, file, added)
    return pool


def _add_file(
    pool: descriptor_pool.DescriptorPool, file: descriptor.FileDescriptor, added: set[str]
) -> None:
    if file.name in added:
        return
    for dependency in file.dependencies:
        _add_file(pool, dependency, added)
    pool.AddSerializedFile(file.serialized_pb)
    added.add(file.name)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
