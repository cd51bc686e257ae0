"""A LangChain Runnable that checks grounding on groundwire: LangChain's wrapper, its bugs fixed.

Install `groundwire[langchain]` (it needs langchain-core only). `CheckGroundingRunnable` is a
drop-in for langchain-google-community's `VertexAICheckGroundingWrapper`: the same
constructor names (``project_id``, ``location_id``, ``grounding_config``,
``citation_threshold``, ``credentials``, ``credentials_path``) besides groundwire's own, the
same input (the answer, with the documents in ``config["configurable"]["documents"]``) and the
same output fields:

>>> from langchain_core.documents import Document
>>> from groundwire.emulator import emulator
>>> docs = [Document(page_content="Tokyo is Japan's capital.", metadata={"year": 1868})]
>>> with emulator() as emu:  # CheckGroundingRunnable(project_id="my-project") for Google's
...     with CheckGroundingRunnable(project_id="p", endpoint=emu.grpc_address) as check:
...         response = check.invoke("東京 is the capital of Japan.",
...                                 config={"configurable": {"documents": docs}})
>>> response.answer_with_citations, response.cited_chunks[0]["source"] is docs[0]
('東京 is the capital of Japan.[0]', True)

What changes, each a bug of the wrapper: the API is v1 (the wrapper used v1alpha: no claim
scores, answers of at most 1,024 characters); metadata of any type is sent as strings;
citations name the right `Document` when documents without text are left out; claims also
carry ``start``/``end`` as Python str indices (``start_pos``/``end_pos`` stay UTF-8 bytes, as
the API sends them); ``answer_with_citations`` is the original answer with the markers
inserted, not the claims rejoined with spaces; ``location_id`` picks the regional endpoint
(``eu-discoveryengine.googleapis.com``); `ainvoke`, `batch` and `abatch` are native (the
library's batch API: concurrent, throttling-aware); and failures are groundwire's typed
errors (`groundwire.InvalidArgument`, `groundwire.Unavailable`, ...), not `RuntimeError`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from groundwire.client.extras import missing_extra

try:
    from langchain_core.callbacks.manager import (
        AsyncCallbackManagerForChainRun,
        CallbackManagerForChainRun,
    )
    from langchain_core.runnables import RunnableConfig, RunnableSerializable
    from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
except ImportError as error:
    raise missing_extra(error, "langchain", "groundwire.langchain") from error

from groundwire.client.aio import AsyncGroundingClient
from groundwire.client.base import ClientBase
from groundwire.client.endpoints import CLOUD_PLATFORM_SCOPE
from groundwire.client.options import one_of
from groundwire.client.sync import GroundingClient
from groundwire.contract.errors import ConfigurationError, GroundwireError, bad_request
from groundwire.contract.results import CheckGroundingResult
from groundwire.features.batch import DEFAULT_CONCURRENCY
from groundwire.integrations.langchain.documents import (
    DocumentFacts,
    document_facts,
    wrapper_fields,
)

__all__ = ["CheckGroundingResponse", "CheckGroundingRunnable"]

_SYNONYMS = {"project_id": "project", "location_id": "location"}
"""The wrapper's constructor names, and groundwire's for the same thing."""


class CheckGroundingResponse(BaseModel):
    """What a check returns: the wrapper's four fields, and groundwire's whole result.

    ``cited_chunks`` are ``{"chunk_text", "source"}`` dicts, ``source`` the cited
    `Document`. ``claims`` are dicts with the wrapper's keys (``claim_text``,
    ``start_pos``/``end_pos`` in UTF-8 bytes, ``citation_indices`` into ``cited_chunks``)
    plus ``start``/``end`` (``answer[start:end]`` is the claim), ``score`` and
    ``grounding_check_required``. ``answer_with_citations`` is the answer with ``[i]``
    after each cited claim, ``i`` the 0-based index into ``cited_chunks``. ``result`` is
    the `groundwire.CheckGroundingResult` (``to_markdown()``, ``to_html()``,
    ``utf16_spans()``); it is left out of ``model_dump()``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    support_score: float = 0.0
    cited_chunks: list[dict[str, Any]] = Field(default_factory=list)
    claims: list[dict[str, Any]] = Field(default_factory=list)
    answer_with_citations: str = ""
    result: CheckGroundingResult | None = Field(default=None, exclude=True, repr=False)


_Response: TypeAlias = CheckGroundingResponse
"""The output type, by a name the runnable's class body does not shadow."""


@dataclass(frozen=True, slots=True)
class _Prepared:
    """One input read: the batch item to send and the documents behind its facts."""

    item: dict[str, Any]
    read: DocumentFacts

    def response(self, result: CheckGroundingResult) -> CheckGroundingResponse:
        return CheckGroundingResponse(**wrapper_fields(result, self.read), result=result)


class CheckGroundingRunnable(RunnableSerializable[str, CheckGroundingResponse]):
    """Checks an answer against the documents in its config, on groundwire's client.

    Args:
        project: the Google Cloud project (the wrapper's ``project_id``).
        location: ``global`` (default), ``us`` or ``eu`` (the wrapper's ``location_id``);
            a region is served by its own endpoint.
        grounding_config: the config id or full resource name.
        citation_threshold: 0–1; higher gives fewer, stronger citations (default 0.6).
        enable_claim_level_score: also score each claim (default: yes, but in v1alpha,
            which has no claim scores).
        api_version: ``"v1"`` (default), ``"v1beta"`` or ``"v1alpha"``.
        endpoint: a gRPC ``host:port`` instead of Google's, e.g. an emulator's.
        rest_endpoint: a REST base URL instead of Google's.
        transport: ``"auto"`` (default), ``"grpc"`` or ``"rest"``.
        concurrency: how many checks `batch` and `abatch` run at once (a config's
            ``max_concurrency`` overrides it).
        credentials: google-auth credentials (default: Application Default Credentials).
        credentials_path: a service account key file to load credentials from.
        client: a ready `GroundingClient` to use instead of making one.
        async_client: a ready `AsyncGroundingClient` for `ainvoke` and `abatch`; when only
            `client` is given, they run `client` in a thread.
        **client_kwargs: any other `GroundingClient` argument (``timeout``, ``retry``,
            ``quota_project``, ``interceptors``, ``client_options``, ...).

    Raises:
        ConfigurationError: an unknown argument, a wrong type, no project, a synonym given
            twice with different values, or an unreadable ``credentials_path``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    CheckGroundingResponse: ClassVar[type[_Response]] = _Response
    """The output type, where the wrapper had it (``Wrapper.CheckGroundingResponse``)."""

    project: str | None = None
    location: str = "global"
    grounding_config: str = "default_grounding_config"
    citation_threshold: float | None = 0.6
    enable_claim_level_score: bool | None = None
    api_version: Literal["v1", "v1beta", "v1alpha"] = "v1"
    endpoint: str | None = None
    rest_endpoint: str | None = None
    transport: Literal["auto", "grpc", "rest"] = "auto"
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1)
    credentials: Any = None
    credentials_path: str | None = None
    client_kwargs: dict[str, Any] = Field(default_factory=dict)
    client: Any = None
    async_client: Any = None
    _owns_clients: bool = PrivateAttr(default=False)

    def __init__(self, project: str | None = None, **kwargs: Any) -> None:
        arguments = _arguments(project, kwargs)
        try:
            super().__init__(**arguments)
        except ValidationError as error:
            raise ConfigurationError(_problem(error)) from None
        self._connect()

    def _connect(self) -> None:
        """Checks the clients given and makes those that were not, from the arguments.

        Outside pydantic's validation, which would turn these errors into its own.
        """
        if self.client is not None and not isinstance(self.client, GroundingClient):
            raise ConfigurationError(
                f"client must be a groundwire GroundingClient, not {type(self.client).__name__} "
                "(the official client's arguments are accepted here instead: project_id, "
                "location_id, credentials, ...)"
            )
        if self.async_client is not None and not isinstance(
            self.async_client, AsyncGroundingClient
        ):
            raise ConfigurationError(
                "async_client must be a groundwire AsyncGroundingClient, "
                f"not {type(self.async_client).__name__}"
            )
        if self.client is not None:
            return
        if not self.project:
            raise ConfigurationError("CheckGroundingRunnable needs a project (or project_id)")
        arguments: dict[str, Any] = {
            "project": self.project,
            "location": self.location,
            "api_version": self.api_version,
            "endpoint": self.endpoint,
            "rest_endpoint": self.rest_endpoint,
            "transport": self.transport,
            "credentials": self._credentials(),
            **self.client_kwargs,
        }
        try:
            self.client = GroundingClient(**arguments)
            if self.async_client is None:
                self.async_client = AsyncGroundingClient(**arguments)
        except GroundwireError:
            raise
        except (TypeError, ValueError) as error:  # the client's own argument checks
            raise ConfigurationError(f"CheckGroundingRunnable: {error}") from None
        self._owns_clients = True

    def _credentials(self) -> Any:
        if self.credentials_path is None:
            return self.credentials
        if self.credentials is not None:
            raise ConfigurationError("give credentials or credentials_path, not both")
        from google.oauth2 import service_account

        try:
            return service_account.Credentials.from_service_account_file(  # type: ignore[no-untyped-call]
                self.credentials_path, scopes=[CLOUD_PLATFORM_SCOPE]
            )
        except (OSError, ValueError) as error:
            raise ConfigurationError(
                f"credentials_path={self.credentials_path!r} is not a readable service "
                f"account key file: {error}"
            ) from None

    @classmethod
    def is_lc_serializable(cls) -> bool:
        """False: it holds clients and credentials, which LangChain cannot serialize."""
        return False

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        """Where LangChain files this class: ``["groundwire", "langchain"]``."""
        return ["groundwire", "langchain"]

    # -- one answer ------------------------------------------------------------------------

    def extract_documents(self, config: RunnableConfig | None) -> list[Any]:
        """The documents of `config` (``config["configurable"]["documents"]``), as the wrapper.

        Raises:
            InvalidArgument: no config, or no documents in it.
        """
        configurable = (config or {}).get("configurable") or {}
        documents = configurable.get("documents")
        if not documents:
            raise bad_request(
                [("config.configurable.documents", "required")],
                'CheckGroundingRunnable needs documents: config={"configurable": '
                '{"documents": [Document, ...]}}',
            )
        if not isinstance(documents, Sequence) or isinstance(documents, str | bytes):
            raise bad_request(
                [("config.configurable.documents", "expected a list of Documents")],
                f"the documents must be a list of Documents, not {type(documents).__name__}",
            )
        return list(documents)

    def _prepare(self, answer: object, config: RunnableConfig | None) -> _Prepared:
        if not isinstance(answer, str):
            raise bad_request(
                [("input", f"expected the answer as text, got {type(answer).__name__}")],
                f"the input is the answer to check, a str, not {type(answer).__name__}",
            )
        read = document_facts(self.extract_documents(config), "config.configurable.documents")
        scored = self.enable_claim_level_score
        if scored is None:
            scored = self.client.api_version != "v1alpha" or None
        item = {
            "answer_candidate": answer,
            "facts": list(read.facts),
            "citation_threshold": self.citation_threshold,
            "enable_claim_level_score": scored,
            "grounding_config": self.grounding_config,
        }
        return _Prepared(item, read)

    def _check(
        self, answer: str, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> _Response:
        prepared = self._prepare(answer, config)
        return prepared.response(self.client.check_grounding(**prepared.item))

    async def _acheck(
        self, answer: str, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> _Response:
        prepared = self._prepare(answer, config)
        return prepared.response(await self.async_client.check_grounding(**prepared.item))

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> _Response:
        """Checks `input` against ``config["configurable"]["documents"]``.

        Raises:
            GroundwireError: the typed error of what went wrong (`InvalidArgument` for no
                documents or a bad answer, `Unavailable`, `PermissionDenied`, ...).
        """
        return self._call_with_config(self._check, input, config, **kwargs)

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> _Response:
        """`invoke` on the event loop, with groundwire's async client."""
        if self.async_client is None:  # only a sync client was given
            return await super().ainvoke(input, config, **kwargs)
        return await self._acall_with_config(self._acheck, input, config, **kwargs)

    # -- many answers ----------------------------------------------------------------------

    def batch(
        self,
        inputs: list[str],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[_Response]:
        """Checks many answers concurrently, on the library's batch API (`check_grounding_many`).

        `config` is one config for every input, or one per input (each with its documents).
        At most ``max_concurrency`` (or `concurrency`) checks run at once, fewer while the
        server throttles. With `return_exceptions`, a failed input's place holds its
        `GroundwireError`; without, the first failure (in input order) is raised.
        """

        def run(
            answers: list[str],
            run_manager: list[CallbackManagerForChainRun],
            config: list[RunnableConfig],
        ) -> list[Exception | _Response]:
            return self._check_many(answers, config, return_exceptions)

        return self._batch_with_config(
            run, inputs, config, return_exceptions=return_exceptions, **kwargs
        )

    async def abatch(
        self,
        inputs: list[str],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[_Response]:
        """`batch` on the event loop, with the async client's `check_grounding_many`."""
        if self.async_client is None:  # only a sync client was given
            return await super().abatch(
                inputs, config, return_exceptions=return_exceptions, **kwargs
            )

        async def run(
            answers: list[str],
            run_manager: list[AsyncCallbackManagerForChainRun],
            config: list[RunnableConfig],
        ) -> list[Exception | _Response]:
            return await self._acheck_many(answers, config, return_exceptions)

        return await self._abatch_with_config(
            run, inputs, config, return_exceptions=return_exceptions, **kwargs
        )

    def _prepare_many(
        self, answers: list[str], configs: list[RunnableConfig], return_exceptions: bool
    ) -> tuple[list[Any], list[tuple[int, _Prepared]], int]:
        """Each input read, or its error in its place; the ones to send; the concurrency."""
        slots: list[Any] = [None] * len(answers)
        to_send: list[tuple[int, _Prepared]] = []
        for index, (answer, config) in enumerate(zip(answers, configs, strict=True)):
            try:
                to_send.append((index, self._prepare(answer, config)))
            except GroundwireError as error:
                if not return_exceptions:
                    raise
                slots[index] = error
        limits = [config.get("max_concurrency") for config in configs]
        concurrency = min((limit for limit in limits if limit), default=self.concurrency)
        return slots, to_send, concurrency

    def _check_many(
        self, answers: list[str], configs: list[RunnableConfig], return_exceptions: bool
    ) -> list[Any]:
        slots, to_send, concurrency = self._prepare_many(answers, configs, return_exceptions)
        items = (prepared.item for _index, prepared in to_send)
        with self.client.check_grounding_many(items, concurrency=concurrency) as outcomes:
            for outcome in outcomes:
                index, prepared = to_send[outcome.index]
                slots[index] = _settled(outcome.result, outcome.error, prepared, return_exceptions)
        return slots

    async def _acheck_many(
        self, answers: list[str], configs: list[RunnableConfig], return_exceptions: bool
    ) -> list[Any]:
        slots, to_send, concurrency = self._prepare_many(answers, configs, return_exceptions)
        items = [prepared.item for _index, prepared in to_send]
        async with self.async_client.check_grounding_many(
            items, concurrency=concurrency
        ) as outcomes:
            async for outcome in outcomes:
                index, prepared = to_send[outcome.index]
                slots[index] = _settled(outcome.result, outcome.error, prepared, return_exceptions)
        return slots

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the sync client it made (the async one closes with `aclose`).

        Clients passed in as `client` and `async_client` are the caller's to close.
        """
        if self._owns_clients:
            self.client.close()

    async def aclose(self) -> None:
        """Closes both clients it made."""
        self.close()
        if self._owns_clients:
            await self.async_client.close()

    def __enter__(self) -> CheckGroundingRunnable:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _settled(
    result: CheckGroundingResult | None,
    error: GroundwireError | None,
    prepared: _Prepared,
    return_exceptions: bool,
) -> _Response | GroundwireError:
    """One batch outcome as the batch's list holds it; an error raised unless it is kept."""
    if error is not None:
        if not return_exceptions:
            raise error
        return error
    assert result is not None  # a batch outcome holds a result or an error
    return prepared.response(result)


def _client_parameters() -> frozenset[str]:
    """The names `GroundingClient` takes, so they can be passed through this constructor."""
    names = inspect.signature(ClientBase.__init__).parameters
    return frozenset(name for name in names if name != "self")


def _arguments(project: str | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor's arguments in groundwire's names, client arguments set apart."""
    arguments = dict(given)
    if project is not None:
        arguments["project"] = project
    for synonym, name in _SYNONYMS.items():
        if synonym in arguments:
            value = arguments.pop(synonym)
            arguments[name] = one_of(synonym, value, name, arguments.get(name))
    fields = set(CheckGroundingRunnable.model_fields)
    passed_on = {name: arguments.pop(name) for name in list(arguments) if name not in fields}
    unknown = sorted(set(passed_on) - _client_parameters())
    if unknown:
        raise ConfigurationError(
            f"CheckGroundingRunnable takes no argument {', '.join(map(repr, unknown))}; it takes "
            f"{', '.join(sorted({*fields, *_SYNONYMS} - {'client_kwargs'}))} and any "
            "GroundingClient argument"
        )
    if passed_on:
        arguments["client_kwargs"] = {**arguments.get("client_kwargs", {}), **passed_on}
    return arguments


def _problem(error: ValidationError) -> str:
    """The first problem pydantic found, in one line that names the argument."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    # The value is named by its type only: it may be a credential or a key.
    given = type(first.get("input")).__name__
    return f"CheckGroundingRunnable: {where}: {first['msg']} (got a {given})"
