"""The cut shares subtrees with the document: it must never change the document it was cut from."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from packc.model import resolve_pointer
from packc.read.frontend import read_api
from packc.write.cut import cut_document

ROOT = Path(__file__).parents[2]


def _doc() -> dict[str, object]:
    schema = {"$ref": "#/components/schemas/Pet"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Cut", "version": "1"},
        "security": [{"key": []}],
        "tags": [{"name": "pets"}, {"name": "unused"}],
        "paths": {
            "/pets": {
                "parameters": [{"$ref": "#/components/parameters/Limit"}],
                "get": {
                    "tags": ["pets"],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"type": "array", "items": schema}}},
                        }
                    },
                },
            },
            "/pets/{id}": {
                "get": {
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"$ref": "#/components/schemas/Pet/properties/id"},
                        }
                    ],
                    "responses": {"200": {"$ref": "#/components/responses/One"}},
                }
            },
            "/all": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    # a ref to a whole section, then refs into it: nothing may be added to the shared section
                                    "schema": {
                                        "type": "object",
                                        "x-all": {"$ref": "#/components/schemas"},
                                        "properties": {
                                            "o": {"$ref": "#/components/schemas/Owner/properties/name"}
                                        },
                                    }
                                }
                            },
                        }
                    }
                }
            },
        },
        "components": {
            "schemas": {
                "Pet": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "owner": {"$ref": "#/components/schemas/Owner"},
                    },
                },
                "Owner": {"type": "object", "properties": {"name": {"type": "string"}}},
                "Unused": {"type": "string"},
            },
            "parameters": {"Limit": {"name": "limit", "in": "query", "schema": {"type": "integer"}}},
            "responses": {
                "One": {
                    "description": "one",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
                }
            },
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        },
    }


@pytest.mark.parametrize(
    "source", ["inline", "specs/clinic.yaml", "specs/taskboard.yaml", "specs/bookshop.swagger.json"]
)
def test_cut_leaves_the_document_as_it_was(source: str, tmp_path: Path) -> None:
    if source == "inline":
        path = tmp_path / "api.json"
        path.write_text(json.dumps(_doc()))
    else:
        path = ROOT / source
    api = read_api(path).api
    before = copy.deepcopy(api.document)
    ops = list(api.operations)
    for chosen in (ops[:1], ops[1::2], ops):
        cut = cut_document(
            api, chosen, {op.key: {"verb": op.key} for op in chosen}, [{"url": "https://x.example"}]
        )
        refs = [r for r in _refs(cut)]
        assert all(resolve_pointer(cut, r) is not None for r in refs)
    assert api.document == before


def test_the_inline_cut_keeps_what_is_reached_only(tmp_path: Path) -> None:
    path = tmp_path / "api.json"
    path.write_text(json.dumps(_doc()))
    api = read_api(path).api
    pets = [op for op in api.operations if op.path.startswith("/pets")]
    cut = cut_document(api, pets, {op.key: {"verb": op.key} for op in pets}, [])
    assert sorted(cut["components"]["schemas"]) == ["Owner", "Pet"]
    assert sorted(cut["components"]) == ["parameters", "responses", "schemas", "securitySchemes"]
    assert [t["name"] for t in cut["tags"]] == ["pets"]
    assert cut["paths"]["/pets"]["get"]["x-packc-binding"] == {"verb": "GET /pets"}
    assert "x-packc-binding" not in api.document["paths"]["/pets"]["get"]  # type: ignore[index]


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_responses_are_cut_two_hops_deep_and_requests_keep_all_they_reach() -> None:
    from packc.model import Api

    def obj(**props: object) -> dict[str, object]:
        return {"type": "object", "properties": props}

    ref = lambda name: {"$ref": f"#/components/schemas/{name}"}  # noqa: E731
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Chain", "version": "1"},
        "paths": {
            "/intents": {
                "post": {
                    "requestBody": {"content": {"application/json": {"schema": ref("In1")}}},
                    "responses": {
                        "200": {"description": "ok", "content": {"application/json": {"schema": ref("Out1")}}}
                    },
                }
            }
        },
        "components": {
            "schemas": {
                "In1": obj(a=ref("In2")),
                "In2": obj(b=ref("In3")),
                "In3": obj(c={"type": "string"}),
                "Out1": obj(customer={"anyOf": [{"type": "string"}, ref("Out2")]}),
                "Out2": obj(invoice=ref("Out3"), again=ref("Out1")),
                "Out3": obj(lines=ref("Out4")),
                "Out4": {"type": "string"},
            }
        },
    }
    api = read_api_from(document)
    before = copy.deepcopy(document)
    cut = cut_document(api, list(api.operations), {api.operations[0].key: {"verb": "intents.create"}}, [])
    schemas = cut["components"]["schemas"]
    assert {"In1", "In2", "In3"} <= set(schemas)  # a request keeps everything it reaches
    assert {"Out1", "Out2"} <= set(schemas) and not {"Out3", "Out4"} & set(schemas)
    invoice = schemas["Out2"]["properties"]["invoice"]
    assert "$ref" not in invoice and "#/components/schemas/Out3" in invoice["description"]
    again = schemas["Out2"]["properties"]["again"]  # a ref back would close a cycle Prism chokes on
    assert "$ref" not in again and "#/components/schemas/Out1" in again["description"]
    assert document == before and isinstance(api, Api)  # the source is never changed


def test_a_responses_key_inside_an_extension_is_followed_like_the_rest() -> None:
    ok = {"200": {"description": "ok"}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Ext", "version": "1"},
        "paths": {
            "/orgs": {
                "delete": {
                    "responses": ok,
                    "x-breaking-changes": [
                        {"patch": {"responses": {"451": {"$ref": "#/components/responses/gone"}}}}
                    ],
                }
            }
        },
        "components": {"responses": {"gone": {"description": "gone"}}},
    }
    api = read_api_from(document)
    cut = cut_document(api, list(api.operations), {api.operations[0].key: {"verb": "orgs.delete"}}, [])
    assert cut["components"]["responses"]["gone"] == {
        "description": "gone"
    }  # GitHub's cut lost it (Prism refused)


def read_api_from(document: dict[str, object]) -> object:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "api.json"
        path.write_text(json.dumps(document))
        return read_api(path).api
