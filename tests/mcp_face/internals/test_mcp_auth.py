"""The HTTP face's bearer secret: without it a request gets 401 and no tool runs (another local user
can reach 127.0.0.1 too); with it the server works. The gate, the token file, the printed snippets."""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_face.test_mcp_transports import _env, http_server, with_bearer
from packc_runtime.faces.mcp._auth import (
    BearerGate,
    TokenFileError,
    allowed_host_names,
    new_secret,
    secret_from_file,
)
from packc_runtime.faces.mcp._config import HTTP_HOSTS, http_snippet
from packc_runtime.faces.mcp.cli import serve_main

SECRET = "s" * 43
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _gate_status(headers: list[tuple[bytes, bytes]], secret: str = SECRET) -> tuple[int, bool]:
    """The status the gate answers and whether the wrapped app ran."""
    ran: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        ran.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(BearerGate(app, secret)({"type": "http", "headers": headers}, receive, send))
    return sent[0]["status"], bool(ran)


def test_the_gate_lets_through_only_this_servers_secret() -> None:
    assert _gate_status([(b"authorization", b"Bearer " + SECRET.encode())]) == (200, True)
    assert _gate_status([(b"Authorization", b"bearer  " + SECRET.encode())]) == (
        200,
        True,
    )  # scheme is case-free
    for refused in (
        [],
        [(b"authorization", b"Bearer")],
        [(b"authorization", b"Basic " + SECRET.encode())],
        [(b"authorization", b"Bearer " + SECRET.encode() + b"x")],
        [(b"authorization", b"Bearer " + SECRET.encode()), (b"authorization", b"Bearer other")],
        [(b"x-authorization", b"Bearer " + SECRET.encode())],
    ):
        assert _gate_status(refused) == (401, False), refused


@given(st.binary(max_size=80))
def test_no_other_header_value_opens_the_gate(value: bytes) -> None:
    if value.strip().lower().partition(b" ")[2].strip() == SECRET.encode():
        return
    assert _gate_status([(b"authorization", value)]) == (401, False)


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError):
        BearerGate(lambda *a: None, "short")  # type: ignore[arg-type,return-value]
    assert len(new_secret()) == 43 and new_secret() != new_secret()


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_the_token_file_is_created_0600_kept_and_refused_when_others_can_read_it(tmp_path: Path) -> None:
    path = tmp_path / "token"
    first = secret_from_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and secret_from_file(path) == first and len(first) == 43
    path.chmod(0o644)
    with pytest.raises(TokenFileError, match="chmod 600"):
        secret_from_file(path)
    path.chmod(0o600)
    path.write_text("short\n")
    with pytest.raises(TokenFileError, match="at least 32"):
        secret_from_file(path)


@pytest.mark.e2e
def test_without_the_secret_every_request_is_401_and_no_tool_runs(
    pack_dir: Path, demo_server: Any, tmp_path: Path, upstream_log: list[str]
) -> None:
    env = _env({"PETSTORE_API_KEY": demo_server.api_key, "PACKC_TRUSTED_ORIGINS": demo_server.url}, tmp_path)
    with http_server(pack_dir, env) as (url, secret):
        for headers in (
            {},
            {"Authorization": "Bearer " + "x" * 43},
            {"Authorization": f"Basic {secret}"},
            {"Authorization": f"Bearer {secret[:-1]}"},
        ):
            for method in ("POST", "GET", "DELETE"):
                answer = httpx.request(
                    method,
                    url,
                    json=INITIALIZE if method == "POST" else None,
                    headers={**MCP_HEADERS, **headers},
                    timeout=10,
                )
                assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Bearer")
                assert "Authorization: Bearer" in answer.json()["error_description"]
        assert (
            httpx.get(url.replace("/mcp", "/.well-known/oauth-protected-resource"), timeout=10).status_code
            == 401
        )

        async def call(target: Any, mode: str) -> Any:
            async with Client(target, mode=mode) as client:
                return await client.call_tool("pets.get", {"pet_id": 1})

        for mode in ("legacy", "2026-07-28"):
            for target in (with_bearer(url, "y" * 43)(), url):  # a wrong secret; no header at all
                with pytest.raises(BaseExceptionGroup) as refused:
                    asyncio.run(call(target, mode))
                assert any(isinstance(e, MCPError) for e in _leaves(refused.value))
        assert upstream_log == []  # not one request reached the API
        assert (
            httpx.post(
                url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {secret}"}, timeout=10
            ).status_code
            == 200
        )
        result = asyncio.run(call(with_bearer(url, secret)(), "2026-07-28"))
    assert result.structured_content["body"]["id"] == 1 and upstream_log == ["GET /v1/pets/1"]


def test_http_snippets_send_the_header_and_hold_no_secret() -> None:
    for host in HTTP_HOSTS:
        text = json.dumps(http_snippet(host, "petstore", "http://127.0.0.1:8765/mcp"))
        assert "http://127.0.0.1:8765/mcp" in text and '"Authorization": "Bearer ${' in text
        assert ("PACKC_MCP_TOKEN}" if host != "vscode" else "${input:packc-mcp-token}") in text
    assert http_snippet("vscode", "p", "u")["inputs"][0]["password"] is True
    assert http_snippet("windsurf", "p", "u")["mcpServers"]["p"]["serverUrl"] == "u"
    assert http_snippet("gemini-cli", "p", "u")["mcpServers"]["p"]["httpUrl"] == "u"


def test_print_config_over_http_needs_a_port_and_token_file_and_never_prints_the_secret(
    pack_dir: Path, tmp_path: Path
) -> None:
    out, err = io.StringIO(), io.StringIO()
    token = tmp_path / "token"
    assert (
        serve_main([str(pack_dir), "--http", "8765", "--print-config", "cursor"], stdout=out, stderr=err) == 2
    )
    assert "--token-file" in err.getvalue()
    assert (
        serve_main(
            [str(pack_dir), "--http", "8765", "--print-config", "claude-desktop", "--token-file", str(token)],
            stdout=out,
            stderr=err,
        )
        == 2
    )
    assert "stdio only" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert (
        serve_main(
            [str(pack_dir), "--http", "8765", "--token-file", str(token), "--print-config", "cursor"],
            stdout=out,
            stderr=err,
        )
        == 0
    )
    entry = json.loads(out.getvalue())["mcpServers"]["petstore"]
    assert entry == {
        "url": "http://127.0.0.1:8765/mcp",
        "headers": {"Authorization": "Bearer ${env:PACKC_MCP_TOKEN}"},
    }
    secret = token.read_text().strip()
    assert secret not in out.getvalue() + err.getvalue() and "PACKC_MCP_TOKEN" in err.getvalue()
    assert (
        serve_main([str(pack_dir), "--token-file", str(token)], stdout=out, stderr=err) == 2
    )  # stdio: no secret


@pytest.mark.e2e
def test_a_token_file_keeps_the_secret_and_it_is_not_printed(
    pack_dir: Path, demo_server: Any, tmp_path: Path
) -> None:
    env = _env({"PETSTORE_API_KEY": demo_server.api_key, "PACKC_TRUSTED_ORIGINS": demo_server.url}, tmp_path)
    token = tmp_path / "token"
    secret = secret_from_file(token)

    async def call(url: str) -> Any:
        async with Client(with_bearer(url, secret)(), mode="legacy") as client:
            return await client.call_tool("pets.get", {"pet_id": 1})

    seen: list[str] = []
    with http_server(pack_dir, env, "--token-file", str(token), seen=seen) as (url, printed):
        assert printed == "" and str(token) in "".join(seen) and secret not in "".join(seen)
        assert asyncio.run(call(url)).structured_content["body"]["id"] == 1


def _initialize(url: str, secret: str, **headers: str) -> int:
    auth = {"Authorization": f"Bearer {secret}"}
    return httpx.post(
        url, json=INITIALIZE, headers={**MCP_HEADERS, **auth, **headers}, timeout=10
    ).status_code


@pytest.mark.e2e
def test_a_foreign_host_is_refused_on_every_loopback_address_and_allow_host_adds_one(
    pack_dir: Path, demo_server: Any, tmp_path: Path
) -> None:
    """Issue 23: on ``--http 127.0.0.2:P`` (not one of the SDK's three loopback spellings) a request
    naming ``Host: attacker.example`` got a full initialize result; a page using DNS rebinding would
    too, once it had the secret or on a server reached without one."""
    env = _env({"PETSTORE_API_KEY": demo_server.api_key}, tmp_path)
    with http_server(pack_dir, env, "--allow-host", "Pets.Internal", bind="127.0.0.2") as (url, secret):
        port = url.rsplit(":", 1)[1].split("/")[0]
        assert url.startswith("http://127.0.0.2:")
        assert _initialize(url, secret, Host="attacker.example") == 421
        assert _initialize(url, secret, Host=f"attacker.example:{port}") == 421
        assert _initialize(url, secret, Origin="http://attacker.example") == 403
        assert _initialize(url, secret) == 200  # Host 127.0.0.2:P, the bind address
        assert _initialize(url, secret, Host=f"localhost:{port}") == 200
        assert _initialize(url, secret, Host=f"pets.internal:{port}", Origin="http://pets.internal") == 200


def test_allow_host_goes_with_http_and_takes_only_a_host(pack_dir: Path) -> None:
    err = io.StringIO()
    assert serve_main([str(pack_dir), "--allow-host", "x.example"], stderr=err) == 2
    assert "--allow-host goes with --http" in err.getvalue()
    for bad in ("x.example:80", "http://x.example", "a b", ""):
        err = io.StringIO()
        assert serve_main([str(pack_dir), "--http", "0", "--allow-host", bad], stderr=err) == 2, bad
        assert "not a host name or IP address" in err.getvalue()


@given(
    st.sampled_from(["127.0.0.1", "127.0.0.2", "::1", "0.0.0.0", "10.1.2.3", "localhost"]),
    st.text() | st.from_regex(r"\A[a-z0-9.-]{1,30}(:[0-9]{1,5})?\Z"),
)
def test_only_the_names_the_server_answers_to_pass_the_host_check(bind: str, header: str) -> None:
    """Whatever the Host or Origin, a request passes only if it names the bind address (or, on
    loopback or every address, a loopback name), whatever port it gives."""
    from mcp.server.transport_security import TransportSecurityMiddleware

    from packc_runtime.faces.mcp._server import rebinding_protection

    names = allowed_host_names(bind)
    check = TransportSecurityMiddleware(rebinding_protection(bind))
    if check._validate_host(header):
        assert any(header == n or header.startswith(n + ":") for n in names), header
    if header and check._validate_origin(header):
        assert any(header in (f"http://{n}",) or header.startswith(f"http://{n}:") for n in names)
    for n in names:
        assert check._validate_host(f"{n}:8080") and check._validate_origin(f"http://{n}:8080")
