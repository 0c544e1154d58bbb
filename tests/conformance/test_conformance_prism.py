"""Prism's copy of a pack's document (tools/conformance_prism.py): routable, and still as strict."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import PRISM, load_tool, need

conformance = load_tool("conformance")
prism_copy = load_tool("conformance_prism")
RecordingProxy = load_tool("conformance_proxy").RecordingProxy

OK = {"200": {"description": "ok", "content": {"application/json": {"example": {"ok": True}}}}}


def _op(verb: str, **more: Any) -> dict[str, Any]:
    return {"operationId": verb, "responses": OK, "x-packc-binding": {"verb": verb, "args": {}}, **more}


def _target(name: str) -> dict[str, Any]:
    return {
        "name": "X-Amz-Target",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "enum": [name]},
    }


TAG_KEYS = {
    "name": "tagKeys",
    "in": "query",
    "required": True,
    "schema": {"type": "array", "items": {"type": "string"}},
}
ARN = [{"name": "arn", "in": "path", "required": True, "schema": {"type": "string"}}]
FORM = {
    "application/x-www-form-urlencoded": {
        "schema": {
            "type": "object",
            "required": ["topic"],
            "properties": {
                "topic": {"type": "array", "items": {"type": "string"}},
                "data": {"type": "string"},
            },
        }
    }
}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "shared URLs", "version": "1"},
    "paths": {
        "/#X-Amz-Target=Svc.Create": {"post": _op("svc.create", parameters=[_target("Svc.Create")])},
        "/#X-Amz-Target=Svc.Delete": {"post": _op("svc.delete", parameters=[_target("Svc.Delete")])},
        "/tags/{arn}": {"parameters": ARN, "get": _op("tags.list")},
        "/tags/{arn}#tagKeys": {"parameters": ARN, "delete": _op("tags.remove", parameters=[TAG_KEYS])},
        "/rest?method=photos.get": {"get": _op("photos.get")},
        "/rest?method=photos.find": {"get": _op("photos.find")},
        "/form": {"post": _op("form.post", requestBody={"required": True, "content": FORM})},
    },
}


def test_routes_give_each_shared_url_its_own_group_and_keep_operations() -> None:
    original = copy.deepcopy(DOCUMENT)
    routed, prefixes = prism_copy.routes(DOCUMENT)
    assert original == DOCUMENT  # the pack's document is not touched
    assert prefixes == {
        "svc.create": "/packc-route-0",
        "svc.delete": "/packc-route-1",
        "tags.list": "/packc-route-0",
        "tags.remove": "/packc-route-0",
        "photos.get": "/packc-route-0",
        "photos.find": "/packc-route-1",
        "form.post": "/packc-route-0",
    }
    paths = routed["paths"]
    assert sorted(paths) == [
        "/packc-route-0/",
        "/packc-route-0/form",
        "/packc-route-0/rest",
        "/packc-route-0/tags/{arn}",
        "/packc-route-1/",
        "/packc-route-1/rest",
    ]
    for key, item in DOCUMENT["paths"].items():  # every operation object is kept as it was
        for method, op in item.items():
            if method != "parameters":
                verb = op["x-packc-binding"]["verb"]
                path = prism_copy.split_key(key)[0]
                assert paths[prefixes[verb] + path][method] == op
    tags = paths["/packc-route-0/tags/{arn}"]
    assert set(tags) == {"parameters", "get", "delete"} and tags["parameters"] == ARN
    method = paths["/packc-route-1/rest"]["parameters"][0]
    assert method["name"] == "method" and method["in"] == "query" and method["required"] is True
    assert method["schema"] == {"type": "string", "enum": ["photos.find"]}


def test_path_items_with_different_shared_fields_are_not_merged() -> None:
    document = {
        "paths": {
            "/a": {"parameters": [{"name": "x", "in": "query", "schema": {}}], "get": _op("a.get")},
            "/a#other": {"post": _op("a.post")},
        }
    }
    _routed, prefixes = prism_copy.routes(document)
    assert prefixes == {"a.get": "/packc-route-0", "a.post": "/packc-route-1"}


def test_documents_without_shared_urls_are_left_alone() -> None:
    plain = {"paths": {"/form": DOCUMENT["paths"]["/form"], "/b": {"get": _op("b.get")}}}
    assert prism_copy.routes(plain) is None
    assert prism_copy.explicit_encodings({"paths": {"/b": {"get": _op("b.get")}}}) is None
    document, prefixes = prism_copy.prism_document({"paths": {"/b": {"get": _op("b.get")}}})
    assert document is None and prefixes == {}


def test_form_arrays_get_openapis_default_encoding_written_out() -> None:
    encoded, written = prism_copy.explicit_encodings(DOCUMENT)
    assert written == 1
    media = encoded["paths"]["/form"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
    assert media["encoding"] == {"topic": {"style": "form", "explode": True}}
    assert "encoding" not in FORM["application/x-www-form-urlencoded"]  # a copy
    given = copy.deepcopy(DOCUMENT)
    given["paths"]["/form"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"][
        "encoding"
    ] = {"topic": {"style": "spaceDelimited", "explode": False}}
    assert prism_copy.explicit_encodings(given) is None  # what the document says stays


@pytest.fixture(scope="module")
def prism_on_shared_urls(tmp_path_factory: pytest.TempPathFactory) -> Any:
    need(PRISM, "npm install --prefix .conformance @stoplight/prism-cli")
    folder: Path = tmp_path_factory.mktemp("prism-routes")
    document, prefixes = prism_copy.prism_document(DOCUMENT)
    assert document is not None
    path = folder / "prism.json"
    path.write_text(json.dumps(document), "utf-8")
    proc, port, error = conformance.start_prism(PRISM, path, folder / "prism.log")
    try:
        assert not error, error
        proxy = RecordingProxy(f"http://127.0.0.1:{port}").start()
        yield proxy, prefixes
        proxy.stop()
    finally:
        conformance.stop(proc)


def _send(proxy: Any, prefix: str, method: str, target: str, **kwargs: Any) -> Any:
    proxy.prefix = prefix
    mark = proxy.mark()
    with httpx.Client(base_url=proxy.url, timeout=10) as client:
        client.request(method, target, **kwargs)
    (exchange,) = proxy.since(mark)
    return exchange


def test_prism_routes_the_copy_and_still_checks_what_told_operations_apart(prism_on_shared_urls: Any) -> None:
    proxy, prefixes = prism_on_shared_urls
    create, delete = prefixes["svc.create"], prefixes["svc.delete"]
    good = _send(proxy, create, "POST", "/", headers={"X-Amz-Target": "Svc.Create"})
    assert good.violations == [] and good.problem == "" and good.target == "/"  # recorded as sent
    assert _send(proxy, delete, "POST", "/", headers={"X-Amz-Target": "Svc.Delete"}).violations == []
    wrong = _send(proxy, delete, "POST", "/", headers={"X-Amz-Target": "Svc.Create"})
    assert wrong.violations and "x-amz-target" in json.dumps(wrong.violations).lower()
    assert _send(proxy, prefixes["photos.find"], "GET", "/rest?method=photos.find").violations == []
    bad_method = _send(proxy, prefixes["photos.find"], "GET", "/rest?method=photos.get")
    assert bad_method.violations and "method" in json.dumps(bad_method.violations)
    assert _send(proxy, prefixes["photos.find"], "GET", "/rest").violations  # the key's pair is required
    assert _send(proxy, prefixes["tags.remove"], "DELETE", "/tags/a1?tagKeys=k").violations == []
    assert _send(proxy, prefixes["tags.remove"], "DELETE", "/tags/a1").violations  # tagKeys still required
    assert _send(proxy, prefixes["svc.create"], "GET", "/nowhere").problem == "NO_PATH_MATCHED_ERROR"


def test_prism_reads_one_item_form_arrays_in_the_copy(prism_on_shared_urls: Any) -> None:
    proxy, prefixes = prism_on_shared_urls
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert (
        _send(proxy, prefixes["form.post"], "POST", "/form", content=b"topic=a", headers=form).violations
        == []
    )
    assert (
        _send(
            proxy, prefixes["form.post"], "POST", "/form", content=b"topic=a&topic=b", headers=form
        ).violations
        == []
    )
    missing = _send(proxy, prefixes["form.post"], "POST", "/form", content=b"data=x", headers=form)
    assert missing.violations and "topic" in json.dumps(missing.violations)
