"""A resource's project and location use Google's characters; the emulator knows its locations."""

from __future__ import annotations

from typing import Any

import pytest

from groundwire import GroundingClient
from groundwire.contract import validation
from groundwire.contract.errors import InvalidArgument
from groundwire.emulator import emulator

TEXT = "Paris is in France."


def violations(name: str, field: str = "parent") -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = validation.validate_resource_name(name, field)
    return found


def send(client: GroundingClient, method: str) -> Any:
    if method == "check":
        return client.check_grounding(TEXT, [TEXT])
    return client.corroborate_content(TEXT, [TEXT])


@pytest.mark.parametrize(
    "project", ["p", "my-project", "a1-b2", "123456789012", "example.com:my-project"]
)
def test_project_ids_and_numbers_pass_whatever_their_length(project: str) -> None:
    assert violations(f"projects/{project}/locations/global") == []


@pytest.mark.parametrize(
    "project", ["My Project!", "My-project", "1project", "my_project", "my project", "", "-p"]
)
def test_a_project_outside_googles_characters_is_a_violation(project: str) -> None:
    [(field, problem)] = violations(f"projects/{project}/locations/global")
    assert field == "parent"
    assert problem.startswith(f"names project {project!r}")


@pytest.mark.parametrize("location", ["Mars", "us central1", "1region", "eu_west", "", "-x"])
def test_a_location_outside_googles_characters_is_a_violation(location: str) -> None:
    name = f"projects/p/locations/{location}/groundingConfigs/default_grounding_config"
    [(field, problem)] = violations(name, "grounding_config")
    assert field == "grounding_config"
    assert problem.startswith(f"names location {location!r}")


def test_the_client_refuses_such_a_project_before_sending() -> None:
    with (
        GroundingClient("My Project!", endpoint="127.0.0.1:9") as client,
        pytest.raises(InvalidArgument, match="names project 'My Project!'"),
    ):
        send(client, "check")


@pytest.mark.parametrize(
    ("method", "location"),
    [("check", "mars"), ("check", "us-central1"), ("corroborate", "mars"), ("corroborate", "us")],
)
def test_the_emulator_refuses_a_location_the_api_does_not_serve(method: str, location: str) -> None:
    with (
        emulator() as running,
        GroundingClient("p", location, endpoint=running.grpc_address, validate=False) as client,
        pytest.raises(InvalidArgument, match=f"no location '{location}'"),
    ):
        send(client, method)


@pytest.mark.parametrize(
    ("method", "location"),
    [
        ("check", "global"),
        ("check", "us"),
        ("check", "eu"),
        ("corroborate", "global"),
        ("corroborate", "us-central1"),
        ("corroborate", "europe-west4"),
    ],
)
def test_the_emulator_serves_each_apis_own_locations(method: str, location: str) -> None:
    with (
        emulator() as running,
        GroundingClient("p", location, endpoint=running.grpc_address) as client,
    ):
        assert send(client, method).claims


def test_the_emulator_refuses_a_project_outside_googles_characters() -> None:
    with (
        emulator() as running,
        GroundingClient("My Project!", endpoint=running.grpc_address, validate=False) as client,
        pytest.raises(InvalidArgument, match="names project 'My Project!'"),
    ):
        send(client, "check")
