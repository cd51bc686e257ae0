"""What groundwire logs, on the `groundwire` logger: retries, fallback, and (on request) each call.

Retries are logged at INFO; `GOOGLE_SDK_PYTHON_LOGGING_SCOPE` naming `groundwire` turns on
DEBUG logs of each call (never bodies), and `log_bodies=True` adds the bodies, scrubbed of
anything that looks like a credential. Credentials are never logged: the authorization header
is added by the transports, below everything logged here. The operators' guide
(docs/operators.md, "Logging") says what each record holds and how the logger is set up.
"""

from __future__ import annotations

import logging
import os

from google.protobuf import json_format
from google.protobuf.message import Message

from groundwire.core.apis import Method
from groundwire.core.errors import GroundwireError
from groundwire.core.scrubber import scrub_secrets
from groundwire.interceptors import Attempt, CallInfo, CallObserver, Interceptor, Outcome

logger = logging.getLogger("groundwire")

SCOPE_VARIABLE = "GOOGLE_SDK_PYTHON_LOGGING_SCOPE"


def log_retry(method: Method, attempt: int, error: GroundwireError, delay: float) -> None:
    """Logs, at INFO, that attempt `attempt` of a call failed and is retried after `delay` s."""
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

    When the scope names groundwire (or a logger under it), the `groundwire` logger is also
    set up as api-core sets up the loggers its scope names (a stream handler at DEBUG, not
    propagating), unless the application configured it already.
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
    """Logs each call's attempts and end at DEBUG on the `groundwire` logger.

    It keeps nothing of a call, so it is each call's observer too.
    """

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
    """A message as one line of JSON, scrubbed of anything that looks like a credential."""
    return scrub_secrets(json_format.MessageToJson(body, indent=None))
