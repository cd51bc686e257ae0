"""Fork scenarios, each run in a fresh interpreter: `python -m tests.client.forking NAME TRANSPORT`.

A fresh interpreter holds no gRPC state from other tests, so what a scenario shows is the
client's doing. It prints one JSON object; a child that hangs is killed by its alarm and
reported as died, so a hang fails the test instead of stopping the suite. The embedded
emulator runs in a spawned process, as a real server runs apart from its clients.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from groundwire import AsyncGroundingClient, GroundingClient
from groundwire.emulator import Emulator, emulator

ANSWER = "Paris is in France."
FACTS = ["Paris is in France."]
CHILD_SECONDS = 20


def in_child(work: Callable[[], str]) -> str:
    """What `work` says in a forked child, its error as `Type: message`, or how it died."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        signal.alarm(CHILD_SECONDS)
        try:
            outcome = work()
        except BaseException as error:
            outcome = f"{type(error).__name__}: {error}"
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode()
    code = os.waitstatus_to_exitcode(status)
    return said if code == 0 else f"died: {code}"


def connections_to(port: int) -> set[int]:
    """The inodes of this process's TCP sockets connected to `port` on loopback."""
    wanted: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if int(fields[2].rsplit(":", 1)[1], 16) == port:
                    wanted.add(fields[9])
    mine = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in wanted:
            mine.add(int(target[8:-1]))
    return mine


def carrier(client: GroundingClient | AsyncGroundingClient) -> str:
    """The class of the transport that carries the client's Discovery Engine calls."""
    return type(next(iter(client._transports.values()))).__name__


def calls(client: GroundingClient, count: int = 3) -> str:
    """`count` calls in a row; 'ok' when each checked the answer."""
    for _ in range(count):
        result = client.check_grounding(ANSWER, FACTS)
        assert result.claims[0].text == ANSWER
    return "ok"


def idle(emu: Emulator, transport: str) -> dict[str, Any]:
    """A client used, then forked while idle: the child calls, then the parent again.

    The child reports how many of the parent's REST connections it used; the parent,
    whether it still has the same ones.
    """
    client = emu.client(transport=transport, timeout=10)
    calls(client)
    rest_port = int(emu.http_url.rsplit(":", 1)[1])
    parents = connections_to(rest_port)

    def child() -> str:
        calls(client)
        shared = connections_to(rest_port) & parents
        return f"ok, {carrier(client)}, shares {len(shared)}"

    outcome = in_child(child)
    parent = calls(client)
    kept = connections_to(rest_port) == parents  # the child's leaving closed none of them
    client.close()
    return {"child": outcome, "parent": f"{parent}, {'kept' if kept else 'reconnected'}"}


def busy(emu: Emulator, transport: str) -> dict[str, Any]:
    """A fork while two threads have gRPC calls in flight: the child calls once."""
    client = emu.client(transport=transport, timeout=10)
    calls(client)
    stop = threading.Event()
    calling = threading.Barrier(3, timeout=30)  # both threads have answered once: they call on

    def hammer() -> None:
        grpc_client = emu.client(transport="grpc", timeout=10)
        grpc_client.check_grounding(ANSWER, FACTS)
        calling.wait()
        while not stop.is_set():
            grpc_client.check_grounding(ANSWER, FACTS)
        grpc_client.close()

    threads = [threading.Thread(target=hammer) for _ in range(2)]
    for thread in threads:
        thread.start()
    calling.wait()
    try:
        outcome = in_child(lambda: f"{calls(client, 1)}, {carrier(client)}")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    parent = calls(client)
    client.close()
    return {"child": outcome, "parent": parent}


def streaming(emu: Emulator, transport: str) -> dict[str, Any]:
    """A fork while this very thread holds a gRPC stream open, half read."""
    client = emu.client(transport=transport, timeout=10)
    stream = client.stream_generate_grounded_content("Where is Paris?", facts=FACTS)
    next(stream)
    outcome = in_child(lambda: f"{calls(client, 1)}, {carrier(client)}")
    for _ in stream:
        pass
    parent = calls(client)
    client.close()
    return {"child": outcome, "parent": parent}


def async_after_fork(emu: Emulator, transport: str) -> dict[str, Any]:
    """An async client used (and left open) in the parent, then in a forked child."""
    client = emu.async_client(transport=transport, timeout=10)

    async def call() -> str:
        result = await client.check_grounding(ANSWER, FACTS)
        assert result.claims[0].text == ANSWER
        return "ok"

    asyncio.run(call())
    outcome = in_child(lambda: f"{asyncio.run(call())}, {carrier(client)}")
    parent = asyncio.run(call())

    async def close() -> None:
        await client.close()

    asyncio.run(close())
    return {"child": outcome, "parent": parent}


_POOL_CLIENT: GroundingClient | None = None


def _checked(number: int) -> str:
    assert _POOL_CLIENT is not None
    answer = f"Paris is in France, says worker call {number}."
    result = _POOL_CLIENT.check_grounding(answer, FACTS)
    return "ok" if result.claims[0].text == answer else f"crossed: {result.claims[0].text}"


def pool(emu: Emulator, transport: str) -> dict[str, Any]:
    """A module-level client, used before a fork-started `multiprocessing.Pool` maps on it."""
    global _POOL_CLIENT
    _POOL_CLIENT = emu.client(transport=transport, timeout=10)
    calls(_POOL_CLIENT)
    with multiprocessing.get_context("fork").Pool(2) as workers:
        outcomes = workers.map_async(_checked, range(8)).get(timeout=CHILD_SECONDS)
    parent = calls(_POOL_CLIENT)
    _POOL_CLIENT.close()
    return {"child": sorted(set(outcomes)), "parent": parent}


SCENARIOS = {
    "idle": idle,
    "busy": busy,
    "streaming": streaming,
    "async": async_after_fork,
    "pool": pool,
}


def _serve(addresses: Any, stop: Any) -> None:
    """Runs an embedded emulator until `stop` is set, sending its addresses first."""
    with emulator() as emu:
        addresses.put((emu.grpc_address, emu.http_url))
        stop.wait(120)


def main() -> None:
    """Runs the scenario named on the command line against an embedded emulator.

    The emulator runs in a process of its own: a gRPC server in the forking process makes
    gRPC unsafe in its children (see `groundwire.transports.lifetime`).
    """
    name, transport = sys.argv[1], sys.argv[2]
    if name == "hosting":  # the emulator in this very process, as a test or notebook has it
        with emulator() as emu:
            print(json.dumps(idle(emu, transport)), flush=True)
        return
    spawn = multiprocessing.get_context("spawn")
    addresses, stop = spawn.Queue(), spawn.Event()
    server = spawn.Process(target=_serve, args=(addresses, stop), daemon=True)
    server.start()
    try:
        emu = Emulator(*addresses.get(timeout=60))
        print(json.dumps(SCENARIOS[name](emu, transport)), flush=True)
    finally:
        stop.set()
        server.join(30)


if __name__ == "__main__":
    main()
