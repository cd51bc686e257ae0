"""The docs' Security page says which credentials count as explicit, as the client does."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from groundwire import GroundingClient
from groundwire.client import connection as _connection

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text(encoding="utf-8")


def security_section() -> str:
    return " ".join(PAGE[PAGE.index("# Security\n") :].split())


def test_a_credentials_file_counts_as_explicit_and_the_docs_say_so(tmp_path: Path) -> None:
    path = tmp_path / "user.json"
    path.write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "id",
                "client_secret": "secret",
                "refresh_token": "refresh-from-file",
            }
        )
    )
    options = {"credentials_file": str(path), "api_endpoint": "grounding.example.com:443"}
    with pytest.warns(DeprecationWarning, match="credentials_file"):
        client = GroundingClient("p", client_options=options)
    with warnings.catch_warnings():  # google-auth warns again as it loads the file (>= 2.44)
        warnings.simplefilter("ignore", DeprecationWarning)
        connection = _connection.connection(client._settings, "discoveryengine", "global", None)
    assert connection.endpoints.grpc_target == "grounding.example.com:443"
    assert connection.endpoints.grpc_credentials
    assert connection.credentials is not None
    explicit = security_section().split("**Any other endpoint gets credentials only when")[1]
    assert "client_options.credentials_file" in explicit.split("**")[1]
