"""The locations each API serves, so the emulator refuses `mars` as Google would."""

from __future__ import annotations

from groundwire.contract.apis import Method
from groundwire.contract.errors import bad_request

DISCOVERY_ENGINE_LOCATIONS = frozenset({"global", "us", "eu"})
"""Discovery Engine's locations: the global one and the two multi-regions."""

VERTEX_AI_REGIONS = frozenset(
    {
        "global",
        "africa-south1",
        "asia-east1",
        "asia-east2",
        "asia-northeast1",
        "asia-northeast2",
        "asia-northeast3",
        "asia-south1",
        "asia-southeast1",
        "asia-southeast2",
        "australia-southeast1",
        "australia-southeast2",
        "europe-central2",
        "europe-north1",
        "europe-southwest1",
        "europe-west1",
        "europe-west2",
        "europe-west3",
        "europe-west4",
        "europe-west6",
        "europe-west8",
        "europe-west9",
        "europe-west12",
        "me-central1",
        "me-central2",
        "me-west1",
        "northamerica-northeast1",
        "northamerica-northeast2",
        "southamerica-east1",
        "southamerica-west1",
        "us-central1",
        "us-east1",
        "us-east4",
        "us-east5",
        "us-south1",
        "us-west1",
        "us-west2",
        "us-west3",
        "us-west4",
    }
)
"""Vertex AI's regions (and `global`), as its locations page lists them."""

LOCATIONS = {"discoveryengine": DISCOVERY_ENGINE_LOCATIONS, "aiplatform": VERTEX_AI_REGIONS}
"""The locations of each API, by its name."""


def check_location(method: Method, request: object) -> None:
    """Raises InvalidArgument when the request's resource names a location its API lacks.

    Example:
        >>> from groundwire.contract.apis import method
        >>> check = method("discoveryengine", "v1", "CheckGrounding")
        >>> name = "projects/p/locations/mars/groundingConfigs/default_grounding_config"
        >>> try:
        ...     check_location(check, check.request_class(grounding_config=name))
        ... except Exception as error:
        ...     print(error)
        INVALID_ARGUMENT: no location 'mars' in discoveryengine
    """
    field = method.routing_field
    name: str = getattr(request, field)
    parts = name.split("/")
    if len(parts) < 4 or parts[0] != "projects" or parts[2] != "locations":
        return  # not a resource name: the path check has said so
    location, known = parts[3], LOCATIONS[method.api]
    if location not in known:
        shown = (
            ", ".join(sorted(known)) if len(known) < 5 else "global or a region such as us-central1"
        )
        raise bad_request(
            [(field, f"names location {location!r}, which {method.api} does not serve ({shown})")],
            f"no location {location!r} in {method.api}",
        )
