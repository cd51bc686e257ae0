"""What groundwire logs, on the `groundwire` logger: retries, fallback, and (on request) each call.

Credentials are never logged: the transports add them, below everything logged here.
docs/operators.md ("Logging") says what each record holds and how the logger is set up.
"""

from __future__ import annotations

import logging
import os

from google.protobuf import json_format
from google.protobuf.message import Message

from groundwire.client.interceptors import Attempt, CallInfo, CallObserver, Interceptor, Outcome
from groundwire.contract.apis import Method
from groundwire.contract.errors import GroundwireError
from groundwire.contract.scrubber import scrub_secrets

logger = logging.getLogger("groundwire")

SCOPE_VARIABLE = "GOOGLE_SDK_PYTHON_LOGGING_SCOPE"


def log_retry(method: Method, attempt: int, error: GroundwireError, delay: float) -> None:
    """Logs, at INFO, that an attempt failed and is retried after `delay` seconds."""
    logger.info(
        "%s attempt %d failed (%s); retrying in %.3g s",
        method.name,
        attempt,
        error,
        delay,
        extra={"rpcName": method.name, "retryAttempt": attempt},
    )


def call_logging(log_bodies: bool) -> tuple[Interceptor, ...]:
    """The interceptor that logs each call at DEBUG when the scope or `log_bodies` asks (or none).

    A scope naming groundwire also sets up an unconfigured `groundwire` logger, as api-core does.
    """
    scope = (part.strip() for part in os.environ.get(SCOPE_VARIABLE, "").split(","))
    scoped = any(name == "groundwire" or name.startswith("groundwire.") for name in scope)
    if scoped and not (logger.handlers or logger.level != logging.NOTSET or not logger.propagate):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
    return (CallLogging(log_bodies=log_bodies),) if scoped or log_bodies else ()


class CallLogging(Interceptor, CallObserver):
    """Logs each call's attempts and end at DEBUG; keeping nothing, it is every call's observer."""

    def __init__(self, *, log_bodies: bool) -> None:
        self.log_bodies = log_bodies

    def start(self, call: CallInfo) -> CallObserver | None:
        """Logs the request body when asked; returns the call's logging observer."""
        if not logger.isEnabledFor(logging.DEBUG):
            return None
        if self.log_bodies and call.request is not None:
            logger.debug(
                "%s request: %s",
                call.method.name,
                _body(call.request),
                extra={"rpcName": call.method.name},
            )
        return self

    def on_attempt(self, attempt: Attempt) -> None:
        """Logs the attempt: its transport, status and duration."""
        name = attempt.call.method.name
        status = "OK" if attempt.error is None else attempt.error.code.name
        logger.debug(
            "%s attempt %d over %s%s: %s in %.1f ms",
            name,
            attempt.number,
            attempt.transport,
            " (fallback)" if attempt.fell_back else "",
            status,
            attempt.duration * 1000,
            extra={
                "rpcName": name,
                "serviceName": attempt.call.service,
                "retryAttempt": attempt.number,
                "transport": attempt.transport,
                "status": status,
                "duration": attempt.duration,
            },
        )

    def on_finish(self, outcome: Outcome) -> None:
        """Logs the call's end, with the response body when asked."""
        name = outcome.call.method.name
        status = "OK" if outcome.error is None else outcome.error.code.name
        body = ""
        if self.log_bodies and outcome.response is not None:
            body = f"; response: {_body(outcome.response)}"
        logger.debug(
            "%s finished: %s after %d attempt(s) in %.1f ms%s",
            name,
            status,
            outcome.attempts,
            outcome.duration * 1000,
            body,
            extra={"rpcName": name, "status": status, "duration": outcome.duration},
        )


def _body(body: Message) -> str:
    """A message as one line of JSON, scrubbed of credentials."""
    return scrub_secrets(json_format.MessageToJson(body, indent=None))
