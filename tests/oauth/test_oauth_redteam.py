"""Issue 23's hostile review of OAuth2: what a hostile document or token endpoint tried, and what stops it."""

from __future__ import annotations

import traceback

from packc_runtime.credentials.oauth_tokens import TokenSet
from packc_runtime.faces.oauth_cli import OAuthOptions

ACCESS, REFRESH, SECRET = "at-SECRET-access", "rt-SECRET-refresh", "cs-SECRET-client"


def _token_set(token_url: str = "https://auth.example/token", expires_at: float | None = None) -> TokenSet:
    return TokenSet(
        ACCESS, REFRESH, expires_at, token_url, "client-1", SECRET, ("read",), ("https://api.example",)
    )


def _locals_of_a_failure(**values: object) -> str:
    """What a traceback with locals (pytest --showlocals, error trackers) prints for a failing frame."""

    def fails(**kw: object) -> None:
        raise RuntimeError("boom")

    try:
        fails(**values)
    except RuntimeError as exc:
        return "".join(traceback.TracebackException.from_exception(exc, capture_locals=True).format())
    raise AssertionError("unreachable")


def test_reprs_of_a_token_set_and_the_connect_options_hold_no_secret() -> None:
    tokens, options = _token_set(), OAuthOptions(client_id="client-1", client_secret=SECRET)
    for shown in (
        repr(tokens),
        str(tokens),
        repr(options),
        repr([tokens, options]),
        _locals_of_a_failure(t=tokens, o=options),
    ):
        assert not any(secret in shown for secret in (ACCESS, REFRESH, SECRET)), shown
    assert "client-1" in repr(tokens) and "https://auth.example/token" in repr(tokens)  # the rest is shown
    assert "client_secret=***" in repr(options) and "client_secret=None" in repr(OAuthOptions())
    assert tokens.access_token == ACCESS and tokens._replace(access_token="x").refresh_token == REFRESH
