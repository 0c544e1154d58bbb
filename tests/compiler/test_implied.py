"""packc.build.implied: a required Authorization header parameter on an operation with no security."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from packc import compile as compile_api
from packc.build.implied import ADDED_SCHEME

from .helpers import write_doc

OK = {"200": {"description": "ok"}}
AUTH = {
    "name": "Authorization",
    "in": "header",
    "required": True,
    "description": "e.g. `JE-API-KEY ABC`",
    "schema": {"type": "string"},
}


def _document(*, scheme: bool) -> dict[str, Any]:
    ops = {
        f"/orders/{name}": {"post": {"operationId": name, "responses": OK, "parameters": [AUTH]}}
        for name in ("a", "b", "c", "d", "e")
    }
    ops["/public"] = {
        "get": {"operationId": "open", "responses": OK, "parameters": [{**AUTH, "required": False}]}
    }
    ops["/keyed"] = {
        "get": {
            "operationId": "keyed",
            "responses": OK,
            "parameters": [AUTH],
            "security": [{"query_key": []}],
        }
    }
    schemes: dict[str, Any] = {"query_key": {"type": "apiKey", "in": "query", "name": "key"}}
    if scheme:
        schemes["partner_key"] = {"type": "apiKey", "in": "header", "name": "Authorization"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Orders", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"securitySchemes": schemes},
        "paths": ops,
    }


def _pack(tmp_path: Path, document: dict[str, Any]) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    source = write_doc(tmp_path, document)
    result = compile_api(source, tmp_path / "packs")
    assert result.ok, [str(d) for d in result.diagnostics]
    directory = result.packs[0].directory
    return (
        result,
        json.loads((directory / "openapi.json").read_text()),
        json.loads((directory / "surface.json").read_text()),
    )


def test_the_documents_authorization_api_key_scheme_is_used(tmp_path: Path) -> None:
    document = _document(scheme=True)
    before = copy.deepcopy(document)
    result, cut, surface = _pack(tmp_path, document)
    assert document == before
    for name in "abcde":
        assert cut["paths"][f"/orders/{name}"]["post"]["security"] == [{"partner_key": []}]
    assert "security" not in cut["paths"]["/public"]["get"]  # optional: the document allows no credential
    assert cut["paths"]["/keyed"]["get"]["security"] == [{"query_key": []}]  # its own security stands
    assert set(cut["components"]["securitySchemes"]) == {"partner_key", "query_key"}
    assert surface["binding"]["mode"] == "user"
    implied = [d for d in result.diagnostics if d.code == "C156"]
    assert len(implied) == 5 and all(d.pointer.endswith("/post/parameters/0") for d in implied)  # 5 listed
    # the parameter is a credential now: C156 says so, and C121 ("not an argument, ignored") does not
    assert not [d for d in result.diagnostics if d.code == "C121" and "/orders/" in d.pointer]


def test_many_are_listed_up_to_five_then_counted(tmp_path: Path) -> None:
    document = _document(scheme=True)
    document["paths"]["/orders/f"] = {"post": {"operationId": "f", "responses": OK, "parameters": [AUTH]}}
    result, _cut, _surface = _pack(tmp_path, document)
    implied = [d for d in result.diagnostics if d.code == "C156"]
    assert len(implied) == 6 and implied[-1].message.startswith("1 more warning(s)")
    assert "'partner_key'" in implied[0].message


def test_a_scheme_is_added_when_the_document_has_none(tmp_path: Path) -> None:
    _result, cut, _surface = _pack(tmp_path, _document(scheme=False))
    assert cut["paths"]["/orders/a"]["post"]["security"] == [{ADDED_SCHEME: []}]
    assert cut["components"]["securitySchemes"][ADDED_SCHEME]["in"] == "header"
    assert cut["components"]["securitySchemes"][ADDED_SCHEME]["name"] == "Authorization"


def test_documents_without_such_parameters_compile_as_before(tmp_path: Path) -> None:
    document = _document(scheme=True)
    for item in document["paths"].values():
        for op in item.values():
            op["parameters"] = []
    result, cut, surface = _pack(tmp_path, document)
    assert not [d for d in result.diagnostics if d.code == "C156"]
    assert "security" not in cut["paths"]["/orders/a"]["post"] and surface["binding"]["mode"] == "user"
