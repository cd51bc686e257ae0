"""Compiles protos/ into the committed Python stubs under generated/, deterministically.

protoc's Python output registers every file in protobuf's process-wide default
descriptor pool and imports its siblings by their proto package path
(`google.cloud.discoveryengine.v1`). Both collide with Google's official
packages in the same process, so this script rewrites that output: the stubs
live in our own package, `groundwire_protos`, and register into a private pool.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc_tools
from google.api import annotations_pb2

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
DEPS = ROOT / "build" / "proto-deps"
OUT = ROOT / "generated" / "groundwire_protos"
PACKAGE = "groundwire_protos"

# The google/* protos our files import, taken from the installed
# googleapis-common-protos so that the build needs nothing from the network.
COMMON_PROTOS = (
    "google/api/annotations.proto",
    "google/api/client.proto",
    "google/api/field_behavior.proto",
    "google/api/http.proto",
    "google/api/launch_stage.proto",
    "google/api/resource.proto",
    "google/type/date.proto",
)

POOL_MODULE = '''"""The private descriptor pool of groundwire's stubs (written by make generate).

Google's official clients register the same proto names (for example
`google.cloud.discoveryengine.v1.GroundingFact`) in protobuf's default pool;
a second registration there fails with "duplicate symbol". Our stubs register
here instead, so both libraries can live in one process and still exchange
messages through their (identical) wire format.
"""

from google.api import annotations_pb2, client_pb2, field_behavior_pb2, resource_pb2
from google.protobuf import descriptor, descriptor_pool
from google.type import date_pb2

POOL = descriptor_pool.DescriptorPool()


def _add_with_dependencies(file: descriptor.FileDescriptor, added: set[str]) -> None:
    if file.name in added:
        return
    for dependency in file.dependencies:
        _add_with_dependencies(dependency, added)
    POOL.AddSerializedFile(file.serialized_pb)
    added.add(file.name)


def _add_common_protos() -> None:
    added: set[str] = set()
    for module in (annotations_pb2, client_pb2, field_behavior_pb2, resource_pb2, date_pb2):
        _add_with_dependencies(module.DESCRIPTOR, added)


_add_common_protos()
'''


def copy_common_protos() -> None:
    """Copies the imported google/* protos into build/proto-deps (git-ignored)."""
    site = Path(annotations_pb2.__file__).resolve().parent.parent.parent
    for name in COMMON_PROTOS:
        target = DEPS / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(site / name, target)


def run_protoc(workdir: Path) -> None:
    """Runs grpcio-tools' protoc over every file under protos/."""
    sources = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    command = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTOS}",
        f"-I{DEPS}",
        f"-I{well_known}",
        f"--python_out={workdir}",
        f"--pyi_out={workdir}",
        f"--grpc_python_out={workdir}",
        *sources,
    ]
    subprocess.run(command, check=True)


OWN_IMPORT = re.compile(r"^from (google\.cloud\.(?:discoveryengine|aiplatform)\.\S+) import", re.M)


def rewrite(text: str) -> str:
    """Moves one generated file into our package and onto the private pool."""
    text = OWN_IMPORT.sub(lambda m: f"from {PACKAGE}.{m.group(1)} import", text)
    text = text.replace(
        "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(",
        f"from {PACKAGE}._pool import POOL as _groundwire_pool\n"
        "DESCRIPTOR = _groundwire_pool.AddSerializedFile(",
    )
    # Module names passed to the builder become ours too, so that pickling and
    # reprs name the module the class really lives in.
    return re.sub(
        r"'(google\.cloud\.(?:discoveryengine|aiplatform)\.[\w.]+_pb2)'",
        lambda m: f"'{PACKAGE}.{m.group(1)}'",
        text,
    )


def main() -> None:
    """Compiles protos/ into generated/, replacing what was there."""
    copy_common_protos()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        run_protoc(workdir)
        if OUT.exists():
            shutil.rmtree(OUT)
        for source in sorted(workdir.rglob("*")):
            if source.is_dir():
                continue
            if source.name.endswith("_pb2_grpc.py") and "class " not in source.read_text():
                continue  # protoc writes an empty gRPC module for files without a service
            target = OUT / source.relative_to(workdir)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(rewrite(source.read_text()))
    for folder in [OUT, *sorted(p for p in OUT.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    (OUT / "__init__.py").write_text(
        '"""Python stubs generated from protos/ by `make generate`; never edit by hand."""\n'
    )
    (OUT / "_pool.py").write_text(POOL_MODULE)
    (OUT / "py.typed").touch()


if __name__ == "__main__":
    main()
