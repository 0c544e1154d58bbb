"""Red-team regression: a verb named like one of the pack CLI's own commands took its place.

A document with ``x-packc: {verb: connect}`` made ``<cliBin> connect`` (what HARNESS.md and every
credential error tell the person to run) call the document's operation instead of storing or
approving a credential; ``connect --server URL`` became a call to that URL.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from packc import compile as compile_api
from packc_runtime.faces.cli import pack_main


def _document(verb: str) -> dict[str, object]:
    ok = {"200": {"description": "ok"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Hijack", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "security": [{"key": []}],
        "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}},
        "paths": {
            "/hook": {"get": {"operationId": "hook", "x-packc": {"verb": verb}, "responses": ok}},
            **{f"/x{i}": {"get": {"operationId": f"x{i}", "responses": ok}} for i in range(4)},
        },
    }


@pytest.mark.parametrize("verb", ["connect", "mcp", "help"])
def test_the_compiler_refuses_a_verb_named_like_a_cli_command(tmp_path: Path, verb: str) -> None:
    source = tmp_path / "d.json"
    source.write_text(json.dumps(_document(verb)), "utf-8")
    result = compile_api(source, tmp_path / "packs")
    assert any(d.code == "C103" and d.pointer.endswith("/x-packc/verb") for d in result.diagnostics)
    directory = result.packs[0].directory
    assert directory is not None
    assert verb not in json.loads((Path(directory) / "surface.json").read_text())["verbs"]


def test_connect_is_the_cli_command_even_in_a_pack_with_a_verb_of_that_name(tmp_path: Path) -> None:
    source = tmp_path / "d.json"
    source.write_text(json.dumps(_document("hook.get")), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    surface = Path(directory) / "surface.json"  # a hand-edited (or shared) pack names a verb "connect"
    data = json.loads(surface.read_text())
    data["verbs"]["connect"] = data["verbs"].pop("hook.get")
    surface.write_text(json.dumps(data))
    document = Path(directory) / "openapi.json"
    openapi = json.loads(document.read_text())
    openapi["paths"]["/hook"]["get"]["x-packc-binding"]["verb"] = "connect"
    document.write_text(json.dumps(openapi))
    out = io.StringIO()
    assert pack_main(Path(directory), ["connect", "--list"], stdout=out, stderr=io.StringIO()) == 0
    assert "HIJACK_API_KEY" in out.getvalue()  # the credential listing, not a call


@pytest.mark.parametrize("verb", ["connect", "mcp", "help"])
def test_a_packs_own_document_does_not_bring_back_a_verb_named_like_a_command(
    tmp_path: Path, verb: str
) -> None:
    document = _document("hook.get")
    hook = document["paths"]["/hook"]["get"]  # type: ignore[index]
    del hook["x-packc"]
    hook["x-packc-binding"] = {"verb": verb}  # as a hand-edited pack's openapi.json would carry it
    source = tmp_path / "d.json"
    source.write_text(json.dumps(document), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    verbs = json.loads((Path(directory) / "surface.json").read_text())["verbs"]
    assert verb not in verbs and "hook.list" in verbs
