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
- ``grounding_stubs`` (function): `GroundingStubs`, this test's stubs and requests on
  ``grounding_test_emulator``: its stubs are removed after the test, and its `requests`
  are only those made during the test. ``@pytest.mark.grounding_stub(method, **fields)``
  (repeatable) registers a stub for the test the same way.
- Cassettes: when ``cassettes/<module>.jsonl`` lies beside a test module (``tests/test_app.py``:
  ``tests/cassettes/test_app.jsonl``, recorded with ``groundwire serve --record``), that
  module's tests talk to an emulator that replays it (`cassette_for`), at once rather than at
  the recorded pace; a call the cassette does not hold fails with FAILED_PRECONDITION.
  Stubs still come first.

Example:
    >>> @pytest.mark.grounding_faults(rate=1.0, codes=["UNAVAILABLE"])
    ... def test_the_service_copes(grounding_client): ...
    >>> @pytest.mark.grounding_stub("CheckGrounding", response={"supportScore": 0.25})
    ... def test_a_low_score_is_flagged(grounding_client, grounding_stubs): ...
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:
    from groundwire.client.aio import AsyncGroundingClient
    from groundwire.client.sync import GroundingClient
    from groundwire.emulator import Emulator
    from groundwire.emulator.faults import FaultPolicy
    from groundwire.emulator.judges import UserJudge
    from groundwire.emulator.replay import ReplayOptions

__all__ = ["GroundingStubs", "cassette_for", "fault_policy", "official_grounding_client_for"]

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


STUB_MARKER = "grounding_stub"
_STUB_MARKER_HELP = (
    f"{STUB_MARKER}(method, match=..., response=... | error=... | stream=... | sequence=..., "
    "times=..., priority=..., delay_ms=...): a stub on this test's emulator, removed after it "
    "(groundwire's pytest plugin)"
)


def pytest_configure(config: pytest.Config) -> None:
    """Register the plugin's markers (``--strict-markers`` accepts them) and its async fixture."""
    config.addinivalue_line("markers", _MARKER_HELP)
    config.addinivalue_line("markers", _STUB_MARKER_HELP)
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
    from groundwire.contract.errors import ConfigurationError, StatusCode
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


def cassette_for(test_module: Path) -> Path:
    """Where the cassette of a test module lies: ``cassettes/<module>.jsonl`` beside it.

    Example:
        >>> cassette_for(Path("tests/test_app.py")).as_posix()
        'tests/cassettes/test_app.jsonl'
    """
    return test_module.parent / "cassettes" / f"{test_module.stem}.jsonl"


@pytest.fixture(scope="module")
def grounding_module_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """A test module's emulator: one replaying its cassette if it has one, else the session's."""
    cassette = cassette_for(request.path)
    if not cassette.exists():
        yield request.getfixturevalue("grounding_emulator")
        return
    from groundwire.emulator import emulator

    judge = request.getfixturevalue("grounding_judge")
    with emulator(replay=_replay(cassette), judge=judge) as running:
        yield running


@pytest.fixture
def grounding_test_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """The emulator this test talks to: its module's, or its own for faults or a judge.

    Stubs from the test's ``grounding_stub`` markers are on it during the test.
    """
    faults = request.node.get_closest_marker(FAULTS_MARKER)
    judge = request.node.get_closest_marker(JUDGE_MARKER)
    if faults is None and judge is None:
        module_emulator = request.getfixturevalue("grounding_module_emulator")
        with _marked_stubs(request, module_emulator) as running:
            yield running
        return
    policy = None if faults is None else _marker_policy(faults)
    if judge is None:
        judging: dict[str, Any] = {"judge": request.getfixturevalue("grounding_judge")}
    else:
        judging = _judge_options(*judge.args, **judge.kwargs)
    from groundwire.emulator import emulator

    cassette = cassette_for(request.path)
    replay = _replay(cassette) if cassette.exists() else None
    with (
        emulator(faults=policy, replay=replay, **judging) as own,
        _marked_stubs(request, own) as running,
    ):
        yield running


def _replay(cassette: Path) -> ReplayOptions:
    from groundwire.emulator.replay import ReplayOptions

    return ReplayOptions(cassette, speed=0)


class GroundingStubs:
    """One test's stubs and requests on its emulator; the stubs are removed after the test.

    Example:
        >>> def test_retries(grounding_client, grounding_stubs):  # doctest: +SKIP
        ...     grounding_stubs.stub("CheckGrounding", times=1, error={"code": "UNAVAILABLE"})
        ...     grounding_client.check_grounding("Paris is in France.", facts=["..."])
        ...     assert len(grounding_stubs.requests("CheckGrounding")) == 2
    """

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self._stub_ids: list[str] = []
        self._after = emulator.last_request_number()

    def stub(self, method: str, **fields: Any) -> dict[str, Any]:
        """Registers a stub for this test (see `Emulator.stub`); returns it with its `id`."""
        stub = self.emulator.stub(method, **fields)
        self._stub_ids.append(stub["id"])
        return stub

    def requests(self, method: str | None = None) -> list[dict[str, Any]]:
        """The requests received during this test, oldest first (see `Emulator.requests`)."""
        return self.emulator.requests(method, after=self._after)

    def remove(self) -> None:
        """Removes the stubs this test registered (those already removed are skipped)."""
        from groundwire.contract.errors import NotFound

        for stub_id in self._stub_ids:
            with contextlib.suppress(NotFound):
                self.emulator.remove_stub(stub_id)
        self._stub_ids.clear()


@contextlib.contextmanager
def _marked_stubs(request: pytest.FixtureRequest, emulator: Emulator) -> Iterator[Emulator]:
    markers = list(request.node.iter_markers(STUB_MARKER))
    if not markers:
        yield emulator
        return
    scope = GroundingStubs(emulator)
    try:
        for marker in reversed(markers):  # the closest marker last: the newest stub wins
            scope.stub(*marker.args, **marker.kwargs)
        yield emulator
    finally:
        scope.remove()


@pytest.fixture
def grounding_stubs(grounding_test_emulator: Emulator) -> Iterator[GroundingStubs]:
    """This test's `GroundingStubs`: stubs removed after it, its own requests only."""
    scope = GroundingStubs(grounding_test_emulator)
    try:
        yield scope
    finally:
        scope.remove()


def _judge_options(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """The `emulator` arguments a ``grounding_judge`` marker asks for; ConfigurationError if bad."""
    from groundwire.emulator.limits import DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT

    def grounding_judge(
        judge: UserJudge | str | None,
        timeout: float = DEFAULT_JUDGE_TIMEOUT,
        concurrency: int = DEFAULT_JUDGE_CONCURRENCY,
    ) -> dict[str, Any]:
        return {"judge": judge, "judge_timeout": timeout, "judge_concurrency": concurrency}

    try:
        return grounding_judge(*args, **kwargs)
    except TypeError as error:
        from groundwire.contract.errors import ConfigurationError

        raise ConfigurationError(
            f"{error}; it takes (judge=..., timeout=30.0, concurrency=4)"
        ) from None


def _marker_policy(marker: pytest.Mark) -> FaultPolicy:
    """The fault policy a ``grounding_faults`` marker asks for; ConfigurationError if malformed."""
    import inspect

    from groundwire.contract.errors import ConfigurationError

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
        from groundwire.contract.errors import ConfigurationError

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
