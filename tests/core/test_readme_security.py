"""The README's Security section says which credentials count as explicit, as the client does."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from groundwire import GroundingClient

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def security_section() -> str:
    start = README.index("## Security\n")
    return " ".join(README[start : README.index("\n## ", start + 1)].split())


def test_a_credentials_file_counts_as_explicit_and_the_readme_says_so(tmp_path: Path) -> None:
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
        connection = client._settings.connection("discoveryengine", "global", None)
    assert connection.endpoints.grpc_target == "grounding.example.com:443"
    assert connection.endpoints.grpc_credentials
    assert connection.credentials is not None
    explicit = security_section().split("**Any other endpoint gets credentials only when")[1]
    assert "client_options.credentials_file" in explicit.split("**")[1]
