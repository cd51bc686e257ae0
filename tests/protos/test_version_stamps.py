"""The stubs' version stamps stay at or below the floors that pyproject.toml promises users."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import groundwire_protos
import pytest

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
PACKAGE = Path(groundwire_protos.__file__).parent
STUBS = sorted(PACKAGE.rglob("*_pb2*.py"))
PROTOBUF_STAMP = re.compile(
    r"ValidateProtobufRuntimeVersion\(\s*_runtime_version\.Domain\.PUBLIC,\s*(\d+),\s*(\d+),\s*(\d+),"
)
GRPC_STAMP = re.compile(r"^GRPC_GENERATED_VERSION = '(\d+)\.(\d+)\.(\d+)'$", re.M)


def floor(distribution: str) -> tuple[int, ...]:
    """The lowest version pyproject.toml's dependencies allow for `distribution`."""
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    for requirement in dependencies:
        found = re.fullmatch(rf"{re.escape(distribution)}>=([\d.]+),<\d+", requirement)
        if found:
            return tuple(int(part) for part in found.group(1).split("."))
    raise AssertionError(f"{distribution} has no '>=floor,<cap' requirement in pyproject.toml")


def test_the_floors_are_the_ones_the_stamps_are_checked_against() -> None:
    assert floor("protobuf") == (6, 31, 1)
    assert floor("grpcio") >= (1, 72)


@pytest.mark.parametrize(
    "stub",
    [s for s in STUBS if s.name.endswith("_pb2.py")],
    ids=lambda stub: str(stub.relative_to(PACKAGE)),
)
def test_protobuf_gencode_stamp_is_6x_and_at_most_the_floor(stub: Path) -> None:
    found = PROTOBUF_STAMP.search(stub.read_text())
    assert found, f"{stub.name} has no protobuf runtime-version check"
    stamp = tuple(int(part) for part in found.groups())
    assert stamp[0] == 6, "5.x stamps warn on protobuf 6.30-6.31"
    assert stamp <= floor("protobuf")


@pytest.mark.parametrize(
    "stub",
    [s for s in STUBS if s.name.endswith("_grpc.py")],
    ids=lambda stub: str(stub.relative_to(PACKAGE)),
)
def test_grpc_generated_version_is_at_most_the_floor(stub: Path) -> None:
    found = GRPC_STAMP.search(stub.read_text())
    assert found, f"{stub.name} has no GRPC_GENERATED_VERSION"
    assert tuple(int(part) for part in found.groups()) <= floor("grpcio")
