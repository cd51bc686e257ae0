"""How both clients connect and retry: their settings, checked once, and each call's retry plan.

Apart from `base` so that the transport factory and the connection rules can read the settings
without importing the clients that hold them.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import random
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from groundwire.client.logs import log_retry
from groundwire.client.options import GoogleClientOptions, PoolLimits
from groundwire.contract import calls
from groundwire.contract.attempts import NO_ONE, Attempts, Events, Explain
from groundwire.contract.errors import ConfigurationError
from groundwire.contract.retry import RetryPolicy
from groundwire.wire.bodies import MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRY = RetryPolicy()


class RetryDefault(enum.Enum):
    """The type of `CLIENT_RETRY`, a call's `retry=` default: the client's policy."""

    CLIENT = "the client's retry policy"


CLIENT_RETRY = RetryDefault.CLIENT

RetryArgument = RetryPolicy | None | Literal[RetryDefault.CLIENT]


def checked_timeout(timeout: object, name: str) -> float:
    """`timeout` when a positive, finite number of seconds; else a ConfigurationError.

    A timeout of 0 would fail every call unsent, which `auto` would take for gRPC being down.
    """
    if (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout < math.inf
    ):
        return timeout
    raise ConfigurationError(f"{name} must be positive (a number of seconds), got {timeout!r}")


@dataclass(frozen=True, kw_only=True)
class Settings:
    """How both clients connect and retry (the request-shaping config is apart)."""

    transport: calls.TransportName
    endpoint: str | None
    rest_endpoint: str | None
    credentials: Credentials | None
    timeout: float
    retry: RetryPolicy | None
    fallback_cooldown: float
    allow_remote_emulator: bool = False
    root_certificates: bytes | None = None
    client_certificate: tuple[bytes, bytes] | None = None
    max_response_bytes: int = MAX_RESPONSE_BYTES
    universe_domain: str | None = None
    options: GoogleClientOptions = dataclasses.field(default_factory=GoogleClientOptions)
    grpc_options: tuple[tuple[str, Any], ...] = ()
    ssl_context: ssl.SSLContext | None = None
    pool_limits: PoolLimits = dataclasses.field(default_factory=PoolLimits)
    random: random.Random = dataclasses.field(default_factory=random.Random, compare=False)

    def __post_init__(self) -> None:
        if self.transport not in ("auto", "grpc", "rest"):
            raise ValueError(f"transport must be 'auto', 'grpc' or 'rest', got {self.transport!r}")
        checked_timeout(self.timeout, "the client's timeout")
        if self.max_response_bytes < 1:
            raise ValueError("max_response_bytes must be at least 1")
        for option in self.grpc_options:
            if not (
                isinstance(option, tuple)
                and len(option) == 2
                and isinstance(option[0], str)
                and isinstance(option[1], int | str)
            ):
                raise ConfigurationError(
                    "grpc_options must be (name, int or str) pairs, e.g. "
                    f"[('grpc.keepalive_time_ms', 60000)]; got {option!r}"
                )
        if self.ssl_context is not None and not isinstance(self.ssl_context, ssl.SSLContext):
            raise ConfigurationError(
                f"ssl_context must be an ssl.SSLContext, got {self.ssl_context!r}"
            )
        if not isinstance(self.pool_limits, PoolLimits):
            raise ConfigurationError(
                "pool_limits must be a groundwire.PoolLimits, e.g. "
                f"PoolLimits(max_connections=10); got {self.pool_limits!r}"
            )

    def retrying(
        self,
        timeout: float | None,
        retry: RetryArgument = CLIENT_RETRY,
        events: Events = NO_ONE,
        call: Any = None,
        explain: Explain | None = None,
    ) -> Attempts:
        """The plan of one call, whose deadline is its own `timeout`, else the client's.

        `events` hear of each attempt of `call`; `explain` rewrites the error the caller gets.
        """
        policy = self.retry if retry is CLIENT_RETRY else retry
        budget = self.timeout if timeout is None else checked_timeout(timeout, "timeout")
        return Attempts(policy, budget, self.random, events, log_retry, call, explain)
