"""`groundwire serve --judge MODULE:CALLABLE`: each process imports it; a bad one is one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundwire import DeadlineExceeded, GroundingClient
from tests.cli.running import cli_command, cli_env

pytestmark = pytest.mark.timeout(60)

ANNOUNCEMENT = re.compile(r"gRPC (?P<grpc>\S+), REST (?P<rest>\S+) ")
FACTS = ["Paris is the capital of France.", "Bananas are yellow in Paris."]
"""The second shares "Paris" with each claim below: a passage the judge sees for both."""
JUDGE_MODULE = '''
"""A judge for the serve tests; each process that imports it notes its pid."""
import os
import threading

with open(os.environ["JUDGE_IMPORTS"], "a") as imports:
    imports.write(f"{os.getpid()}\\n")


def prefers_bananas(claim, passages):
    return [1.0 if "Bananas" in passage else 0.0 for passage in passages]


def hangs(claim, passages):
    threading.Event().wait(30)
    return [1.0] * len(passages)


not_callable = 3
'''


@pytest.fixture
def judge_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a `serve` that can import `serve_judge`, which logs its importers."""
    (tmp_path / "serve_judge.py").write_text(textwrap.dedent(JUDGE_MODULE))
    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    env["JUDGE_IMPORTS"] = str(tmp_path / "imports")
    return env


def _serve(env: dict[str, str], *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_command("serve", "--grpc-port", "0", "--http-port", "0", *flags),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the teardown can kill its workers too
    )


def _started(process: subprocess.Popen[str]) -> tuple[str, str]:
    assert process.stdout is not None
    line = process.stdout.readline()
    found = ANNOUNCEMENT.search(line)
    assert found, f"unexpected announcement {line!r}"
    return found["grpc"], found["rest"]


def _stopped(process: subprocess.Popen[str]) -> int:
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=20)
    return process.returncode


@pytest.fixture
def stopped_at_the_end() -> Iterator[list[subprocess.Popen[str]]]:
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        if process.poll() is None:  # a failed test: the parent and its workers hold the pipes
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate(timeout=10)


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_serve_with_a_judge_cites_what_it_scores_in_every_worker(
    judge_env: dict[str, str], workers: int, stopped_at_the_end: list[subprocess.Popen[str]]
) -> None:
    process = _serve(judge_env, "--judge", "serve_judge:prefers_bananas", "--workers", str(workers))
    stopped_at_the_end.append(process)
    grpc_address, rest_url = _started(process)
    for transport in ("grpc", "rest"):
        with GroundingClient(
            "p", endpoint=grpc_address, rest_endpoint=rest_url, transport=transport
        ) as client:
            for _ in range(2 * workers):  # calls land on either worker
                result = client.check_grounding(
                    "Paris is in France. Rome is older than Paris.", FACTS
                )
                assert [c.citations[0].text for c in result.claims] == [FACTS[1], FACTS[1]]
    assert _stopped(process) == 0
    importers = Path(judge_env["JUDGE_IMPORTS"]).read_text().split()
    assert len(set(importers)) == workers
    assert (str(process.pid) in importers) == (workers == 1)  # workers import it, not the parent


def test_serve_answers_deadline_exceeded_past_the_judge_timeout_and_still_stops(
    judge_env: dict[str, str], stopped_at_the_end: list[subprocess.Popen[str]]
) -> None:
    process = _serve(judge_env, "--judge", "serve_judge:hangs", "--judge-timeout", "0.2")
    stopped_at_the_end.append(process)
    grpc_address, rest_url = _started(process)
    with (
        GroundingClient("p", endpoint=grpc_address, rest_endpoint=rest_url, retry=None) as client,
        pytest.raises(DeadlineExceeded, match=r"serve_judge:hangs gave no scores within 0\.2 s"),
    ):
        client.check_grounding("Paris is in France.", FACTS)
    assert _stopped(process) == 0


@pytest.mark.parametrize(
    ("flags", "status", "message"),
    [
        (
            ["--judge", "no_such_module:judge"],
            2,
            "--judge: cannot import the judge's module 'no_such_module': ModuleNotFoundError: "
            "No module named 'no_such_module'",
        ),
        (
            ["--judge", "serve_judge:missing"],
            2,
            "--judge: the judge 'serve_judge:missing' does not exist: nothing is called 'missing' "
            "there",
        ),
        (
            ["--judge", "serve_judge:not_callable"],
            2,
            "serve_judge:not_callable is not callable (its type is int)",
        ),
        (["--judge", "serve_judge"], 2, "a judge is named MODULE:CALLABLE, not 'serve_judge'"),
        (["--judge", "serve_judge:hangs", "--judge-timeout", "0"], 2, "timeout must be a positive"),
        (["--judge", "serve_judge:hangs", "--judge-concurrency", "0"], 2, "at least 1, not 0"),
        (
            ["--judge", "no_such_module:judge", "--workers", "2"],
            1,
            "worker * could not start: ConfigurationError: INVALID_ARGUMENT: cannot import",
        ),
    ],
)
def test_a_judge_that_cannot_load_stops_serve_with_one_line(
    judge_env: dict[str, str], flags: list[str], status: int, message: str
) -> None:
    process = _serve(judge_env, *flags)
    stdout, stderr = process.communicate(timeout=50)
    assert process.returncode == status
    assert stdout == ""
    (line,) = stderr.splitlines()
    assert line.startswith("groundwire: error: ")
    assert re.search(re.escape(message).replace(r"\*", ".*"), line), line
