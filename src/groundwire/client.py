"""GroundingClient: the synchronous client — gRPC first, REST when gRPC cannot connect."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf import message

from groundwire.core import calls
from groundwire.core.bodies import MAX_RESPONSE_BYTES
from groundwire.core.endpoints import (
    CLOUD_PLATFORM_SCOPE,
    EndpointError,
    Endpoints,
    resolve_endpoints,
    user_agent,
)
from groundwire.core.errors import ClientClosed, GroundwireError, Unauthenticated
from groundwire.core.offsets import OffsetUnit
from groundwire.core.requests import FactLike, TurnLike
from groundwire.core.results import CheckGroundingResult, CorroborationResult, GenerateResult
from groundwire.core.retry import Retrying, RetryPolicy

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

    from groundwire.transports.base import Transport

DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRY = RetryPolicy()


class _Settings:
    """What both clients keep besides the request-shaping config: how to connect and retry."""

    def __init__(
        self,
        *,
        transport: calls.TransportName,
        endpoint: str | None,
        rest_endpoint: str | None,
        credentials: Credentials | None,
        timeout: float,
        retry: RetryPolicy | None,
        fallback_cooldown: float,
        allow_remote_emulator: bool = False,
        root_certificates: bytes | None = None,
        client_certificate: tuple[bytes, bytes] | None = None,
    ) -> None:
        if transport not in ("auto", "grpc", "rest"):
            raise ValueError(f"transport must be 'auto', 'grpc' or 'rest', got {transport!r}")
        if timeout <= 0:
            raise ValueError("timeout must be positive (seconds)")
        self.transport = transport
        self.endpoint = endpoint
        self.rest_endpoint = rest_endpoint
        self.credentials = credentials
        self.timeout = timeout
        self.retry = retry
        self.fallback_cooldown = fallback_cooldown
        self.allow_remote_emulator = allow_remote_emulator
        self.root_certificates = root_certificates
        self.client_certificate = client_certificate
        self.random = random.Random()
        self.closed = False
        self.max_response_bytes = MAX_RESPONSE_BYTES

    def retrying(self, timeout: float | None) -> Retrying:
        """The retry state of one call, whose deadline is its own `timeout`, else the client's.

        The retry policy's `timeout` is the deadline instead when it is smaller.
        """
        if self.closed:
            raise ClientClosed("this client is closed; create a new one")
        return Retrying(self.retry, self.timeout if timeout is None else timeout, self.random)

    def connection(
        self, api: str, location: str, quota_project: str | None
    ) -> tuple[Endpoints, Credentials | None]:
        """The endpoints of `api` and the credentials for those that carry any (None: none).

        The decisions are `resolve_endpoints`'s; Application Default Credentials are loaded
        only when an endpoint of the universe carries them and the user gave none.
        """
        found = resolve_endpoints(
            api,
            location,
            endpoint=self.endpoint,
            rest_endpoint=self.rest_endpoint,
            environ=os.environ,
            explicit_credentials=self.credentials is not None,
            tls_requested=self.root_certificates is not None or self.client_certificate is not None,
            allow_remote_emulator=self.allow_remote_emulator,
            credentials_universe=_universe_of(self.credentials),
        )
        if not found.needs_credentials:
            return found, None
        if self.credentials is not None:
            return found, self.credentials
        import google.auth
        from google.auth.exceptions import DefaultCredentialsError

        try:
            credentials, _ = google.auth.default(
                scopes=[CLOUD_PLATFORM_SCOPE], quota_project_id=quota_project
            )
        except DefaultCredentialsError as error:
            raise Unauthenticated(
                f"no Application Default Credentials ({error}); run `gcloud auth "
                "application-default login`, pass credentials=, or use an emulator"
            ) from None
        universe = _universe_of(credentials)
        if universe is not None and universe.lower() != found.universe:
            raise EndpointError(
                f"the Application Default Credentials are for universe {universe!r}, not "
                f"{found.universe!r}; set GOOGLE_CLOUD_UNIVERSE_DOMAIN or pass credentials="
            )
        return found, credentials

    def make_transport(
        self, api: str, location: str, quota_project: str | None, *, asynchronous: bool
    ) -> Any:
        """Builds the (sync or asyncio) transport for `api`: gRPC, REST, or auto over both."""
        from groundwire.transports.tls import client_ssl_context

        endpoints, credentials = self.connection(api, location, quota_project)
        grpc_target = endpoints.grpc_target if self.transport in ("auto", "grpc") else None
        rest_base_url = endpoints.rest_base_url if self.transport in ("auto", "rest") else None
        if grpc_target is None and rest_base_url is None:
            missing, given = ("endpoint", "rest_endpoint")
            if self.transport == "rest":
                missing, given = given, missing
            raise EndpointError(
                f"transport={self.transport!r} needs {missing}=: only {given} is configured "
                "(by argument or emulator variable), and the other protocol is derived only "
                "from a Google host"
            )
        grpc_transport = rest_transport = None
        if grpc_target is not None:
            grpc_class = _transport_class(
                "grpc_aio.AsyncGrpcTransport" if asynchronous else "grpc.GrpcTransport"
            )
            grpc_transport = grpc_class(
                grpc_target,
                credentials=credentials if endpoints.grpc_credentials else None,
                secure=not endpoints.plaintext,
                root_certificates=self.root_certificates,
                user_agent=user_agent(),
                allow_remote_plaintext=endpoints.remote_emulator,
                client_certificate=self.client_certificate,
                options=[("grpc.max_receive_message_length", self.max_response_bytes)],
            )
        if rest_base_url is not None:
            rest_class = _transport_class(
                "rest_aio.AsyncRestTransport" if asynchronous else "rest.RestTransport"
            )
            tls = None
            if not endpoints.plaintext:
                tls = client_ssl_context(self.root_certificates, self.client_certificate)
            rest_transport = rest_class(
                rest_base_url,
                credentials=credentials if endpoints.rest_credentials else None,
                ssl_context=tls,
                allow_remote_plaintext=endpoints.remote_emulator,
                max_response_bytes=self.max_response_bytes,
            )
        if grpc_transport is not None and rest_transport is not None:
            auto_class = _transport_class(
                "auto.AsyncAutoTransport" if asynchronous else "auto.AutoTransport"
            )
            return auto_class(grpc_transport, rest_transport, cooldown=self.fallback_cooldown)
        return grpc_transport or rest_transport


def _universe_of(credentials: Credentials | None) -> str | None:
    """The universe domain google-auth credentials belong to (None: none given)."""
    universe = getattr(credentials, "universe_domain", None)
    return universe if isinstance(universe, str) and universe else None


def _transport_class(name: str) -> Any:
    """A transport class by `module.Class` under groundwire.transports, imported on first use.

    Importing late means a sync gRPC client never loads the HTTP or asyncio stacks.
    """
    import importlib

    module_name, class_name = name.split(".")
    return getattr(importlib.import_module(f"groundwire.transports.{module_name}"), class_name)


class _ClientBase:
    """What both clients are made of: the config that shapes requests, and the connection.

    Their constructor is this one; see `GroundingClient` for the arguments.
    """

    def __init__(
        self,
        project: str,
        location: str = "global",
        *,
        transport: calls.TransportName = "auto",
        api_version: str = "v1",
        endpoint: str | None = None,
        rest_endpoint: str | None = None,
        credentials: Credentials | None = None,
        quota_project: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = DEFAULT_RETRY,
        validate: bool = True,
        fallback_cooldown: float = 60.0,
        corroborate_offset_unit: OffsetUnit = "utf8",
        allow_remote_emulator: bool = False,
        root_certificates: bytes | None = None,
        client_certificate: tuple[bytes, bytes] | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if max_response_bytes < 1:
            raise ValueError("max_response_bytes must be at least 1")
        self._config = calls.ClientConfig(
            project, location, api_version, validate, quota_project, corroborate_offset_unit
        )
        self._settings = _Settings(
            transport=transport,
            endpoint=endpoint,
            rest_endpoint=rest_endpoint,
            credentials=credentials,
            timeout=timeout,
            retry=retry,
            fallback_cooldown=fallback_cooldown,
            allow_remote_emulator=allow_remote_emulator,
            root_certificates=root_certificates,
            client_certificate=client_certificate,
        )
        self._settings.max_response_bytes = max_response_bytes
        self._transports: dict[str, Any] = {}
        self._lock = self._new_lock()

    @staticmethod
    def _new_lock() -> Any:
        raise NotImplementedError


class GroundingClient(_ClientBase):
    """A client for Google's grounding APIs, fast on raw protobuf, with a REST fallback.

    Use it as a context manager (or call `close()`):

    >>> from groundwire import GroundingClient                      # doctest: +SKIP
    >>> with GroundingClient("my-project") as client:               # doctest: +SKIP
    ...     result = client.check_grounding(
    ...         "Tokyo is the capital of Japan.", ["Tokyo is Japan's capital."])
    ...     result.support_score
    0.97

    Args:
        project: the Google Cloud project id (or number) that owns the calls.
        location: `global` (default), `us` or `eu` for Discovery Engine; a Vertex AI
            region (e.g. `us-central1`) for `corroborate_content`.
        transport: `"auto"` (gRPC first; REST at once when no gRPC connection can be made,
            staying on REST for `fallback_cooldown` seconds), `"grpc"` or `"rest"`.
        api_version: Discovery Engine version, `"v1"`, `"v1beta"` or `"v1alpha"`
            (CorroborateContent is always aiplatform v1).
        endpoint: gRPC `host[:port]` (or `dns:///`, `ipv4:`, `ipv6:`, `unix:` targets)
            instead of Google's. A loopback address means an emulator (plaintext, no
            credentials) unless `credentials` or `root_certificates` are given with it.
            Default: `$GROUNDWIRE_EMULATOR_HOST` or Google's regional host.
        rest_endpoint: REST base URL, e.g. `http://127.0.0.1:8080` for an emulator.
            Default: `$GROUNDWIRE_EMULATOR_REST`, or derived from a Google gRPC host
            (never from a custom or emulator one).
        credentials: google-auth credentials; by default Application Default Credentials
            (cloud-platform scope), which go only to Google's hosts of the universe
            (`$GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else `googleapis.com`). Credentials passed
            here also go to a custom `endpoint`; none go over plaintext or to an emulator.
        root_certificates: PEM certificates to trust instead of the system's (a local
            TLS test server, a corporate CA); they make a loopback `endpoint` TLS.
        client_certificate: a `(certificate chain, private key)` PEM pair for mutual TLS;
            it too makes a loopback `endpoint` TLS.
        allow_remote_emulator: let the emulator variables (or an `http://` endpoint) name
            a host that is not loopback, as `GROUNDWIRE_EMULATOR_ALLOW_REMOTE=1` does. Its
            traffic is clear text and carries no credentials.
        quota_project: a project to bill quota to (`x-goog-user-project`).
        timeout: the overall deadline of one call in seconds, retries included.
        retry: the retry policy (`None` disables retries); UNAVAILABLE, RESOURCE_EXHAUSTED
            and an attempt's DEADLINE_EXCEEDED are retried with jittered back-off. A policy
            `timeout`, when set, caps the deadline too.
        validate: check the documented limits before sending (default True).
        fallback_cooldown: seconds to stay on REST after gRPC could not connect.
        corroborate_offset_unit: what CorroborateContent's `start_index`/`end_index` count:
            `"utf8"` bytes (default, as Vertex AI documents its other grounding offsets),
            `"codepoint"` or `"utf16"`.
        max_response_bytes: the largest response accepted, decompressed (default 64 MiB);
            a larger one fails with `MessageTooLarge` and is not retried.
    """

    @staticmethod
    def _new_lock() -> threading.Lock:
        return threading.Lock()

    # -- the API ---------------------------------------------------------------------------

    def check_grounding(
        self,
        answer_candidate: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        enable_claim_level_score: bool | None = None,
        user_labels: Mapping[str, str] | None = None,
        grounding_config: str = "default_grounding_config",
        timeout: float | None = None,
    ) -> CheckGroundingResult:
        """Checks how well `facts` support `answer_candidate`, claim by claim.

        Args:
            answer_candidate: the answer to check (or a ready `CheckGroundingRequest`).
            facts: strings, `(text, attributes)` pairs, dicts (`{"text", "attributes"}`) or
                `GroundingFact` messages; attributes such as `author` count as evidence.
            citation_threshold: 0–1; higher gives fewer, stronger citations (service: 0.6).
            enable_claim_level_score: also score each claim (v1 and v1beta).
            user_labels: billing labels.
            grounding_config: the config id or full resource name.
            timeout: this call's overall deadline, instead of the client's.

        Returns the claims with `start`/`end` that slice `answer_candidate` as a Python
        string, the UTF-8 offsets the API sent, UTF-16 offsets, and resolved citations.
        """
        call = calls.check_grounding(
            self._config,
            answer_candidate,
            facts,
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
            user_labels=user_labels,
            grounding_config=grounding_config,
        )
        return call.finish(self._unary(call, timeout))

    def corroborate_content(
        self,
        content: str | message.Message,
        facts: Iterable[FactLike] = (),
        *,
        citation_threshold: float | None = None,
        timeout: float | None = None,
    ) -> CorroborationResult:
        """Scores how well `facts` corroborate `content` (Vertex AI, aiplatform v1).

        Args:
            content: the text to corroborate (or a `Content`, or a ready request).
            facts: strings (a fact's summary), `(text, {"title", "uri"})` pairs, dicts of
                `Fact` fields, or `Fact` messages.
            citation_threshold: claims scoring below it are left out (service: 0.6).
            timeout: this call's overall deadline, instead of the client's.
        """
        call = calls.corroborate_content(
            self._config, content, facts, citation_threshold=citation_threshold
        )
        return call.finish(self._unary(call, timeout))

    def generate_grounded_content(
        self,
        prompt: str | Sequence[TurnLike] | message.Message,
        *,
        timeout: float | None = None,
        **options: Any,
    ) -> GenerateResult:
        """Generates an answer grounded in the given sources.

        Args:
            prompt: the user's question, a list of turns (`"text"`, `(role, text)`, dicts,
                or `GroundedGenerationContent`), or a ready request.
            timeout: this call's overall deadline, instead of the client's.
            **options: `system_instruction`; sources: `facts` (inline), `serving_config`
                with `max_result_count`, `search_filter`, `safe_search` (Vertex AI Search),
                `google_search=True` with `dynamic_retrieval_threshold`; generation:
                `model_id`, `temperature`, `top_p`, `top_k`, `seed`, `max_output_tokens`,
                `frequency_penalty`, `presence_penalty`, `language_code`; `user_labels`.
        """
        call = calls.generate_grounded_content(self._config, prompt, **options)
        return call.finish(self._unary(call, timeout))

    def stream_generate_grounded_content(
        self,
        prompt: str | Sequence[TurnLike] | message.Message | Iterable[message.Message],
        *,
        timeout: float | None = None,
        **options: Any,
    ) -> Iterator[GenerateResult]:
        """Streams an answer as it is generated: yields one `GenerateResult` per piece.

        `prompt` and `options` are those of `generate_grounded_content`; or pass requests
        for the bidirectional form: a list (works over gRPC and REST) or an iterator that
        produces requests while responses are read (gRPC only).
        """
        plan = calls.stream_generate_grounded_content(self._config, prompt, **options)
        for response in self._stream(plan, timeout):
            yield plan.finish(response)

    # -- plumbing ----------------------------------------------------------------------------

    def _transport(self, api: str) -> Transport:
        with self._lock:
            if self._settings.closed:
                raise ClientClosed("this client is closed; create a new one")
            found = self._transports.get(api)
            if found is None:
                found = self._transports[api] = self._settings.make_transport(
                    api, self._config.location, self._config.quota_project, asynchronous=False
                )
            return found

    def _unary(self, call: calls.Call[Any], timeout: float | None) -> message.Message:
        retrying = self._settings.retrying(timeout)
        transport = self._transport(call.method.api)
        while True:
            try:
                return transport.unary(
                    call.method,
                    call.request,
                    timeout=retrying.attempt_timeout(),
                    metadata=call.metadata,
                )
            except GroundwireError as error:
                delay = retrying.after_failure(error)
                if delay is None:
                    raise
                time.sleep(delay)

    def _stream(self, plan: calls.StreamCall, timeout: float | None) -> Iterator[message.Message]:
        retrying = self._settings.retrying(timeout)
        transport = self._transport(plan.method.api)
        while True:
            received = False
            try:
                for response in transport.stream(
                    plan.method,
                    plan.requests,
                    timeout=retrying.attempt_timeout(),
                    metadata=plan.metadata,
                ):
                    received = True
                    yield response
                return
            except GroundwireError as error:
                delay = retrying.after_failure(
                    error, response_received=received, requests_consumed=plan.interactive
                )
                if delay is None:
                    raise
                time.sleep(delay)

    def close(self) -> None:
        """Closes the connections; the client cannot be used afterwards."""
        with self._lock:
            self._settings.closed = True
            transports, self._transports = list(self._transports.values()), {}
        for transport in transports:
            transport.close()

    def __enter__(self) -> GroundingClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        config = self._config
        return (
            f"GroundingClient(project={config.project!r}, location={config.location!r}, "
            f"transport={self._settings.transport!r}, api_version={config.api_version!r})"
        )
