"""What groundwire logs, on the `groundwire` logger: retries, fallback, and (on request) each call.

* Retries are logged at INFO; the auto transport logs its switches to REST and back at
  WARNING, and the end of a cool-down at INFO.
* `GOOGLE_SDK_PYTHON_LOGGING_SCOPE`, read as google-api-core reads it (a logger name; here a
  comma-separated list of them), turns on DEBUG logs of each call when it names `groundwire`
  (or a logger under it): method, transport, attempt, status and duration — never bodies.
  As api-core does, the named logger gets a handler at DEBUG and stops propagating, unless
  the application configured it already.
* `log_bodies=True` on a client adds the request and response bodies to those DEBUG logs,
  scrubbed of anything that looks like a credential. Credentials are never logged: the
  authorization header is added by the transports, below everything logged here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

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


def scope_names_groundwire(environ: Mapping[str, str]) -> bool:
    """Whether `GOOGLE_SDK_PYTHON_LOGGING_SCOPE` asks for groundwire's call logs.

    Example:
        >>> scope_names_groundwire({"GOOGLE_SDK_PYTHON_LOGGING_SCOPE": "google,groundwire"})
        True
        >>> scope_names_groundwire({"GOOGLE_SDK_PYTHON_LOGGING_SCOPE": "google"})
        False
    """
    return any(
        name == "groundwire" or name.startswith("groundwire.")
        for name in (part.strip() for part in environ.get(SCOPE_VARIABLE, "").split(","))
    )


def call_logging(log_bodies: bool, environ: Mapping[str, str] = os.environ) -> Interceptor | None:
    """The interceptor that logs each call at DEBUG, when the scope or `log_bodies` asks.

    When the scope names groundwire, the `groundwire` logger is also set up as api-core sets
    up the loggers its scope names (a stream handler at DEBUG, not propagating), unless the
    application configured it already.
    """
    scoped = scope_names_groundwire(environ)
    if scoped:
        _configure_default_handler(logger)
    if not (scoped or log_bodies):
        return None
    return CallLogging(log_bodies=log_bodies)


def _configure_default_handler(target: logging.Logger) -> None:
    if target.handlers or target.level != logging.NOTSET or not target.propagate:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    target.addHandler(handler)
    target.setLevel(logging.DEBUG)
    target.propagate = False


class CallLogging(Interceptor):
    """Logs each call's attempts and end at DEBUG on the `groundwire` logger.

    Example:
        >>> CallLogging(log_bodies=False).log_bodies
        False
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
        return _CallLog(self.log_bodies)


class _CallLog(CallObserver):
    __slots__ = ("_log_bodies",)

    def __init__(self, log_bodies: bool) -> None:
        self._log_bodies = log_bodies

    def on_attempt(self, attempt: Attempt) -> None:
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
        name = outcome.call.method.name
        status = "OK" if outcome.error is None else outcome.error.code.name
        body = ""
        if self._log_bodies and outcome.response is not None:
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
