"""groundwire's version and the API versions it speaks, each written here once.

pyproject.toml, `__version__` and the headers read `VERSION`; the stub registry, the specs and
the request checks read `DISCOVERY_VERSIONS`.
"""

VERSION = "0.1.0"

DISCOVERY_VERSIONS = ("v1", "v1beta", "v1alpha")
"""The Discovery Engine API versions (Vertex AI's CorroborateContent is in v1 only)."""
