"""``connect`` for an ``openIdConnect`` scheme: the endpoints come from the discovery document
(``openIdConnectUrl``), served by the test's authlib server on 127.0.0.1 (issue 14)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from oauth_server import TestAuthServer, connect, document, running, stored

from packc_runtime import load_pack
from packc_runtime.credentials.oauth_tokens import parse_token_set

pytestmark = pytest.mark.e2e


def test_discovery_gives_the_endpoints_and_the_code_flow_signs_in(
    oidc_pack_dir: Path, auth_server: TestAuthServer
) -> None:
    code, text = connect(oidc_pack_dir)
    assert code == 0, text
    assert auth_server.log[0].startswith("GET /.well-known/openid-configuration")
    assert f"tokens come from {auth_server.url}/token" in text and "Scopes requested: read write" in text
    tokens = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert tokens is not None and tokens.token_url == f"{auth_server.url}/token" and tokens.refresh_token
    with load_pack(oidc_pack_dir) as pack:
        envelope = pack.call(next(v for v in sorted(pack.verbs) if not pack.is_write(v)), {})
    assert envelope["ok"], envelope
    assert auth_server.seen[-1] == f"Bearer {tokens.access_token}"


def test_discovery_gives_the_device_endpoint(oidc_pack_dir: Path, auth_server: TestAuthServer) -> None:
    code, text = connect(oidc_pack_dir, device=True)
    assert code == 0, text
    assert "enter the code" in text and any(line.startswith("POST /device") for line in auth_server.log)


def test_endpoints_on_another_origin_bind_the_tokens_to_it_and_logout_removes_both(
    oidc_pack_dir: Path, auth_server: TestAuthServer
) -> None:
    """The token endpoint named by discovery is shown before sign-in and recorded; refreshes go there."""
    other = TestAuthServer()
    with running(other):
        auth_server.endpoint_host = other.url  # the provider's endpoints live on another origin
        other.access = auth_server.access  # one provider: the API takes what the other origin issues
        code, text = connect(oidc_pack_dir)
        assert code == 0, text
        assert f"tokens come from {other.url}/token" in text
        assert f"stored for {auth_server.url}, {other.url}" in text
        saved = stored()
        assert set(saved) == {auth_server.url, other.url}
        tokens = parse_token_set(saved[auth_server.url]["TASKS_TOKEN"])
        assert tokens is not None and tokens.token_url == f"{other.url}/token"
        assert not any(line.startswith("POST /token") for line in auth_server.log)
        code, text = connect(oidc_pack_dir, logout=True)
        assert code == 0 and other.url in text and auth_server.url in text
        assert all("TASKS_TOKEN" not in entry for entry in stored().values())


def _json_connect(pack_dir: Path, **options: Any) -> tuple[int, dict[str, Any]]:
    code, text = connect(pack_dir, as_json=True, **options)
    return code, json.loads(text[text.index("{") :])


def test_an_unreadable_discovery_document_is_said_plainly(
    compile_doc: Callable[..., Path], auth_server: TestAuthServer
) -> None:
    doc = document(auth_server.url, oidc=True)
    doc["components"]["securitySchemes"]["oauth"]["openIdConnectUrl"] = f"{auth_server.url}/missing"
    code, envelope = _json_connect(compile_doc(doc))
    assert code == 5 and envelope["error"]["reason"] == "discovery_failed"
    assert (
        "HTTP 404" in envelope["error"]["message"]
        and f"{auth_server.url}/missing" in envelope["error"]["message"]
    )


def test_an_endpoint_that_is_not_https_is_refused_before_anything_is_sent(
    oidc_pack_dir: Path, auth_server: TestAuthServer
) -> None:
    auth_server.endpoint_host = "http://tokens.example.com"  # plain http off loopback
    opened: list[str] = []
    out = io.StringIO()
    from oauth_server import CLIENT_ID

    from packc_runtime.faces.cli import connect_main
    from packc_runtime.faces.oauth_cli import OAuthOptions

    code = connect_main(
        oidc_pack_dir,
        stdout=out,
        oauth=OAuthOptions(client_id=CLIENT_ID, timeout=5.0),
        browser=lambda url: bool(opened.append(url)) or True,
    )
    assert code == 5 and "error oauth_failed (insecure_endpoint)" in out.getvalue()
    assert "http://tokens.example.com/token" in out.getvalue() and not opened
