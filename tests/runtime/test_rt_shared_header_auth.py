"""Schemes of one AND-requirement that write the same header: one is applied, never two headers.

azure.com/containerregistry.json requires ``registry_auth`` (http basic) AND ``registry_oauth2``
(an apiKey in the ``Authorization`` header). A request carries one Authorization header, so the
runtime applies one of them: the http scheme when its credential is bound, else the other.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from packc_runtime import load_pack
from servers import FIXTURE_ORIGIN, PACKS
from servers.echo_app import EchoApp

Server = tuple[EchoApp, str]
SHARED = {
    "keyAuthorization": {"type": "apiKey", "in": "header", "name": "Authorization"},
    "keyTrace": {"type": "apiKey", "in": "header", "name": "X-Trace-Key"},
}
VERBS = {  # verb -> its security requirements
    "whoami.shared": [{"basic": [], "keyAuthorization": []}],  # the containerregistry shape
    "whoami.shared_key_first": [{"keyAuthorization": [], "bearer": [], "keyTrace": []}],
}
USER, PASSWORD, KEY, TOKEN, TRACE = "alice", "pw-shared-1", "key-shared-2", "bt-shared-3", "tk-shared-4"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


@pytest.fixture()
def pack_dir(tmp_path: Path) -> Path:
    """The authz fixture pack plus verbs whose requirement has two schemes writing Authorization."""
    target = tmp_path / "authz"
    shutil.copytree(PACKS / "authz", target)
    document = json.loads((target / "openapi.json").read_text())
    document["components"]["securitySchemes"].update(SHARED)
    surface = json.loads((target / "surface.json").read_text())
    policy = json.loads((target / "policy.json").read_text())
    for verb, security in VERBS.items():
        document["paths"][f"/secure/{verb.split('.')[1]}"] = {
            "get": {
                "operationId": verb.replace(".", "_"),
                "security": security,
                "responses": {"200": {"description": "echo"}},
                "x-packc-binding": {"verb": verb, "args": {}},
            }
        }
        surface["verbs"][verb] = {
            "description": "Echo with schemes that share a header.",
            "cli": ["authz", *verb.split(".")],
            "args": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
        }
        policy["commands"][verb] = {"access": "read"}
    for name, value in (("openapi.json", document), ("surface.json", surface), ("policy.json", policy)):
        (target / name).write_text(json.dumps(value, indent=2))
    return target


def _env(
    *, basic: bool = False, key: bool = False, bearer: bool = False, trace: bool = False
) -> dict[str, str]:
    env = {"PACKC_TRUSTED_ORIGINS": FIXTURE_ORIGIN}  # the derived pack's new variables are not approved
    if basic:
        env.update({"AUTHZ_USERNAME": USER, "AUTHZ_PASSWORD": PASSWORD})
    if key:
        env["AUTHZ_KEY_AUTHORIZATION_API_KEY"] = KEY
    if bearer:
        env["AUTHZ_BEARER_TOKEN"] = TOKEN
    if trace:
        env["AUTHZ_KEY_TRACE_API_KEY"] = TRACE
    return env


def _sent(pack_dir: Path, verb: str, env: dict[str, str]) -> tuple[dict[str, Any], list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    with load_pack(pack_dir, transport=httpx.MockTransport(handler), environ=env) as pack:
        return pack.call(verb, {}), seen


def _authorization(request: httpx.Request) -> list[str]:
    return [v for k, v in request.headers.multi_items() if k.lower() == "authorization"]


def test_http_scheme_is_applied_when_both_are_bound(pack_dir: Path) -> None:
    envelope, seen = _sent(pack_dir, "whoami.shared", _env(basic=True, key=True))
    assert envelope["ok"], envelope
    assert _authorization(seen[0]) == [BASIC]  # one header, the http scheme's


def test_the_other_scheme_is_applied_when_only_its_credential_is_bound(pack_dir: Path) -> None:
    envelope, seen = _sent(pack_dir, "whoami.shared", _env(key=True))
    assert envelope["ok"], envelope
    assert _authorization(seen[0]) == [KEY]
    envelope, seen = _sent(pack_dir, "whoami.shared", _env(basic=True))
    assert envelope["ok"] and _authorization(seen[0]) == [BASIC]


def test_schemes_on_other_headers_are_still_all_required(pack_dir: Path) -> None:
    envelope, seen = _sent(pack_dir, "whoami.shared_key_first", _env(key=True, bearer=True, trace=True))
    assert envelope["ok"], envelope
    assert _authorization(seen[0]) == [f"Bearer {TOKEN}"]  # http first, whatever the document's order
    assert seen[0].headers["X-Trace-Key"] == TRACE
    envelope, seen = _sent(pack_dir, "whoami.shared_key_first", _env(key=True, bearer=True))
    assert envelope["error"]["code"] == "missing_credentials" and seen == []
    assert "AUTHZ_KEY_TRACE_API_KEY" in envelope["error"]["env"]


def test_nothing_bound_is_missing_credentials(pack_dir: Path) -> None:
    envelope, seen = _sent(pack_dir, "whoami.shared", {})
    assert envelope["error"]["code"] == "missing_credentials" and seen == []
    assert set(envelope["error"]["env"]) == {
        "AUTHZ_USERNAME",
        "AUTHZ_PASSWORD",
        "AUTHZ_KEY_AUTHORIZATION_API_KEY",
    }


@pytest.mark.e2e
def test_one_authorization_header_reaches_a_real_server(pack_dir: Path, echo_server: Server) -> None:
    app, url = echo_server
    with load_pack(pack_dir, environ={**_env(basic=True, key=True), "PACKC_TRUSTED_ORIGINS": url}) as pack:
        envelope = pack.call("whoami.shared", {}, server=url + "/api")
    assert envelope["ok"], envelope
    arrived = app.log[-1]
    assert arrived.raw_path == "/api/secure/shared"
    # the echo server joins repeated headers with ", ": a second Authorization would show here
    assert arrived.headers["authorization"] == BASIC
