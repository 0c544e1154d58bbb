"""End to end: the fixture packs against the echo API served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import json
import time
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from packc_runtime import Limits, load_pack
from servers import PACKS
from servers.echo_app import CLIENT_ID, CLIENT_SECRET, EchoApp

pytestmark = pytest.mark.e2e
Server = tuple[EchoApp, str]


def call(
    server: Server,
    pack: str,
    verb: str,
    args: dict[str, Any],
    *,
    env: dict[str, str] | None = None,
    limits: Limits | None = None,
    **kw: Any,
) -> dict[str, Any]:
    _, url = server  # a --server override: credentials go there only because the environment trusts it
    with load_pack(
        PACKS / pack, environ={**(env or {}), "PACKC_TRUSTED_ORIGINS": url}, limits=limits
    ) as loaded:
        return loaded.call(verb, args, server=url + "/api", **kw)


def test_path_query_header_cookie_parameters(echo_server: Server) -> None:
    body = call(
        echo_server,
        "echo",
        "items.get",
        {
            "item_id": "../../admin?x=1#f",
            "limit": 3,
            "tags": ["a", "b c"],
            "trace": "tr-1",
            "session": "s1",
            "verbose": True,
        },
    )["body"]
    assert body["path"] == "/api/echo/items/%2E%2E%2F%2E%2E%2Fadmin%3Fx%3D1%23f"
    assert body["query"] == "limit=3&tags=a&tags=b%20c&verbose=true"
    assert body["headers"]["x-trace"] == "tr-1" and body["headers"]["cookie"] == "session=s1"


def test_every_style(echo_server: Server) -> None:
    body = call(
        echo_server, "echo", "styles.path", {"lab": ["a", "b"], "mat": ["x", "y"], "obj": {"k": "v"}}
    )["body"]
    assert body["path"] == "/api/echo/styles/.a.b/;mat=x,y/k=v"
    body = call(
        echo_server,
        "echo",
        "styles.query",
        {
            "ids": [1, 2],
            "pipes": ["p", "q"],
            "filter": {"f": "1"},
            "color": {"R": "1"},
            "csv": ["x", "y"],
            "mode": ["m", "n"],
            "prefs": {"a": "1", "b": "2"},
        },
    )["body"]
    assert body["query"] == "ids=1%202&pipes=p|q&filter%5Bf%5D=1&color=R,1&csv=x,y"
    assert body["headers"]["x-mode"] == "m,n" and body["headers"]["cookie"] == "a=1; b=2"


def test_json_form_and_multipart_bodies(echo_server: Server, tmp_path: Path) -> None:
    body = call(echo_server, "echo", "items.create", {"name": "lamp", "price": 9.5}, confirm=True)["body"]
    assert json.loads(body["body"]) == {"name": "lamp", "price": 9.5}
    body = call(echo_server, "echo", "items.form", {"name": "a&b", "count": 2}, confirm=True)["body"]
    assert body["body"] == "name=a%26b&count=2"
    upload = tmp_path / "up.txt"
    upload.write_text("uploaded text")
    body = call(echo_server, "echo", "items.upload", {"file": str(upload), "note": "n1"}, confirm=True)[
        "body"
    ]
    raw = f"Content-Type: {body['headers']['content-type']}\r\n\r\n".encode() + body["body"].encode()
    message = BytesParser(policy=HTTP).parsebytes(raw)
    parts = {p.get_param("name", header="content-disposition"): p for p in message.iter_parts()}
    assert parts["file"].get_content().strip() == "uploaded text"
    assert parts["file"].get_filename() == "up.txt"
    assert parts["note"].get_content().strip() == "n1"


def test_text_only_multipart_query_in_path_key_and_declared_accept(echo_server: Server) -> None:
    # multipart/form-data with no file part is still multipart on the wire
    body = call(echo_server, "echo", "notes.create", {"title": "t&1", "tags": ["a", "b"]}, confirm=True)[
        "body"
    ]
    assert body["headers"]["content-type"].startswith("multipart/form-data; boundary=")
    assert body["headers"]["accept"] == "application/json, text/plain;q=0.9, */*;q=0.5"
    raw = f"Content-Type: {body['headers']['content-type']}\r\n\r\n".encode() + body["body"].encode()
    parts = [
        (p.get_param("name", header="content-disposition"), p.get_content().strip())
        for p in BytesParser(policy=HTTP).parsebytes(raw).iter_parts()
    ]
    assert parts == [("title", "t&1"), ("tags", "a"), ("tags", "b")]
    # a path key carrying a query: one '?', the template's pairs first
    body = call(echo_server, "echo", "rest.ping", {"limit": 4})["body"]
    assert body["path"] == "/api/echo/rest" and body["query"] == "method=echo.ping&limit=4"
    # declared Accept / Content-Type header parameters get values the document allows
    body = call(echo_server, "echo", "report.get", {})["body"]
    assert body["headers"]["accept"] == "application/vnd.echo.report+json"
    assert body["headers"]["content-type"] == "application/json"


def test_api_key_basic_and_bearer_schemes(echo_server: Server) -> None:
    env = {
        "AUTHZ_KEY_HEADER_API_KEY": "hk-0001",
        "AUTHZ_KEY_QUERY_API_KEY": "qk-0002",
        "AUTHZ_KEY_COOKIE_API_KEY": "ck-0003",
        "AUTHZ_USERNAME": "user",
        "AUTHZ_PASSWORD": "pass-0004",
        "AUTHZ_BEARER_TOKEN": "bt-0005",
        "AUTHZ_OAUTH_CODE_TOKEN": "oc-0006",
    }
    app, _ = echo_server
    for verb in (
        "whoami.header",
        "whoami.query",
        "whoami.cookie",
        "whoami.basic",
        "whoami.bearer",
        "whoami.token",
    ):
        assert call(echo_server, "authz", verb, {}, env=env)["ok"]
    seen = {s.raw_path: s for s in app.log[-6:]}
    assert seen["/api/secure/header"].headers["x-api-key"] == "hk-0001"
    assert seen["/api/secure/query"].query == "api_key=qk-0002"
    assert seen["/api/secure/cookie"].headers["cookie"] == "sid=ck-0003"
    assert seen["/api/secure/basic"].headers["authorization"] == "Basic dXNlcjpwYXNzLTAwMDQ="
    assert seen["/api/secure/bearer"].headers["authorization"] == "Bearer bt-0005"
    assert seen["/api/secure/token"].headers["authorization"] == "Bearer oc-0006"


def test_oauth2_client_credentials_token_is_fetched_once_and_cached(echo_server: Server) -> None:
    app, url = echo_server
    env = {"AUTHZ_CLIENT_ID": CLIENT_ID, "AUTHZ_CLIENT_SECRET": CLIENT_SECRET}
    before = app.tokens_issued
    with load_pack(PACKS / "authz", environ={**env, "PACKC_TRUSTED_ORIGINS": url}) as pack:
        first = pack.call("whoami.oauth", {}, server=url + "/api")
        second = pack.call("whoami.oauth", {}, server=url + "/api")
    assert first["ok"] and second["ok"]
    assert app.tokens_issued == before + 1
    token_request = next(s for s in reversed(app.log) if s.raw_path == "/oauth/token")
    assert token_request.body == b"grant_type=client_credentials&scope=" + quote("read write").encode()
    assert app.log[-1].headers["authorization"] == f"Bearer tok-{app.tokens_issued}-xyz"
    bad = call(echo_server, "authz", "whoami.oauth", {}, env={**env, "AUTHZ_CLIENT_SECRET": "wrong-secret"})
    assert bad["error"]["code"] == "unauthorized"


def test_redirect_to_another_port_carries_no_credentials(echo_server: Server, other_server: Server) -> None:
    other_app, other_url = other_server
    env = {
        "AUTHZ_KEY_HEADER_API_KEY": "hk-redirect-1",
        "AUTHZ_KEY_QUERY_API_KEY": "qk-redirect-2",
        "AUTHZ_KEY_COOKIE_API_KEY": "ck-redirect-3",
        "AUTHZ_BEARER_TOKEN": "bt-redirect-4",
    }
    for status in (302, 307):
        envelope = call(
            echo_server,
            "authz",
            "redirect.go",
            {"to": other_url + "/api/echo/landed", "status": status},
            env=env,
        )
        assert envelope["ok"], envelope
        arrived = other_app.log[-1]
        assert arrived.raw_path == "/api/echo/landed"
        received = json.dumps([arrived.raw_path, arrived.query, arrived.headers])
        assert not any(secret in received for secret in env.values())
        assert "authorization" not in arrived.headers and "cookie" not in arrived.headers


def test_429_with_retry_after_is_honoured(echo_server: Server) -> None:
    started = time.monotonic()
    envelope = call(echo_server, "flaky", "limits.get", {"key": "e2e-429", "n": 1, "after": "1"})
    assert envelope["ok"] and envelope["body"] == {"hits": 2}
    assert time.monotonic() - started >= 0.9
    refused = call(
        echo_server, "flaky", "limits.post", {"key": "e2e-429-post", "n": 1, "after": "0"}, confirm=True
    )
    assert refused["error"]["code"] == "rate_limited" and refused["error"]["retry_after"] == 0


def test_trickled_body_hits_the_overall_deadline(echo_server: Server) -> None:
    started = time.monotonic()
    envelope = call(
        echo_server,
        "flaky",
        "slow.trickle",
        {"n": 20, "interval": 0.3},
        limits=Limits(timeout=5.0, deadline=1.5),
    )
    elapsed = time.monotonic() - started
    assert envelope["error"]["code"] == "timeout"
    assert 1.4 <= elapsed < 2.5


def test_slow_answer_times_out(echo_server: Server) -> None:
    envelope = call(
        echo_server, "flaky", "slow.sleep", {"seconds": 3}, limits=Limits(timeout=0.5, deadline=5)
    )
    assert envelope["error"]["code"] == "timeout"


def test_invalid_json_bomb_and_binary(echo_server: Server, tmp_path: Path) -> None:
    assert call(echo_server, "flaky", "bad.json", {})["error"]["code"] == "invalid_response"
    cut = call(echo_server, "flaky", "bad.bomb", {"mb": 20}, limits=Limits(max_response_bytes=1 << 20))
    assert cut["ok"] and cut["truncated"] == {"limit": 1 << 20}
    assert len(cut["body"]) < (1 << 20) + 100
    body = call(echo_server, "flaky", "files.get", {})["body"]
    assert Path(body["file"]).read_bytes() == bytes(range(256)) * 4


def test_connection_refused_is_a_stable_code() -> None:
    with load_pack(PACKS / "flaky", limits=Limits(backoff=0.01)) as pack:
        envelope = pack.call("bad.json", {}, server="http://127.0.0.1:9/api")
    assert envelope["error"]["code"] == "connection_failed"


def test_async_calls_share_the_pack(echo_server: Server) -> None:
    import asyncio

    _, url = echo_server

    async def main() -> list[dict[str, Any]]:
        with load_pack(PACKS / "echo") as pack:
            return await asyncio.gather(
                *(pack.acall("items.get", {"item_id": str(i)}, server=url + "/api") for i in range(5))
            )

    results = asyncio.run(main())
    assert [r["body"]["path"] for r in results] == [f"/api/echo/items/{i}" for i in range(5)]
