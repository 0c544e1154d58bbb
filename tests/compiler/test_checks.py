"""packc.build.checks: what a document asks for that no request can give as written (C150-C155)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from packc import compile as compile_api
from packc.build.checks import MAX_LISTED, check_operations
from packc.read.frontend import read_api

from .helpers import write_doc

OK = {"200": {"description": "ok"}}
BASIC_AND_KEY = {"basic": [], "authKey": []}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Findings", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "components": {
        "securitySchemes": {
            "basic": {"type": "http", "scheme": "basic"},
            "authKey": {"type": "apiKey", "in": "header", "name": "Authorization"},
            "trace": {"type": "apiKey", "in": "header", "name": "X-Trace"},
        }
    },
    "security": [BASIC_AND_KEY],
    "paths": {
        "/#X-Amz-Target=Svc.Create": {"post": {"operationId": "create", "responses": OK}},
        "/#X-Amz-Target=Svc.Delete": {"post": {"operationId": "delete", "responses": OK}},
        "/verses/{n}": {
            "get": {
                "operationId": "verse",
                "responses": OK,
                "security": [{"trace": []}],
                "parameters": [
                    {
                        "name": "n",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": [1, 2, 3]},
                    },
                    {
                        "name": "filters",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}, "enum": ["A", "B"]},
                    },
                    {
                        "name": "json",
                        "in": "query",
                        "schema": {
                            "type": "object",
                            "properties": {"inner": {"type": "object"}, "flat": {"type": "string"}},
                        },
                    },
                ],
            }
        },
        "/upload": {
            "post": {
                "operationId": "upload",
                "responses": OK,
                "requestBody": {
                    "content": {
                        "image/png": {"schema": {"type": "object", "format": "file"}},
                        "image/gif": {"schema": {"type": "object", "format": "file"}},
                    }
                },
            }
        },
        "/simulate": {
            "post": {
                "operationId": "simulate",
                "responses": OK,
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["items", "id"],
                                "properties": {
                                    "items": {
                                        "type": "array",
                                        "items": {"type": "object", "properties": {"id": {"type": "string"}}},
                                    },
                                    "level": {"type": "integer", "enum": ["low", "high"]},
                                },
                            }
                        }
                    }
                },
            }
        },
    },
}


def _findings(tmp_path: Path, document: dict[str, Any]) -> dict[str, list[str]]:
    api = read_api(write_doc(tmp_path, document)).api
    out: dict[str, list[str]] = {}
    for d in check_operations(api, api.operations):
        assert d.level == "warning" and d.message and d.fix
        out.setdefault(d.code, []).append(d.pointer)
    return out


def test_each_finding_at_the_documents_own_pointer(tmp_path: Path) -> None:
    found = _findings(tmp_path, DOCUMENT)
    assert found == {
        "C150": ["#/paths/~1#X-Amz-Target=Svc.Create", "#/paths/~1#X-Amz-Target=Svc.Delete"],
        "C151": ["#/security/0"],  # once, though four operations inherit it
        "C152": [
            "#/paths/~1verses~1{n}/get/parameters/0/schema",
            "#/paths/~1verses~1{n}/get/parameters/1/schema",
            "#/paths/~1simulate/post/requestBody/content/application~1json/schema/properties/level",
        ],
        "C153": ["#/paths/~1upload/post/requestBody/content/image~1png/schema"],  # once per body
        "C154": ["#/paths/~1verses~1{n}/get/parameters/2/schema"],
        "C155": ["#/paths/~1simulate/post/requestBody/content/application~1json/schema"],
    }


def test_messages_say_what_goes_out_and_what_is_applied(tmp_path: Path) -> None:
    api = read_api(write_doc(tmp_path, DOCUMENT)).api
    messages = {d.code: d.message for d in check_operations(api, api.operations)}
    assert "POST / is what goes out; 1 other operation(s)" in messages["C150"]
    assert "'basic', 'authKey'" in messages["C151"] and "'authorization' header" in messages["C151"]
    assert "'basic' when its credential is set" in messages["C151"]
    assert "'id'" in messages["C155"] and "'items'" not in messages["C155"]


def test_a_clean_document_has_no_findings(tmp_path: Path) -> None:
    clean: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Clean", "version": "1"},
        "components": {"securitySchemes": DOCUMENT["components"]["securitySchemes"]},
        "security": [
            {"basic": []},
            {"authKey": []},
            {"basic": [], "trace": []},
        ],  # alternatives; other headers
        "paths": {
            "/tags/{arn}": {
                "get": {
                    "responses": OK,
                    "parameters": [
                        {
                            "name": "arn",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string", "enum": ["a", "b"]},
                        },
                        {
                            "name": "f",
                            "in": "query",
                            "schema": {"type": "object", "properties": {"x": {"type": "string"}}},
                        },
                        {
                            "name": "g",
                            "in": "query",
                            "schema": {"type": "file", "enum": ["a"]},
                        },  # unknown type: not C152
                        {
                            "name": "c",
                            "in": "query",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": {"x": {"type": "object"}}}
                                }
                            },
                        },
                    ],
                }
            },
            "/rest?method=a": {"get": {"responses": OK}},
            "/upload": {
                "post": {
                    "responses": OK,
                    "requestBody": {
                        "content": {
                            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["x"],
                                    "allOf": [{"properties": {"x": {"type": "string"}}}],
                                    "properties": {"y": {"type": "integer"}},
                                }
                            },
                        }
                    },
                }
            },
        },
    }
    assert _findings(tmp_path, clean) == {}


def test_many_findings_of_one_code_are_capped(tmp_path: Path) -> None:
    paths = {f"/#X-Amz-Target=Svc.Op{i}": {"post": {"responses": OK}} for i in range(MAX_LISTED + 3)}
    api = read_api(
        write_doc(tmp_path, {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths})
    ).api
    found = check_operations(api, api.operations)
    assert [d.code for d in found] == ["C150"] * (MAX_LISTED + 1)
    assert found[-1].message.startswith("3 more warning(s)")


@pytest.mark.parametrize("split", [False, True])
def test_compile_reports_the_findings_of_the_compiled_operations(tmp_path: Path, split: bool) -> None:
    result = compile_api(write_doc(tmp_path, DOCUMENT), tmp_path / "packs", split=split, write=False)
    codes = {d.code for d in result.diagnostics}
    assert {"C150", "C151", "C152", "C153", "C154", "C155"} <= codes
