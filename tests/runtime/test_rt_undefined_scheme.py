"""A document's own mistakes are caught at compile time (issue 24, item 10): a security requirement
naming a scheme the document never defines is reported (D051, with its JSON pointer) and left out,
and the pack works for the requirements that are defined; it used to fail every call (invalid_pack)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from packc import compile as packc_compile
from packc_runtime import load_pack
from servers.echo_app import EchoApp

Server = tuple[EchoApp, str]


def _document(url: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Keys", "version": "1"},
        "servers": [{"url": url + "/api/echo"}],
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}},
        # The first requirement names a scheme never defined (a typo for 'token', or a leftover).
        "security": [{"apiKey": []}, {"token": []}],
        "paths": {
            "/things": {
                "get": {
                    "operationId": "list_things",
                    "summary": "List things.",
                    "responses": {"200": {"description": "ok"}},
                },
                "post": {
                    "operationId": "make_thing",
                    "summary": "Make a thing.",
                    "security": [{"api_key": []}],
                    "responses": {"201": {"description": "made"}},
                },
            }
        },
    }


def test_an_undefined_scheme_is_reported_and_the_defined_one_works(
    tmp_path: Path, echo_server: Server
) -> None:
    app, url = echo_server
    doc = tmp_path / "keys.json"
    doc.write_text(json.dumps(_document(url)))
    result = packc_compile(doc, tmp_path / "packs", lint=False)
    found = {(d.code, d.pointer) for d in result.diagnostics if d.code == "D051"}
    assert found == {("D051", "#/security/0/apiKey"), ("D051", "#/paths/~1things/post/security/0/api_key")}
    pack = result.packs[0].directory
    assert pack is not None
    cut = json.loads((pack / "openapi.json").read_text())
    assert cut["security"] == [{"token": []}] and cut["paths"]["/things"]["post"]["security"] == []
    with load_pack(pack, environ={"KEYS_TOKEN": "tok-1", "PACKC_TRUSTED_ORIGINS": url}) as loaded:
        listed = loaded.call("things.list", {})
        made = loaded.call("things.create", {}, confirm=True)
    assert listed["ok"] and made["ok"], (listed, made)
    get, post = app.log[-2], app.log[-1]
    assert get.headers.get("authorization") == "Bearer tok-1"
    assert "authorization" not in post.headers  # nothing defined is left for it: sent without credentials


def test_a_pack_written_before_still_chooses_a_requirement_it_can_meet(
    tmp_path: Path, echo_server: Server
) -> None:
    app, url = echo_server
    doc = tmp_path / "keys.json"
    doc.write_text(json.dumps(_document(url)))
    pack = packc_compile(doc, tmp_path / "packs", lint=False).packs[0].directory
    assert pack is not None
    cut_path = pack / "openapi.json"
    cut = json.loads(cut_path.read_text())
    cut["security"] = [{"apiKey": []}, {"token": []}]  # as packc wrote it before D051
    cut_path.write_text(json.dumps(cut))
    with load_pack(pack, environ={"KEYS_TOKEN": "tok-2", "PACKC_TRUSTED_ORIGINS": url}) as loaded:
        envelope = loaded.call("things.list", {})
    assert envelope["ok"], envelope  # was invalid_pack: the undefined scheme was 'met' by no slots
    assert app.log[-1].headers.get("authorization") == "Bearer tok-2"
