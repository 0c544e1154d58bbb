"""A secret never travels in plain http beyond this machine: SendGrid's own document names
http://api.sendgrid.com, and a new user's trial found its key bound to that origin and sent over port
80 with no warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from packc import compile as compile_api
from packc_runtime import load_pack
from packc_runtime.credentials.origins import secure_url
from packc_runtime.credentials.store import approve_env, store_credentials


def _pack(tmp_path: Path, url: str) -> Path:
    ok = {"200": {"description": "ok"}}
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Mailer", "version": "1"},
        "servers": [{"url": url}],
        "security": [{"key": []}],
        "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}},
        "paths": {
            f"/{name}": {"get": {"operationId": f"{name}.list", "summary": f"List {name}", "responses": ok}}
            for name in ("mails", "lists", "senders", "domains", "stats")
        },
    }
    tmp_path.mkdir(parents=True, exist_ok=True)
    source = tmp_path / "mailer.json"
    source.write_text(json.dumps(document))
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    return directory


def test_a_key_for_a_plain_http_server_is_never_sent(tmp_path: Path) -> None:
    pack_dir = _pack(tmp_path, "http://api.mailer.example")
    seen: list[httpx.Request] = []
    environ = {"MAILER_API_KEY": "mk-secret-0001"}
    approve_env(["MAILER_API_KEY"], ["http://api.mailer.example"])  # the person approved it, unaware of http
    store_credentials({"MAILER_API_KEY": "mk-stored-0002"}, ["http://api.mailer.example"])
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200, json={}))
    with load_pack(pack_dir, environ=environ, transport=transport) as pack:
        envelope = pack.call("mails.list", {})
    assert not envelope["ok"] and envelope["error"]["code"] == "insecure_server", envelope
    assert "https://api.mailer.example" in envelope["error"]["message"]
    assert seen == []


def test_https_loopback_and_a_listed_test_server_are_sent_to(tmp_path: Path) -> None:
    for i, url in enumerate(("https://api.mailer.example", "http://127.0.0.1:9", "http://devbox.lan:8080")):
        pack_dir = _pack(tmp_path / str(i), url)
        seen: list[httpx.Request] = []
        transport = httpx.MockTransport(lambda r, seen=seen: seen.append(r) or httpx.Response(200, json={}))
        environ = {"MAILER_API_KEY": "mk-0003", "PACKC_TRUSTED_ORIGINS": url}
        with load_pack(pack_dir, environ=environ, transport=transport) as pack:
            envelope = pack.call("mails.list", {})
        assert envelope["ok"], (url, envelope)
        assert seen[0].headers["x-api-key"] == "mk-0003"


@pytest.mark.parametrize(
    ("url", "secure"),
    [
        ("https://api.example.com/v1", True),
        ("http://api.example.com", False),
        ("http://127.0.0.1:8080", True),
        ("http://[::1]:80", True),
        ("http://localhost", True),
        ("http://127.0.0.1.nip.io", False),
        ("ftp://127.0.0.1", False),
        ("http://", False),
    ],
)
def test_secure_url(url: str, secure: bool) -> None:
    assert secure_url(url) is secure
