"""End to end: an operation that asks for Authorization as a parameter gets it as a credential.

The compiler gives such an operation the document's apiKey-in-Authorization scheme (packc.build.implied);
the pack then lists a credential, refuses the call without it, and sends it in one Authorization
header to a real server on 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from packc import compile as compile_api
from packc_runtime import load_pack
from packc_runtime.calling.openapi.operations import load_document
from packc_runtime.credentials.slots import credential_slots
from packc_runtime.credentials.store import approve_env
from packc_runtime.format.manifest import read_manifest
from servers.echo_app import EchoApp

pytestmark = pytest.mark.e2e
OK = {"200": {"description": "ok"}}
AUTH = {"name": "Authorization", "in": "header", "required": True, "schema": {"type": "string"}}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Partner", "version": "1"},
    "servers": [{"url": "https://partner.example.com"}],
    "components": {
        "securitySchemes": {"partner_key": {"type": "apiKey", "in": "header", "name": "Authorization"}}
    },
    "paths": {
        f"/echo/{name}": {"get": {"operationId": name, "responses": OK, "parameters": [AUTH]}}
        for name in ("orders", "refunds", "queries", "times", "status")
    },
}


def test_the_parameter_becomes_a_credential_that_reaches_the_server(
    tmp_path: Path, echo_server: tuple[EchoApp, str]
) -> None:
    app, url = echo_server
    source = tmp_path / "partner.json"
    source.write_text(json.dumps(DOCUMENT), "utf-8")
    result = compile_api(source, tmp_path / "packs", server=url + "/api")
    directory = result.packs[0].directory
    assert directory is not None
    manifest, _ = read_manifest(directory)
    assert manifest is not None
    slots = credential_slots(manifest, load_document(directory / "openapi.json"))
    assert [(s.scheme, s.kind) for s in slots] == [("partner_key", "api_key")]
    verb = next(v for v in result.packs[0].verbs if v.endswith("orders.list"))
    with load_pack(directory, environ={}) as pack:
        missing = pack.call(verb, {})
    assert missing["error"]["code"] == "missing_credentials" and missing["error"]["env"] == [slots[0].env]
    with load_pack(directory, environ={slots[0].env: "JE-API-KEY abc123"}) as pack:
        unapproved = pack.call(verb, {})
    assert unapproved["error"]["code"] == "unapproved_credentials", unapproved
    approve_env([slots[0].env], [url])  # as `connect --approve-env` records it
    with load_pack(directory, environ={slots[0].env: "JE-API-KEY abc123"}) as pack:
        envelope = pack.call(verb, {})
    assert envelope["ok"], envelope
    arrived = app.log[-1]
    assert arrived.raw_path == "/api/echo/orders"
    assert arrived.headers["authorization"] == "JE-API-KEY abc123"  # once: repeats would be joined with ", "
