"""The secret scrubber: tokens, keys, cookies and URL passwords never reach an error message."""

from __future__ import annotations

import pytest
from google.oauth2.credentials import Credentials
from google.rpc.error_details_pb2 import DebugInfo, ErrorInfo

from groundwire.contract.errors import GroundwireError
from groundwire.contract.scrubber import scrub_secrets, scrub_tokens_of
from groundwire.wire.error_codecs import error_from_http, error_from_status


@pytest.mark.parametrize(
    ("leaky", "secret"),
    [
        ("{'access_token': 'opaque-access-value', 'expires_in': 3599}", "opaque-access"),
        ('{"refresh_token": "short-refresh-value"}', "short-refresh"),
        ("refresh_token=form-refresh-value&grant_type=refresh_token", "form-refresh"),
        ("token: plain-token-value", "plain-token"),
        ('{"token": "json-token-value", "kind": "x"}', "json-token"),
        ("Cookie: SID=cookie-one-value; HSID=cookie-two-value", "cookie-two"),
        ("set-cookie: __Secure-3PSID=set-cookie-value; Path=/; Secure", "set-cookie-value"),
        ("{'cookie': 'SID=dict-cookie-value; NID=other'}", "dict-cookie"),
        ("proxy http://proxy-user:proxy-password@proxy.example:3128 refused", "proxy-password"),
        ("https://:only-password@example.com/v1", "only-password"),
    ],
)
def test_the_scrubber_catches_tokens_cookies_and_url_passwords(leaky: str, secret: str) -> None:
    scrubbed = scrub_secrets(leaky)
    assert secret not in scrubbed
    assert "[REDACTED]" in scrubbed
    for error in (error_from_status(16, leaky), error_from_http(401, leaky.encode(), {})):
        assert secret not in error.message
        assert secret not in repr(error)


def test_the_scrubber_keeps_what_names_the_secret_and_the_host() -> None:
    assert scrub_secrets("via http://u:p4ss@proxy.example:3128/") == (
        "via http://u:[REDACTED]@proxy.example:3128/"
    )
    assert scrub_secrets("Cookie: a=b; c=d\nnext line") == "Cookie: [REDACTED]\nnext line"
    assert scrub_secrets('"token_type": "Bearer"') == '"token_type": "Bearer"'


def test_urls_without_a_password_and_ordinary_words_are_left_alone() -> None:
    text = "see https://example.com:8443/v1/x and the token bucket; cookies are off"
    assert scrub_secrets(text) == text


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_auth_scheme_is_matched_in_any_case(scheme: str) -> None:
    scrubbed = scrub_secrets(f"rejected {scheme} opaque.value-42 from the caller")
    assert scrubbed == f"rejected {scheme} [REDACTED] from the caller"


@pytest.mark.parametrize(
    "leaky", ["token ya29.a0Abc-def", "(ya29.a0Abc-def)", "x=ya29.a0Abc-def;", "YA29.a0Abc-def"]
)
def test_a_token_starting_ya29_is_caught_whatever_surrounds_it(leaky: str) -> None:
    assert "a0Abc" not in scrub_secrets(leaky)


def test_a_clients_own_token_is_removed_wherever_it_stands() -> None:
    credentials = Credentials(token="opaque0123456789")
    scrub_tokens_of(credentials)
    for leaky in ("token opaque0123456789", "opaque0123456789", "«opaque0123456789»"):
        assert "opaque0123456789" not in scrub_secrets(leaky)
    credentials.token = "refreshed-0123456789"  # the current token counts, after a refresh too
    assert scrub_secrets("refreshed-0123456789 x") == "[REDACTED] x"


def test_the_strings_in_error_details_are_scrubbed_too() -> None:
    info = ErrorInfo(reason="R", metadata={"received": "BEARER opaque.value-42"})
    debug = DebugInfo(stack_entries=["at Authorization: secret-entry"], detail="ya29.a0Abc")
    error = GroundwireError("m", details=[info, debug])

    shown = " ".join(str(detail) for detail in error.details)
    assert "opaque.value" not in shown
    assert "secret-entry" not in shown
    assert "a0Abc" not in shown
    assert info.metadata["received"] == "BEARER opaque.value-42"  # the caller's own is untouched
