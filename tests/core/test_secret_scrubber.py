"""The secret scrubber: tokens, keys, cookies and URL passwords never reach an error message."""

from __future__ import annotations

import pytest

from groundwire.core.errors import error_from_http, error_from_status, scrub_secrets


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
