"""Fixtures for the OAuth2 sign-in tests: a clean credential setup, the authlib server, a compiled pack."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from oauth_server import TestAuthServer, running  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the real keyring, credentials file or environment credentials."""
    monkeypatch.setenv("PACKC_KEYRING", "off")
    monkeypatch.setenv("PACKC_CREDENTIALS_FILE", str(tmp_path / "creds" / "credentials.json"))
    monkeypatch.delenv("PACKC_TRUSTED_ORIGINS", raising=False)
    for name in [k for k in __import__("os").environ if k.startswith("TASKS_")]:
        monkeypatch.delenv(name)


@pytest.fixture()
def auth_server() -> Iterator[TestAuthServer]:
    server = TestAuthServer()
    with running(server):
        yield server


def document(url: str, *, device: bool = False) -> dict[str, Any]:
    """An API whose verbs need the ``read`` and ``write`` scopes of an authorization code flow."""
    flow: dict[str, Any] = {"authorizationUrl": f"{url}/authorize", "tokenUrl": f"{url}/token",
                            "scopes": {"read": "read", "write": "write", "admin": "admin"}}
    if device:
        flow["x-device-authorization-url"] = f"{url}/device"
    ok = {"200": {"description": "ok"}}
    return {"openapi": "3.0.3", "info": {"title": "Tasks", "version": "1"}, "servers": [{"url": url}],
            "components": {"securitySchemes": {"oauth": {"type": "oauth2", "flows": {"authorizationCode": flow}}}},
            "paths": {"/v1/me": {"get": {"operationId": "getMe", "summary": "Read the signed-in user",
                                         "security": [{"oauth": ["read"]}], "responses": ok},
                                 "put": {"operationId": "updateMe", "summary": "Update the signed-in user",
                                         "security": [{"oauth": ["read", "write"]}], "responses": ok}}}}


@pytest.fixture()
def pack_dir(tmp_path: Path, auth_server: TestAuthServer) -> Path:
    from packc import compile as compile_api

    source = tmp_path / "tasks.json"
    source.write_text(json.dumps(document(auth_server.url, device=True)), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    return directory
