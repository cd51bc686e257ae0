"""A server behaviour that holds each call until the test lets it go: tests wait on events."""

from __future__ import annotations

import threading
from typing import Any

from google.protobuf import message

from groundwire.contract import apis
from tests.support.canned import Behaviour

HOLD_BOUND = 30.0  # a hang guard only: a held call goes on after this even if the test never says


class Held:
    """Answers as `answer` does, once `release()` is called; `arrived` is set by each call."""

    def __init__(self, answer: Behaviour) -> None:
        self.answer = answer
        self.arrived = threading.Event()
        self._released = threading.Event()

    def __call__(self, method: apis.Method, request: message.Message) -> Any:
        self.arrived.set()
        self._released.wait(HOLD_BOUND)
        return self.answer(method, request)

    def wait_arrived(self) -> None:
        """Returns once a call has reached the server (a failed assertion after the bound)."""
        assert self.arrived.wait(HOLD_BOUND), f"no call reached the server in {HOLD_BOUND} s"

    def release(self) -> None:
        """Lets every held call, and every later one, answer."""
        self._released.set()
