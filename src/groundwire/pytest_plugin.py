"""groundwire's pytest plugin: an offline emulator and clients connected to it, as fixtures.

Installed with groundwire, pytest loads it through the ``pytest11`` entry point. Loading it
imports nothing but pytest: the emulator, gRPC and the clients load when a test first asks
for one of these fixtures.

- ``grounding_emulator`` (session): an in-process emulator (`groundwire.emulator.Emulator`),
  fault-free, started on first use, with the session's ``grounding_judge``.
- ``grounding_judge`` (session): the judge that scores claims in the engine's place, None for
  the engine itself: ``--groundwire-judge MODULE:CALLABLE`` or the ``groundwire_judge`` ini
  option; override the fixture in a ``conftest.py`` to return a function instead.
- ``grounding_test_emulator`` (function): the emulator this test talks to. That is the
  session's, unless the test carries ``@pytest.mark.grounding_faults(...)`` or
  ``@pytest.mark.grounding_judge(judge=..., timeout=30.0, concurrency=4)``. Then it is an
  emulator of its own, started with those faults and that judge (else the session's) and
  stopped after the test: an emulator's faults and judge are fixed when it starts.
- ``grounding_client`` / ``async_grounding_client`` (function): a `GroundingClient` /
  `AsyncGroundingClient` connected to ``grounding_test_emulator``, closed after the test.
  The async one needs pytest-asyncio, and only when a test uses it.
- ``official_grounding_client`` (function) and `official_grounding_client_for`: Google's
  ``GroundedGenerationServiceClient`` (``groundwire[official]``) connected to the emulator,
  for tests moving from it.

Example:
    >>> @pytest.mark.grounding_faults(rate=1.0, codes=["UNAVAILABLE"])
    ... def test_the_service_copes(grounding_client): ...
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from groundwire.aio import AsyncGroundingClient
    from groundwire.client import GroundingClient
    from groundwire.emulator import Emulator
    from groundwire.emulator.faults import FaultPolicy
    from groundwire.emulator.judges import UserJudge

__all__ = ["fault_policy", "official_grounding_client_for"]

FAULTS_MARKER = "grounding_faults"
_MARKER_HELP = (
    f"{FAULTS_MARKER}(rate=0.0, codes=['UNAVAILABLE'], latency_ms=0, seed=None): run this test "
    "against an emulator of its own that injects these faults (groundwire's pytest plugin)"
)
JUDGE_MARKER = "grounding_judge"
_JUDGE_MARKER_HELP = (
    f"{JUDGE_MARKER}(judge=..., timeout=30.0, concurrency=4): run this test against an emulator "
    "of its own whose claims `judge` scores (a function or 'module:callable'; None: the engine)"
)
_JUDGE_HELP = "MODULE:CALLABLE: the judge that scores claims in the emulator's engine's place"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--groundwire-judge`` and the ``groundwire_judge`` ini option."""
    parser.addoption("--groundwire-judge", metavar="MODULE:CALLABLE", help=_JUDGE_HELP)
    parser.addini("groundwire_judge", _JUDGE_HELP)


def pytest_configure(config: pytest.Config) -> None:
    """Register the plugin's markers (``--strict-markers`` accepts them) and async fixture."""
    config.addinivalue_line("markers", _MARKER_HELP)
    config.addinivalue_line("markers", _JUDGE_MARKER_HELP)
    config.pluginmanager.register(_async_fixtures(config), "groundwire-async-fixtures")


def fault_policy(
    rate: float = 0.0,
    codes: Sequence[str | int] = ("UNAVAILABLE",),
    latency_ms: int = 0,
    seed: int | None = None,
) -> FaultPolicy:
    """The emulator's fault policy for a ``grounding_faults`` marker's arguments.

    ``codes`` are status code names (``"RESOURCE_EXHAUSTED"``) or numbers; a name or a value
    the policy refuses is a `ConfigurationError` (also a `ValueError`).

    Example:
        >>> fault_policy(rate=0.5, codes=["RESOURCE_EXHAUSTED", 14]).codes
        (<StatusCode.RESOURCE_EXHAUSTED: 8>, <StatusCode.UNAVAILABLE: 14>)
    """
    from groundwire.core.client_options import ConfigurationError
    from groundwire.core.errors import StatusCode
    from groundwire.emulator.faults import FaultPolicy

    status_codes = []
    for code in codes:
        try:
            status_codes.append(
                StatusCode[code.upper()] if isinstance(code, str) else StatusCode(code)
            )
        except (KeyError, ValueError):
            names = ", ".join(status.name for status in StatusCode if status != StatusCode.OK)
            raise ConfigurationError(
                f"{FAULTS_MARKER}: {code!r} is not a status code; use one of {names}"
            ) from None
    try:
        return FaultPolicy(rate, tuple(status_codes), latency_ms, seed)
    except ValueError as error:
        raise ConfigurationError(f"{FAULTS_MARKER}: {error}") from None


@pytest.fixture(scope="session")
def grounding_judge(pytestconfig: pytest.Config) -> UserJudge | str | None:
    """The session's judge: ``--groundwire-judge``, else the ``groundwire_judge`` ini option.

    None (the engine scores) when neither is set. Override this fixture in a ``conftest.py``
    to return a judge function instead.
    """
    named = pytestconfig.getoption("groundwire_judge") or pytestconfig.getini("groundwire_judge")
    return str(named) if named else None


@pytest.fixture(scope="session")
def grounding_emulator(grounding_judge: UserJudge | str | None) -> Iterator[Emulator]:
    """An in-process emulator on free loopback ports for the whole session, fault-free."""
    from groundwire.emulator import emulator

    with emulator(judge=grounding_judge) as running:
        yield running


@pytest.fixture
def grounding_test_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """The emulator this test talks to: the session's, or its own for faults or a judge."""
    faults = request.node.get_closest_marker(FAULTS_MARKER)
    judge = request.node.get_closest_marker(JUDGE_MARKER)
    if faults is None and judge is None:
        yield request.getfixturevalue("grounding_emulator")
        return
    policy = None if faults is None else _marker_policy(faults)
    if judge is None:
        judging: dict[str, Any] = {"judge": request.getfixturevalue("grounding_judge")}
    else:
        judging = _judge_options(*judge.args, **judge.kwargs)
    from groundwire.emulator import emulator

    with emulator(faults=policy, **judging) as running:
        yield running


def _judge_options(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The `emulator` arguments a ``grounding_judge`` marker asks for; ConfigurationError if bad."""

    def grounding_judge(
        judge: UserJudge | str | None, timeout: float = 30.0, concurrency: int = 4
    ) -> dict[str, Any]:
        return {"judge": judge, "judge_timeout": timeout, "judge_concurrency": concurrency}

    try:
        return grounding_judge(*args, **kwargs)
    except TypeError as error:
        from groundwire.core.client_options import ConfigurationError

        raise ConfigurationError(
            f"{error}; it takes (judge=..., timeout=30.0, concurrency=4)"
        ) from None


def _marker_policy(marker: pytest.Mark) -> FaultPolicy:
    """The fault policy a ``grounding_faults`` marker asks for; ConfigurationError if malformed."""
    import inspect

    from groundwire.core.client_options import ConfigurationError

    if marker.args:
        raise ConfigurationError(f"{FAULTS_MARKER} takes keyword arguments only")
    keywords = inspect.signature(fault_policy).parameters
    for name in marker.kwargs:
        if name not in keywords:
            raise ConfigurationError(
                f"{FAULTS_MARKER} has no keyword {name!r}; its keywords are {', '.join(keywords)}"
            )
    return fault_policy(**marker.kwargs)


@pytest.fixture
def grounding_client(grounding_test_emulator: Emulator) -> Iterator[GroundingClient]:
    """A `GroundingClient` connected to this test's emulator, closed after the test."""
    with grounding_test_emulator.client() as client:
        yield client


def _async_fixtures(config: pytest.Config) -> object:
    """The plugin's async fixture, where pytest-asyncio runs; else one that says it is needed."""
    if not config.pluginmanager.hasplugin("asyncio"):
        return _NeedsPytestAsyncio()
    import pytest_asyncio

    class AsyncFixtures:
        @pytest_asyncio.fixture
        async def async_grounding_client(
            self, grounding_test_emulator: Emulator
        ) -> AsyncIterator[AsyncGroundingClient]:
            """An `AsyncGroundingClient` connected to this test's emulator, closed after it."""
            async with grounding_test_emulator.async_client() as client:
                yield client

    return AsyncFixtures()


class _NeedsPytestAsyncio:
    """Where pytest-asyncio is not installed (or is disabled): the async fixture fails."""

    @pytest.fixture
    def async_grounding_client(self) -> None:
        """Fails the test that asks for it, saying what to install."""
        pytest.fail(
            "async_grounding_client needs pytest-asyncio: pip install pytest-asyncio",
            pytrace=False,
        )


def official_grounding_client_for(
    emulator: Emulator,
    *,
    api_version: Literal["v1", "v1beta", "v1alpha"] = "v1",
    transport: Literal["grpc", "rest"] = "grpc",
) -> Any:
    """Google's ``GroundedGenerationServiceClient`` connected to ``emulator``, without credentials.

    It comes from google-cloud-discoveryengine (``pip install 'groundwire[official]'``);
    close it with ``client.transport.close()`` or ``with client:``.

    Raises:
        ConfigurationError: google-cloud-discoveryengine is not installed.

    Example:
        >>> client = official_grounding_client_for(emu)  # doctest: +SKIP
        >>> client.check_grounding(request=...)  # doctest: +SKIP
    """
    try:
        module = importlib.import_module(f"google.cloud.discoveryengine_{api_version}")
    except ImportError:
        from groundwire.core.client_options import ConfigurationError

        raise ConfigurationError(
            "the official client needs google-cloud-discoveryengine: "
            "pip install 'groundwire[official]'"
        ) from None
    if transport == "rest":
        from google.auth.credentials import AnonymousCredentials

        return module.GroundedGenerationServiceClient(
            transport="rest",
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            client_options={"api_endpoint": emulator.http_url},
        )
    import grpc

    transports = importlib.import_module(
        f"{module.__name__}.services.grounded_generation_service.transports"
    )
    channel = grpc.insecure_channel(emulator.grpc_address)
    return module.GroundedGenerationServiceClient(
        transport=transports.GroundedGenerationServiceGrpcTransport(channel=channel)
    )


@pytest.fixture
def official_grounding_client(grounding_test_emulator: Emulator) -> Iterator[Any]:
    """Google's official v1 client over gRPC, connected to this test's emulator, then closed."""
    client = official_grounding_client_for(grounding_test_emulator)
    try:
        yield client
    finally:
        client.transport.close()
