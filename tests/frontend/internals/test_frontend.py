"""read_api end to end on the documents in specs/frontend."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontend.conftest import serve
from packc.errors import InputError
from packc.model import Api, Operation, resolve_pointer
from packc.read._validate import strict_diagnostics
from packc.read.frontend import read_api


def _op(api: Api, operation_id: str) -> Operation:
    return next(op for op in api.operations if op.operation_id == operation_id)


def _all_refs(node: object) -> list[str]:
    out: list[str] = []
    stack = [node]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                out.append(item["$ref"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def test_swagger2_is_converted(specs: Path) -> None:
    result = read_api(specs / "petstore-2.0.yaml")
    api = result.api
    assert api.source_version == "2.0"
    assert api.document["openapi"] == "3.0.3"
    assert [s.url for s in api.servers] == [
        "https://petstore.example.com/v2",
        "http://petstore.example.com/v2",
    ]
    assert {k: (s.type, s.scheme, s.location) for k, s in api.security_schemes.items()} == {
        "api_key": ("apiKey", "", "header"),
        "basic": ("http", "basic", None),
        "oauth": ("oauth2", "", None),
    }
    assert api.security_schemes["oauth"].flows[0].kind == "authorizationCode"
    assert _op(api, "deletePet").security == ((("oauth", ("write",)),), (("basic", ()),))
    listing = _op(api, "listPets")
    assert [(p.name, p.style, p.explode) for p in listing.parameters] == [
        ("limit", "form", True),
        ("tags", "form", True),
        ("status", "pipeDelimited", False),
    ]
    assert listing.responses[0].content[0].schema == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Pet"},
    }
    create = _op(api, "createPet")
    assert create.request_body is not None and create.request_body.required
    assert create.request_body.content[0].content_type == "application/json"
    upload = _op(api, "uploadPhoto")
    assert upload.request_body is not None
    media = upload.request_body.content[0]
    assert media.content_type == "multipart/form-data"
    assert media.schema == {
        "type": "object",
        "required": ["file"],
        "properties": {"caption": {"type": "string"}, "file": {"type": "string", "format": "binary"}},
    }
    rename = _op(api, "renamePet").request_body
    assert rename is not None and rename.content[0].content_type == "application/x-www-form-urlencoded"
    pet = api.document["components"]["schemas"]["Pet"]
    assert pet["discriminator"] == {"propertyName": "kind"}
    assert pet["properties"]["tag"] == {"type": "string", "nullable": True}
    # Every ref points inside the converted document, and the result is a valid 3.0.3 document.
    refs = _all_refs(api.document)
    assert refs and all(resolve_pointer(api.document, r) is not None for r in refs)
    assert strict_diagnostics(api.document, "3.0.3") == []


def test_swagger2_file_response_and_path_item_ref(tmp_path: Path) -> None:
    spec = tmp_path / "photo.yaml"
    spec.write_text("""
swagger: "2.0"
info: {title: Photos, version: "1"}
paths:
  /photo:
    $ref: "#/x-items/photo"
x-items:
  photo:
    get:
      operationId: getPhoto
      produces: [image/png]
      parameters: [{name: size, in: query, type: array, items: {type: integer}, collectionFormat: tsv}]
      responses:
        "200": {description: The photo, schema: {type: file}}
""")
    result = read_api(spec)
    photo = _op(result.api, "getPhoto")
    media = photo.responses[0].content[0]
    assert (media.content_type, media.schema) == ("image/png", {"type": "string", "format": "binary"})
    assert [d.code for d in result.diagnostics] == ["D050", "D030"]  # tsv; no host and read from a file


def test_swagger2_strict_validates_the_source(specs: Path) -> None:
    assert read_api(specs / "petstore-2.0.yaml", strict=True).api.operations


def test_openapi_30_features(specs: Path) -> None:
    result = read_api(specs / "petstore-3.0.yaml")
    api = result.api
    assert [d.code for d in result.diagnostics] == []
    assert api.servers[0].url == "https://{region}.petstore.example.com/v1"
    assert api.servers[0].variables[0].default == "eu" and api.servers[0].variables[0].enum == ("eu", "us")
    assert api.security == ((("bearer", ()),),)
    assert api.security_schemes["bearer"].scheme == "bearer"  # lower-cased
    listing = _op(api, "listPets")
    by_name = {p.name: p for p in listing.parameters}
    assert (by_name["X-Trace"].location, by_name["X-Trace"].style, by_name["X-Trace"].explode) == (
        "header",
        "simple",
        False,
    )
    assert (by_name["session"].style, by_name["session"].explode) == ("form", True)
    assert by_name["limit"].examples[0].value == 5
    assert (
        by_name["filter"].content is not None and by_name["filter"].content.content_type == "application/json"
    )
    response = listing.responses[0]
    assert response.content[0].content_type == "application/json"  # parameters stripped, lower-cased
    assert response.content[0].examples[0].value == {"id": 1, "name": "Rex"}  # examples map, by $ref
    create = _op(api, "createPet")
    assert create.request_body is not None
    assert [m.content_type for m in create.request_body.content] == [
        "application/json",
        "application/merge-patch+json",
        "application/octet-stream",
        "text/plain",
    ]
    # A path item given by $ref is not dropped; operation-level parameters override path-level ones.
    get_pet = _op(api, "getPet")
    assert get_pet.path == "/pets/{petId}"
    assert [(p.name, p.description, p.schema) for p in get_pet.parameters] == [
        ("petId", "overridden", {"type": "string"})
    ]
    assert _op(api, "deletePet").security == ()  # explicit anonymous
    photo = _op(api, "putPhoto")
    assert photo.deprecated and photo.extensions == {"x-rate-limit": 5}
    assert [s.url for s in photo.servers] == ["https://uploads.petstore.example.com"]
    assert photo.request_body is not None
    assert photo.request_body.content[0].encoding["meta"].content_type == "application/json"
    assert photo.request_body.content[0].encoding["meta"].headers == ("X-Meta",)
    assert photo.pointer == "#/paths/~1pets~1{petId}~1photo/put"


def test_openapi_31_features(specs: Path) -> None:
    api = read_api(specs / "petstore-3.1.json").api
    assert [op.operation_id for op in api.operations] == ["getPet", "search", "sendNothing"]
    search = _op(api, "search")
    q, score = search.parameters
    assert q.schema == {"type": "string", "pattern": "^[\\p{L}\\p{N} ]+$"}  # kept, not compiled
    assert [e.value for e in q.examples] == ["Zoë", "42"]
    assert score.schema == {"type": ["number", "null"], "exclusiveMinimum": 0, "examples": [1.5]}
    assert search.responses[0].content[0].schema is True
    body = _op(api, "sendNothing").request_body
    assert body is not None and body.content[0].schema is False


def test_strict_mode_fails_on_p_patterns_the_default_path_tolerates(specs: Path) -> None:
    with pytest.raises(InputError) as info:
        read_api(specs / "petstore-3.1.json", strict=True)
    assert {d.code for d in info.value.diagnostics} == {"D060"}
    assert read_api(specs / "petstore-3.0.yaml", strict=True).api.operations  # x- keys under paths


def test_circular_refs_end(specs: Path) -> None:
    result = read_api(specs / "circular.yaml")
    node = _op(result.api, "getNode")
    schema = node.responses[0].content[0].schema
    assert schema == {"$ref": "#/components/schemas/Node"}
    assert result.api.deref({"$ref": "#/components/schemas/Self"}) == {"$ref": "#/components/schemas/Self"}
    loop = _op(result.api, "loop")
    assert loop.parameters == () and loop.responses == ()
    # Parameters and responses are read on first use: their warnings are the Api's deferred ones.
    assert [d.code for d in result.api.deferred_diagnostics()] == ["D025", "D025"]
    assert [d.code for d in read_api(specs / "circular.yaml", eager=True).diagnostics] == ["D025", "D025"]


def test_yaml_aliases(specs: Path) -> None:
    api = read_api(specs / "aliases.yaml").api
    a, b = api.operations
    assert [p.name for p in a.parameters] == [p.name for p in b.parameters] == ["page", "size"]
    assert [(r.status, r.description) for r in b.responses] == [
        ("400", "bad request"),
        ("500", "overridden"),
        ("200", "ok"),
    ]


def test_yaml_11_document(specs: Path) -> None:
    result = read_api(specs / "yaml11.yaml")
    op = result.api.operations[0]
    assert op.operation_id == "getSwitchAgain"  # duplicate key: the last wins, with a warning
    assert result.api.info.version == "1.0"
    codes = [d.code for d in result.diagnostics]
    assert "D008" in codes and codes.count("D009") == 8


def test_multi_file_spec_is_bundled(specs: Path) -> None:
    result = read_api(specs / "multi" / "openapi.yaml")
    api = result.api
    assert result.diagnostics == ()
    assert [op.operation_id for op in api.operations] == ["listPets", "createPet", "getPet"]
    refs = _all_refs(api.document)
    assert all(r.startswith("#/") for r in refs)
    assert all(resolve_pointer(api.document, r) is not None for r in refs)
    schemas = api.document["components"]["schemas"]
    assert set(schemas) == {"Error", "pet", "Owner", "Error_2"}  # the root's Error is not overwritten
    assert schemas["Error"]["properties"] == {"root": {"type": "boolean"}}
    assert schemas["Owner"]["properties"]["pets"]["items"] == {"$ref": "#/components/schemas/pet"}
    get_pet = _op(api, "getPet")
    assert get_pet.parameters[0].name == "petId"
    assert get_pet.responses[1].content[0].schema == {"$ref": "#/components/schemas/Error_2"}
    assert strict_diagnostics(api.document, "3.0.3") == []


def test_refs_that_may_not_be_followed(specs: Path) -> None:
    result = read_api(specs / "multi" / "escape.yaml")
    assert [d.code for d in result.diagnostics] == ["D022", "D023", "D021", "D024", "D020"]
    properties = result.api.operations[0].responses[0].content[0].schema["properties"]  # type: ignore[index]
    assert all(value == {} for value in properties.values())
    allowed = read_api(specs / "multi" / "escape.yaml", allow_outside=True)
    assert "D022" not in [d.code for d in allowed.diagnostics]
    assert "#/components/schemas/Pet" in _all_refs(allowed.api.document)


def test_url_input_with_same_origin_refs_and_relative_server(served: str) -> None:
    result = read_api(f"{served}/remote/openapi.yaml")
    api = result.api
    assert api.source == f"{served}/remote/openapi.yaml"
    assert [s.url for s in api.servers] == [f"{served}/"]  # the default "/" against the document's URL
    schema = api.operations[0].responses[0].content[0].schema
    assert schema == {"$ref": "#/components/schemas/item"}
    item = api.document["components"]["schemas"]["item"]
    assert item["properties"]["tags"] == {"$ref": "#/components/schemas/Tags"}
    assert result.diagnostics == ()


def test_remote_refs_from_a_file_need_the_flag(served: str, tmp_path: Path) -> None:
    spec = tmp_path / "api.json"
    spec.write_text(
        json.dumps(
            {
                "openapi": "3.0.3",
                "info": {"title": "R", "version": "1"},
                "servers": [{"url": "https://r.example.com"}],
                "paths": {
                    "/x": {
                        "get": {
                            "operationId": "x",
                            "responses": {
                                "200": {
                                    "description": "ok",
                                    "content": {
                                        "application/json": {"schema": {"$ref": f"{served}/remote/item.json"}}
                                    },
                                }
                            },
                        }
                    }
                },
            }
        )
    )
    blocked = read_api(spec)
    assert [d.code for d in blocked.diagnostics] == ["D021"]
    # served is on 127.0.0.1: a local file (which may come from anywhere) reaches this machine only
    # when the user also allows private addresses (D027; tests/frontend/internals/test_fetch_private.py).
    assert [d.code for d in read_api(spec, allow_remote_refs=True).diagnostics] == ["D027"]
    allowed = read_api(spec, allow_remote_refs=True, allow_private=True)
    assert allowed.diagnostics == ()
    assert allowed.api.document["components"]["schemas"]["item"]["type"] == "object"


def test_relative_server_from_a_file_warns(specs: Path) -> None:
    result = read_api(specs / "remote" / "openapi.yaml")
    assert result.api.servers == ()
    assert [d.code for d in result.diagnostics] == ["D030"]
    assert "--server" in result.diagnostics[0].fix


def test_a_server_url_that_is_no_url_is_skipped_with_a_warning(tmp_path: Path) -> None:
    # Found by test_arbitrary_yaml_never_crashes: urlsplit raised ValueError out of read_api.
    doc = tmp_path / "api.json"
    doc.write_text(
        json.dumps(
            {
                "openapi": "3.0.3",
                "info": {"title": "t", "version": "1"},
                "servers": [{"url": "https://[::1/v1"}, {"url": "https://api.example.com"}],
                "paths": {},
            }
        )
    )
    result = read_api(doc)
    assert [s.url for s in result.api.servers] == ["https://api.example.com"]
    assert ("D031", "#/servers/0/url") in [(d.code, d.pointer) for d in result.diagnostics]


def test_stub_manifest(specs: Path, served: str) -> None:
    result = read_api(specs / "stub" / "surface.json")
    assert result.stub is not None and result.stub.id == "petstore"
    assert result.api.info.title == "Petstore 3.0"
    by_url = read_api(f"{served}/stub/surface.json")
    assert by_url.api.source == f"{served}/petstore-3.0.yaml"


def test_bad_stub_is_a_clear_error(tmp_path: Path) -> None:
    stub = tmp_path / "surface.json"
    stub.write_text(json.dumps({"kind": "openapi", "openapi": {"path": "a.yaml", "url": "https://x"}}))
    with pytest.raises(InputError) as info:
        read_api(stub)
    assert info.value.diagnostics[0].code == "D013"


@pytest.mark.parametrize(
    "text", ['{"openapi": "2.5"}', "[1, 2]", '{"swagger": "1.2"}', "just text", '{"info": {}}']
)
def test_not_openapi_is_a_clear_error(tmp_path: Path, text: str) -> None:
    spec = tmp_path / "x.yaml"
    spec.write_text(text)
    with pytest.raises(InputError) as info:
        read_api(spec)
    assert [d.code for d in info.value.diagnostics] == ["D011"]


def test_bomb_and_deep_documents_fail_clearly(specs: Path) -> None:
    for name, code in (("bomb.yaml", "D005"), ("deep.json", "D004")):
        with pytest.raises(InputError) as info:
            read_api(specs / name)
        assert [d.code for d in info.value.diagnostics] == [code]


def test_tolerant_reading_of_broken_operations(tmp_path: Path) -> None:
    spec = tmp_path / "broken.yaml"
    spec.write_text("""
openapi: 3.0.3
info: {title: Broken, version: "1"}
servers: [{url: "https://b.example.com/{v}", variables: {v: {enum: [v1, v2]}}}]
paths:
  /a/{id}/{other}:
    get:
      operationId: same
      parameters:
        - {name: id, in: path, schema: {type: integer}}
        - {in: query}
        - {name: ghost, in: path, required: true, schema: {type: string}}
        - {$ref: "#/components/parameters/Missing"}
      responses: {200: {description: ok}}
    post: "not an operation"
  /b:
    get: {operationId: same, security: [{nope: []}], responses: {}}
  nopath: {}
""")
    result = read_api(spec, eager=True)
    codes = [d.code for d in result.diagnostics]
    assert sorted(codes) == sorted(
        ["D032", "D041", "D020", "D049", "D042", "D043", "D040", "D044", "D051", "D040"]
    )
    lazy = read_api(spec)
    assert sorted(d.code for d in lazy.diagnostics) == sorted(["D032", "D040", "D044", "D051", "D040"])
    assert sorted(d.code for d in lazy.api.materialize()) == sorted(["D041", "D020", "D049", "D042", "D043"])
    assert lazy.api == result.api
    op = result.api.operations[0]
    assert [(p.name, p.required) for p in op.parameters] == [("id", True), ("other", True)]
    assert result.api.servers[0].variables[0].default == "v1"
    assert all(d.pointer.startswith("#") and d.fix for d in result.diagnostics)


def test_same_input_same_model(specs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "multi"
    shutil.copytree(specs / "multi", copy)
    first = read_api(copy / "openapi.yaml").api
    second = read_api(copy / "openapi.yaml").api
    assert first == second
    assert json.dumps(first.document, sort_keys=False) == json.dumps(second.document, sort_keys=False)


def test_swagger2_multi_file_bundles_in_its_own_layout(tmp_path: Path) -> None:
    (tmp_path / "defs.yaml").write_text("""
Pet: {type: object, properties: {name: {type: string}, owner: {$ref: "#/Owner"}}}
Owner: {type: object, x-nullable: true}
Limit: {name: limit, in: query, type: integer}
""")
    (tmp_path / "api.yaml").write_text("""
swagger: "2.0"
info: {title: Two files, version: "1"}
host: two.example.com
paths:
  /pets:
    get:
      operationId: listPets
      parameters: [{$ref: "defs.yaml#/Limit"}]
      responses:
        "200": {description: ok, schema: {type: array, items: {$ref: "defs.yaml#/Pet"}}}
""")
    result = read_api(tmp_path / "api.yaml")
    assert result.diagnostics == ()
    api = result.api
    op = api.operations[0]
    assert [(p.name, p.location, p.schema) for p in op.parameters] == [
        ("limit", "query", {"type": "integer"})
    ]
    assert op.responses[0].content[0].schema == {
        "type": "array",
        "items": {"$ref": "#/components/schemas/Pet"},
    }
    schemas = api.document["components"]["schemas"]
    assert schemas["Pet"]["properties"]["owner"] == {"$ref": "#/components/schemas/Owner"}
    assert schemas["Owner"] == {"type": "object", "nullable": True}
    assert api.document["components"]["parameters"]["Limit"]["schema"] == {"type": "integer"}
    assert strict_diagnostics(api.document, "3.0.3") == []


def test_kind_of_a_whole_file_ref_comes_from_where_it_sits(tmp_path: Path) -> None:
    (tmp_path / "limit.yaml").write_text("{name: limit, in: query, schema: {type: integer}}\n")
    (tmp_path / "body.yaml").write_text("{content: {application/json: {schema: {type: object}}}}\n")
    (tmp_path / "api.yaml").write_text("""
openapi: 3.0.3
info: {title: Kinds, version: "1"}
servers: [{url: https://k.example.com}]
paths:
  /a:
    post:
      operationId: a
      parameters: [{$ref: "limit.yaml"}]
      requestBody: {$ref: "body.yaml"}
      responses: {"204": {description: ok}}
""")
    api = read_api(tmp_path / "api.yaml").api
    components = api.document["components"]
    assert set(components) == {"parameters", "requestBodies"}
    assert api.operations[0].parameters[0].name == "limit"
    assert api.operations[0].request_body is not None


def test_garbage_collector_state_is_restored(specs: Path) -> None:
    import gc

    assert gc.isenabled()
    read_api(specs / "petstore-3.0.yaml")
    assert gc.isenabled()
    with pytest.raises(InputError):
        read_api(specs / "bomb.yaml")
    assert gc.isenabled()
    gc.disable()
    try:
        read_api(specs / "petstore-3.0.yaml")
        assert not gc.isenabled()
    finally:
        gc.enable()


_ODD_REFS = [
    "http://[::1",
    "a\x00b.yaml",
    "%zz.yaml",
    "..//..",
    "#/%",
    "ü.yaml#/ä",
    "//other.example.com/x.json",
    "http://",
    "https://:99999/x",
    "mailto:x",
    "C:\\x.yaml",
    "a.yaml#",
    ".",
    "#",
    "x" * 3000,
    "data:application/json,{}",
    "?q=1",
    "/absolute.yaml",
    "a.yaml#/components/schemas/A",
]


@pytest.fixture(scope="module")
def odd_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """One folder (and one server on 127.0.0.1 for it) holding a document per odd ref."""
    folder = tmp_path_factory.mktemp("odd")
    (folder / "a.yaml").write_text("components: {schemas: {A: {type: object}}}\n")
    for index, ref in enumerate(_ODD_REFS):
        (folder / f"api{index}.json").write_text(
            json.dumps(
                {
                    "openapi": "3.0.3",
                    "info": {"title": "t", "version": "1"},
                    "paths": {
                        "/a": {"get": {"parameters": [{"$ref": ref}], "responses": {"200": {"$ref": ref}}}},
                        "/b": {"$ref": ref},
                    },
                }
            )
        )
    server, url = serve(folder)
    try:
        yield folder, url
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("index", range(len(_ODD_REFS)))
def test_odd_refs_never_crash_from_a_file_or_a_url(odd_folder: tuple[Path, str], index: int) -> None:
    folder, url = odd_folder
    for source in (folder / f"api{index}.json", f"{url}/api{index}.json"):
        result = read_api(source, timeout=5)
        assert all(r.startswith("#") for r in _all_refs(result.api.document))
        assert all(d.level == "warning" for d in result.diagnostics)


def test_the_model_pickles_and_copies(specs: Path) -> None:
    import copy
    import pickle

    api = read_api(specs / "petstore-3.0.yaml").api  # shared (cached) objects inside must survive both
    assert pickle.loads(pickle.dumps(api)) == api
    assert copy.deepcopy(api) == api
