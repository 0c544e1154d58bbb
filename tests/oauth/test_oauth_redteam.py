"""Issue 23's hostile review of OAuth2: what a hostile document or token endpoint tried, and what stops it."""

from __future__ import annotations

import contextlib
import http.server
import io
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from oauth_server import TestAuthServer, connect, document, stored

from packc_runtime import load_pack
from packc_runtime.credentials.oauth_connect import OAuthPlan, authorize_device, discover
from packc_runtime.credentials.oauth_tokens import TokenSet, parse_token_set
from packc_runtime.credentials.store import store_credentials
from packc_runtime.errors import OAuthFailed
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


class _Hop(http.server.BaseHTTPRequestHandler):
    """A token endpoint that answers every request with ``server.answer`` (a redirect, or JSON), and
    records what reached it: the request line and the body."""

    server: _HopServer

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.log.append(f"{self.command} {self.path} {self.rfile.read(length).decode()}")
        status, headers, body = self.server.answer(self.path)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _serve

    def log_message(self, format: str, *args: Any) -> None:
        return


class _HopServer(http.server.ThreadingHTTPServer):
    log: list[str]
    answer: Callable[[str], tuple[int, dict[str, str], bytes]]


@contextlib.contextmanager
def _hop(answer: Callable[[str], tuple[int, dict[str, str], bytes]]) -> Iterator[_HopServer]:
    server = _HopServer(("127.0.0.1", 0), _Hop)
    server.log, server.answer = [], answer
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def _url(server: _HopServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def _nothing(path: str) -> tuple[int, dict[str, str], bytes]:
    return 404, {}, b""


@pytest.mark.parametrize("status", [307, 308])
def test_a_refresh_follows_no_redirect_to_another_origin(
    status: int, compile_doc: Callable[..., Path]
) -> None:
    """The issue's reproduction: the recorded token endpoint answers 307/308 to another origin; the
    form (refresh token, client secret) must never reach it."""
    with (
        _hop(_nothing) as elsewhere,
        _hop(lambda path: (status, {"Location": f"{_url(elsewhere)}/token"}, b"")) as api,
    ):
        pack_dir = compile_doc(document(_url(api)))
        tokens = _token_set(f"{_url(api)}/token", expires_at=time.time() - 10)._replace(origins=(_url(api),))
        store_credentials({"TASKS_TOKEN": tokens.to_value()}, tokens.origins)
        with load_pack(pack_dir) as pack:
            verb = next(v for v in sorted(pack.verbs) if not pack.is_write(v))
            envelope = pack.call(verb, {})
        assert elsewhere.log == []
        assert [line.split(" ")[:2] for line in api.log] == [["POST", "/token"]]  # the only request sent
    assert envelope["ok"] is False and envelope["error"]["code"] == "unsafe_redirect", envelope
    assert not any(secret in json.dumps(envelope) for secret in (ACCESS, REFRESH, SECRET))


def test_connect_token_and_device_requests_follow_no_redirect_to_another_origin() -> None:
    """At connect time too: the device code poll (client secret, device code) and the device request."""
    with _hop(_nothing) as elsewhere:
        moved = {"Location": f"{_url(elsewhere)}/token"}

        def provider(path: str) -> tuple[int, dict[str, str], bytes]:
            if path == "/device":
                body = {
                    "device_code": "dc-1",
                    "user_code": "U-1",
                    "verification_uri": "https://x",
                    "interval": 0,
                }
                return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()
            return 307, moved, b""

        with _hop(provider) as api:
            plan = OAuthPlan(
                "TASKS_TOKEN",
                "oauth",
                None,
                f"{_url(api)}/token",
                f"{_url(api)}/device",
                ("read",),
                (_url(api),),
            )
            with pytest.raises(OAuthFailed):
                authorize_device(plan, "client-1", SECRET, out=io.StringIO(), sleep=lambda _: None)
            redirecting_device = plan._replace(device_url=f"{_url(api)}/elsewhere")
            with pytest.raises(OAuthFailed):
                authorize_device(
                    redirecting_device, "client-1", SECRET, out=io.StringIO(), sleep=lambda _: None
                )
        assert elsewhere.log == []


def test_openid_discovery_over_plain_http_is_refused_before_it_is_fetched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A document's ``openIdConnectUrl`` on plain http (not loopback): anyone on the way could answer
    with their own endpoints. A proxy on 127.0.0.1 stands for the network and must see nothing."""

    def on_the_way(path: str) -> tuple[int, dict[str, str], bytes]:
        found = {
            "token_endpoint": "https://attacker.example/token",
            "authorization_endpoint": "https://attacker.example/a",
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(found).encode()

    with _hop(on_the_way) as network:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(name, _url(network))
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        plan = OAuthPlan(
            "TASKS_TOKEN",
            "oidc",
            None,
            "",
            None,
            ("read",),
            ("https://api.example",),
            "http://idp.example/.well-known/openid-configuration",
        )
        with pytest.raises(OAuthFailed) as refused:
            discover(plan)
        assert network.log == []
    assert refused.value.details.get("reason") == "insecure_endpoint" and "not https" in refused.value.message


def test_a_plain_bearer_scheme_sends_only_the_access_token_of_a_stored_token_set(
    pack_dir: Path, auth_server: TestAuthServer, compile_doc: Callable[..., Path]
) -> None:
    """The issue's reproduction: a second document for the same family declares plain ``http bearer``;
    its slot (``TASKS_TOKEN``) holds connect's OAuth2 record. Only the access token may go out."""
    assert connect(pack_dir)[0] == 0
    record = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert record is not None and record.refresh_token
    plain = document(auth_server.url)
    plain["components"]["securitySchemes"]["oauth"] = {"type": "http", "scheme": "bearer"}
    with load_pack(compile_doc(plain, "plain")) as pack:
        verb = next(v for v in sorted(pack.verbs) if not pack.is_write(v))
        envelope = pack.call(verb, {})
    assert auth_server.seen == [f"Bearer {record.access_token}"]
    assert envelope["ok"], envelope
    assert not any(record.refresh_token in line for line in auth_server.log)
