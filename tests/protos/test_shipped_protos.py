"""The .proto files ship inside the package, so other languages' tooling finds an include path.

`make test-lowest` and `make test-beam` install groundwire from a built wheel, not editable, so
there this reads the wheel's copy; in the dev environment it reads the link to protos/.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "protos"


def test_every_proto_ships_inside_the_package_as_written() -> None:
    shipped = resources.files("groundwire") / "protos"
    names = sorted(path.relative_to(SOURCE).as_posix() for path in SOURCE.rglob("*.proto"))
    assert len(names) >= 15
    for name in names:
        assert shipped.joinpath(*name.split("/")).read_bytes() == (SOURCE / name).read_bytes(), name
