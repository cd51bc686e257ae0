"""A judge of the user's own: their function scores claims against passages in the engine's place.

The user writes ``judge(claim: str, passages: list[str]) -> list[float]``, one score in [0, 1]
per passage, as a plain or an ``async`` function. A judge that can score many claims at once
also has a ``batch`` attribute: ``judge.batch(pairs: list[tuple[str, list[str]]])`` returning
one list of scores per pair (plain or ``async`` too); groundwire then calls it once per request
instead of once per claim.

:class:`Judge` turns that function into what the engine calls: once per request, with every
claim that needs a check and its passages, giving back one validated list of scores per claim.
Async judges run on one event loop thread per process, plain ones each on a thread of their
own. At most ``concurrency`` calls run at once (a plain call past its timeout still counts
until it returns); ``timeout`` bounds a request's scoring, waiting for a free slot included.
A judge that raises or answers nonsense is INTERNAL, one past the timeout DEADLINE_EXCEEDED,
each naming the judge; the next request is judged afresh.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import math
import numbers
import threading
from collections.abc import Callable, Mapping
from typing import Any

from groundwire.contract.errors import ConfigurationError, DeadlineExceeded, Internal
from groundwire.emulator.engine.grounding import BatchJudge, ClaimsAndPassages
from groundwire.emulator.limits import DEFAULT_JUDGE_CONCURRENCY, DEFAULT_JUDGE_TIMEOUT
from groundwire.emulator.serving import LoopThread

UserJudge = Callable[[str, list[str]], Any]
"""The user's ``judge(claim, passages) -> list[float]``, plain or ``async``."""


class Judge:
    """The user's judge as the engine calls it: ``judge(pairs)`` gives one score list per pair.

    ``judge`` is the function itself or ``"module:callable"`` to import, which happens at
    :meth:`load` (the servers load it when they start, each worker process for itself). Pairs
    without passages get an empty list and cost no call. A bad timeout or concurrency is a
    `ConfigurationError`.

    Example:
        >>> def overlap(claim, passages):
        ...     return [float(claim.split()[0] in passage) for passage in passages]
        >>> Judge(overlap, timeout=5)([("Paris is old.", ["Paris, France", "Rome"]), ("Hi", [])])
        [[1.0, 0.0], []]
    """

    def __init__(
        self,
        judge: UserJudge | str,
        *,
        timeout: float = DEFAULT_JUDGE_TIMEOUT,
        concurrency: int = DEFAULT_JUDGE_CONCURRENCY,
    ) -> None:
        if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout > 0):
            raise ConfigurationError(f"the judge timeout must be a positive number, not {timeout}")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigurationError(f"the judge concurrency must be at least 1, not {concurrency}")
        self.timeout = float(timeout)
        self.concurrency = concurrency
        self._target = judge
        self._function: Any = None
        if isinstance(judge, str):
            self.name = judge
        else:
            self.name = _name_of(judge)
            self._function = _checked(judge, self.name)
        self._slots = asyncio.Semaphore(concurrency)

    def load(self) -> None:
        """Imports the judge named ``module:callable``, once; `ConfigurationError` if it cannot."""
        if self._function is None:
            self._function = _checked(load_judge(str(self._target)), self.name)

    def __getstate__(self) -> dict[str, Any]:
        """What a worker process gets: the target, not the loaded judge (it loads its own)."""
        return {"judge": self._target, "timeout": self.timeout, "concurrency": self.concurrency}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuilds the judge in a worker process, not yet loaded."""
        self.__init__(  # type: ignore[misc]
            state["judge"], timeout=state["timeout"], concurrency=state["concurrency"]
        )

    def __call__(self, pairs: ClaimsAndPassages) -> list[list[float]]:
        """Scores every claim against its passages; `Internal` or `DeadlineExceeded` if it fails.

        Called from any thread but the judges' own loop.
        """
        self.load()
        asked = [(position, pair) for position, pair in enumerate(pairs) if pair[1]]
        scores: list[list[float]] = [[] for _ in pairs]
        if not asked:
            return scores
        scoring = asyncio.run_coroutine_threadsafe(
            self._score([pair for _, pair in asked]), _judges_loop.loop()
        )
        try:
            answered = scoring.result(self.timeout)
        except TimeoutError:
            scoring.cancel()
            raise DeadlineExceeded(
                f"the judge {self.name} gave no scores within {self.timeout:g} s "
                "(the judge timeout)"
            ) from None
        for (position, _), claim_scores in zip(asked, answered, strict=True):
            scores[position] = claim_scores
        return scores

    async def _score(self, pairs: ClaimsAndPassages) -> list[list[float]]:
        batch = getattr(self._function, "batch", None)
        if callable(batch):
            returned = await self._run(
                batch, [(claim, list(passages)) for claim, passages in pairs]
            )
            rows = self._listed(returned, len(pairs), "lists of scores", "claims")
            return [
                self._scores(row, len(passages))
                for row, (_, passages) in zip(rows, pairs, strict=True)
            ]
        calls = [
            asyncio.ensure_future(self._run(self._function, claim, list(passages)))
            for claim, passages in pairs
        ]
        try:
            returned_all = await asyncio.gather(*calls)
        except BaseException:
            for call in calls:
                call.cancel()
            raise
        return [
            self._scores(returned, len(passages))
            for returned, (_, passages) in zip(returned_all, pairs, strict=True)
        ]

    async def _run(self, function: Callable[..., Any], *arguments: Any) -> Any:
        """One call of the user's function within the concurrency cap; raising is `Internal`."""
        await self._slots.acquire()
        if _is_async(function):
            try:
                return await function(*arguments)
            except Exception as error:
                raise self._failed(error) from None
            finally:
                self._slots.release()
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[Any] = loop.create_future()

        def finish(returned: Any, error: BaseException | None) -> None:
            self._slots.release()  # only now: a call past its timeout still runs until here
            if outcome.cancelled():
                return
            if error is None:
                outcome.set_result(returned)
            else:
                outcome.set_exception(self._failed(error))

        def call() -> None:
            try:
                returned = function(*arguments)
            except BaseException as error:  # reported to the caller, never lost in the thread
                loop.call_soon_threadsafe(finish, None, error)
            else:
                loop.call_soon_threadsafe(finish, returned, None)

        threading.Thread(target=call, name="groundwire-judge-call", daemon=True).start()
        return await outcome

    def _failed(self, error: BaseException) -> Internal:
        return Internal(f"the judge {self.name} raised {type(error).__name__}: {error}")

    def _listed(self, returned: Any, expected: int, what: str, per: str) -> list[Any]:
        if isinstance(returned, str | bytes | Mapping) or not hasattr(returned, "__iter__"):
            raise Internal(
                f"the judge {self.name} returned a {type(returned).__name__}, not a list of {what}"
            )
        listed = list(returned)
        if len(listed) != expected:
            raise Internal(
                f"the judge {self.name} returned {len(listed)} {what} for {expected} {per}; "
                f"it must return one per {per.rstrip('s')}"
            )
        return listed

    def _scores(self, returned: Any, passages: int) -> list[float]:
        scores = self._listed(returned, passages, "scores", "passages")
        for position, score in enumerate(scores):
            if (
                isinstance(score, bool)
                or not isinstance(score, numbers.Real)
                or not 0.0 <= float(score) <= 1.0
            ):
                raise Internal(
                    f"the judge {self.name} returned {score!r} for passage {position}; "
                    "a score is a number within [0, 1]"
                )
        return [float(score) for score in scores]


def load_judge(target: str) -> UserJudge:
    """The judge that ``"module:callable"`` names (``callable`` may be dotted: ``Class.method``).

    Raises `ConfigurationError`, in one line, when the module cannot be imported, lacks the
    attribute, or the attribute is not callable.

    Example:
        >>> load_judge("math:isclose").__name__
        'isclose'
    """
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ConfigurationError(f"a judge is named MODULE:CALLABLE, not {target!r}")
    try:
        found: Any = importlib.import_module(module_name)
    except Exception as error:  # the user's module may fail in any way while it loads
        raise ConfigurationError(
            f"cannot import the judge's module {module_name!r}: {type(error).__name__}: {error}"
        ) from None
    for name in attribute.split("."):
        try:
            found = getattr(found, name)
        except AttributeError:
            raise ConfigurationError(
                f"the judge {target!r} does not exist: nothing is called {name!r} there"
            ) from None
    return _checked(found, target)


def _checked(judge: Any, name: str) -> Any:
    if not callable(judge) and not callable(getattr(judge, "batch", None)):
        raise ConfigurationError(
            f"the judge {name} is not callable (its type is {type(judge).__name__})"
        )
    return judge


def _name_of(judge: object) -> str:
    module = getattr(judge, "__module__", None)
    name = getattr(judge, "__qualname__", None) or type(judge).__qualname__
    return f"{module}:{name}" if module else name


def _is_async(function: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004 - an object whose __call__ is async
    )


_judges_loop = LoopThread("groundwire-judges")
"""Where every async judge of this process runs."""

__all__ = [
    "DEFAULT_JUDGE_CONCURRENCY",
    "DEFAULT_JUDGE_TIMEOUT",
    "BatchJudge",
    "ClaimsAndPassages",
    "Judge",
    "UserJudge",
    "load_judge",
]
