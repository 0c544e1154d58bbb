"""The conformance harness's own parts: example args, the sample picker, the recording proxy over Prism."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import yaml

from .conftest import PRISM, ROOT, load_tool, need

conformance = load_tool("conformance")
conformance_args = load_tool("conformance_args")
conformance_sample = load_tool("conformance_sample")
RecordingProxy = load_tool("conformance_proxy").RecordingProxy

SCHEMAS: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "minLength": 3},
    {"type": "string", "format": "date-time"},
    {"type": "string", "format": "uuid"},
    {"type": "string", "enum": ["b", "a"]},
    {"type": "integer", "minimum": 5},
    {"type": "integer", "exclusiveMinimum": 0},
    {"type": "number"},
    {"type": "boolean"},
    {"type": ["null", "integer"]},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1},
    {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer", "minimum": 1}}},
    {"oneOf": [{"type": "integer"}]},
    {"const": 7},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_synthesized_values_satisfy_their_schema(schema: dict[str, Any]) -> None:
    jsonschema.validate(conformance_args.synthesize(schema), schema)


def test_example_args_prefer_examples_and_fill_only_required_gaps() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pet_id": {"type": "integer", "examples": [42, 7]},
            "name": {"type": "string"},
            "note": {"type": "string"},
        },
        "required": ["pet_id", "name"],
    }
    args, synthesized = conformance_args.example_args(schema)
    assert args == {"pet_id": 42, "name": "x"}
    assert synthesized == ["name"]
    assert conformance_args.example_args(None) == ({}, [])


def test_file_arguments_get_the_upload_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "body": {"type": "string", "format": "binary", "examples": ["not a path"]},
            "legacy": {"type": "object", "format": "file", "examples": [{}]},
            "parts": {"type": "array", "items": {"type": "string", "contentMediaType": "image/png"}},
            "note": {"type": "string", "examples": ["hi"]},
        },
    }
    args, _ = conformance_args.example_args(schema, "/tmp/up.bin")
    assert args == {"body": "/tmp/up.bin", "legacy": "/tmp/up.bin", "parts": ["/tmp/up.bin"], "note": "hi"}
    # In a JSON body, format: binary is just a string: the examples stay.
    args, _ = conformance_args.example_args(schema, None)
    assert args == {"body": "not a path", "legacy": {}, "note": "hi"}


def test_rejections_name_the_compile_warnings_about_their_operation(tmp_path: Path) -> None:
    ok = {"200": {"description": "ok"}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/#X-Amz-Target=Svc.A": {"post": {"responses": ok}},
            "/#X-Amz-Target=Svc.B": {"post": {"responses": ok}},
            "/plain": {"get": {"responses": ok}},
        },
    }
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(document), "utf-8")
    findings = conformance.document_findings(source)
    assert findings == {"POST /#X-Amz-Target=Svc.A": ["C150"], "POST /#X-Amz-Target=Svc.B": ["C150"]}
    cut = {"paths": {"/#X-Amz-Target=Svc.A": {"post": {"x-packc-binding": {"verb": "svc.a", "args": {}}}}}}
    assert conformance.bindings(cut) == {
        "svc.a": ("POST /#X-Amz-Target=Svc.A", {"verb": "svc.a", "args": {}})
    }
    verb = {
        "pack": "p",
        "verb": "svc.a",
        "outcome": "rejected",
        "reason": "validation",
        "detail": "d",
        "exchanges": [],
        "flagged": ["C150"],
        "synthesized": [],
    }
    text = load_tool("conformance_report").findings([{"doc": "doc.json", "compiled": "ok", "verbs": [verb]}])
    assert "of which the compiler warned that the document cannot be met as written: 1 (C150 1)" in text
    assert "svc.a (compile warned: C150)" in text


def _judged(status: int, headers: dict[str, str], body: Any) -> Any:
    record = load_tool("conformance_proxy").Exchange("GET", "/a", [], "", "")
    load_tool("conformance_proxy")._judge(record, httpx.Response(status, headers=headers, json=body))
    return record


def test_the_total_counts_compiled_documents_also_for_one_document() -> None:
    # `--only DOC` printed "TOTAL (1 documents, True compiled)": a Counter keeps the first bool as is.
    doc = {
        "doc": "doc.json",
        "compiled": "ok",
        "packsRun": 1,
        "packs": 1,
        "seconds": 3.0,
        "verbs": [{"outcome": "ok"}],
    }
    assert "TOTAL (1 documents, 1 compiled)" in load_tool("conformance_report").table([doc])
    assert "TOTAL (2 documents, 1 compiled)" in load_tool("conformance_report").table(
        [doc, {**doc, "compiled": "refused", "verbs": []}]
    )


def test_judge_tells_request_errors_from_answer_errors() -> None:
    problem = {"content-type": "application/problem+json"}
    both = _judged(
        500,
        problem,
        {
            "type": "https://stoplight.io/prism/errors#VIOLATIONS",
            "validation": [
                {"location": ["request", "query", "n"], "severity": "Error", "message": "must be integer"},
                {"location": ["response", "body", "id"], "severity": "Error", "message": "must be string"},
                {"location": ["response", "body"], "severity": "Warning", "message": "ignored"},
            ],
        },
    )
    assert both.problem == "VIOLATIONS" and both.response_violations == 1
    assert [v["location"] for v in both.violations] == [["request", "query", "n"]]
    made_up = _judged(
        422,
        problem,
        {
            "type": "x#UNPROCESSABLE_ENTITY",
            "validation": [{"location": ["body", "name"], "severity": "Error", "message": "required"}],
        },
    )
    assert made_up.violations[0]["location"] == ["request", "body", "name"]
    header = _judged(
        400,
        {
            "sl-violations": json.dumps(
                [{"location": ["request", "header"], "severity": "Error", "message": "x"}]
            )
        },
        {"code": "bad"},
    )
    assert header.problem == "" and len(header.violations) == 1
    folded = [{"location": ["response", "body", "x"], "severity": "Error", "message": "must be byte"}]
    too_many = _judged(
        500,
        {
            "sl-violations": json.dumps(
                [
                    {
                        "location": ["request"],
                        "severity": "Error",
                        "message": "Too many violations! " + json.dumps(folded),
                    }
                ]
            )
        },
        {},
    )
    assert too_many.violations == [] and too_many.response_violations == 1
    cut_short = _judged(
        500,
        {
            "sl-violations": json.dumps(
                [
                    {
                        "location": ["request"],
                        "severity": "Error",
                        "message": 'Too many violations! [{"location":["response","bo',
                    }
                ]
            )
        },
        {},
    )
    assert cut_short.violations == [] and cut_short.response_violations == 1
    clean = _judged(200, {}, {"id": 1})
    assert clean.violations == [] and clean.problem == "" and clean.response_violations == 0
    no_writer = _judged(
        500, problem, {"type": "x#UNKNOWN", "title": "Cannot find serializer for application/x.v"}
    )
    assert no_writer.problem == "NO_SERIALIZER" and no_writer.problem in conformance.ANSWER_PROBLEMS
    assert _judged(500, problem, {"type": "x#UNKNOWN", "title": "something else"}).problem == "UNKNOWN"


def test_relative_token_urls_are_answered_by_the_proxy_and_do_not_count_as_the_call() -> None:
    document = {
        "components": {
            "securitySchemes": {
                "relative": {
                    "type": "oauth2",
                    "flows": {"clientCredentials": {"tokenUrl": "oauth2/token", "scopes": {}}},
                },
                "absolute": {
                    "type": "oauth2",
                    "flows": {"clientCredentials": {"tokenUrl": "https://a.example/t"}},
                },
                "code": {"type": "oauth2", "flows": {"authorizationCode": {"tokenUrl": "/code/token"}}},
            }
        }
    }
    assert conformance.token_paths(document) == {"/oauth2/token"}
    proxy = RecordingProxy(
        "http://127.0.0.1:9"
    ).start()  # nothing listens upstream: only the stand-in answers
    try:
        proxy.token_paths = {"/oauth2/token"}
        with httpx.Client(base_url=proxy.url, timeout=10) as client:
            token = client.post("/oauth2/token", content=b"grant_type=client_credentials")
        assert token.status_code == 200 and token.json()["access_token"]
        (exchange,) = proxy.since(0)
        assert exchange.stand_in == "oauth2 token" and exchange.violations == []
    finally:
        proxy.stop()
    stdout = json.dumps({"ok": False, "error": {"code": "unauthorized", "message": "no"}})
    result = conformance.VerbResult("p", "v", "not_called", exchanges=[exchange])
    conformance.classify(result, subprocess.CompletedProcess([], 0, stdout, ""), False)
    assert result.outcome == "not_called" and result.reason == "unauthorized"  # the API call never happened


def _write(corpus: Path, rel: str, document: dict[str, Any]) -> None:
    path = corpus / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def _doc(
    version: str,
    ops: int,
    *,
    origin: str = "openapi",
    scheme: dict[str, Any] | None = None,
    media: str | None = None,
) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for i in range(ops):
        op: dict[str, Any] = {"responses": {"200": {"description": "ok"}}}
        if media:
            op["requestBody"] = {"content": {media: {"schema": {"type": "object"}}}}
        paths[f"/r{i}"] = {"post": op}
    document: dict[str, Any] = {
        "openapi": version,
        "info": {"title": "t", "version": "1", "x-origin": [{"format": origin, "version": "2.0"}]},
        "paths": paths,
    }
    if scheme:
        document["components"] = {"securitySchemes": {"s": scheme}}
    return document


def test_sample_picker_is_deterministic_and_meets_quotas(tmp_path: Path) -> None:
    corpus = tmp_path / "api"
    for i in range(150):
        _write(corpus, f"plain{i}.json", _doc("3.0.0", 3))
    for i in range(30):
        _write(corpus, f"v31/{i}.json", _doc("3.1.0", 2))
        _write(corpus, f"swagger/{i}.json", _doc("3.0.0", 4, origin="swagger"))
    _write(corpus, "cookie.json", _doc("3.0.0", 1, scheme={"type": "apiKey", "in": "cookie", "name": "c"}))
    _write(corpus, "form.json", _doc("3.0.0", 1, media="application/x-www-form-urlencoded"))
    _write(corpus, "huge.json", _doc("3.0.0", conformance_sample.MAX_OPERATIONS + 1))
    _write(corpus, "broken.json", {"openapi": "3.0.0"})  # no operations
    (corpus / "not-json.json").write_text("{", encoding="utf-8")

    picked = conformance_sample.pick(list(conformance_sample.scan(corpus)))
    again = conformance_sample.pick(list(conformance_sample.scan(corpus)))
    assert picked == again
    paths = [d.path for _, d in picked]
    assert len(paths) == len(set(paths))
    assert "cookie.json" in paths and "form.json" in paths
    assert "huge.json" not in paths and "broken.json" not in paths and "not-json.json" not in paths
    # 120 of 214 usable documents; the quotas lift 3.1 and Swagger 2.0 above their share by chance.
    assert len(paths) == 120
    assert sum(1 for _, d in picked if d.version == "3.1") >= 15
    assert sum(1 for _, d in picked if d.origin == "swagger:2.0") >= 25

    sample = tmp_path / "sample.txt"
    sample.write_text(conformance_sample.render(picked), encoding="utf-8")
    assert conformance_sample.read_sample(sample) == paths


def test_the_committed_sample_is_big_enough_and_well_formed() -> None:
    entries = conformance_sample.read_sample()
    assert len(entries) >= 100
    assert len(entries) == len(set(entries))
    text = conformance_sample.SAMPLE_FILE.read_text(encoding="utf-8")
    for feature in (
        "| 3.1 |",
        "swagger:2.0",
        "multipart/form-data",
        "application/x-www-form-urlencoded",
        "apiKey:header",
        "apiKey:query",
        "apiKey:cookie",
        "http:basic",
        "http:bearer",
        "oauth2",
        "openIdConnect",
    ):
        assert feature in text, feature


@pytest.fixture(scope="module")
def prism_on_petstore(tmp_path_factory: pytest.TempPathFactory) -> Any:
    need(PRISM, "npm install --prefix .conformance @stoplight/prism-cli")
    folder = tmp_path_factory.mktemp("prism")
    document = folder / "petstore.json"
    document.write_text(json.dumps(yaml.safe_load((ROOT / "specs/demo/petstore.yaml").read_text())), "utf-8")
    proc, port, error = conformance.start_prism(PRISM, document, folder / "prism.log")
    try:
        assert not error, error
        proxy = RecordingProxy(f"http://127.0.0.1:{port}").start()
        yield proxy
        proxy.stop()
    finally:
        conformance.stop(proc)


def test_proxy_keeps_prisms_verdict(prism_on_petstore: Any) -> None:
    proxy = prism_on_petstore
    key = {"X-API-Key": "k"}
    mark = proxy.mark()
    with httpx.Client(base_url=proxy.url, timeout=10) as client:
        good = client.get("/pets", params={"limit": 5}, headers=key)
        client.get("/pets", params={"limit": 1000}, headers=key)
        client.get("/pets/1")
        client.post("/pets", json={"name": "Biscuit"}, headers=key)
        client.get("/cats", headers=key)
        client.get("/pets/abc", headers=key)  # getPet defines no 400: Prism makes up a 422
    assert good.status_code == 200 and isinstance(good.json(), list)
    ok, limit, no_key, no_species, no_route, made_up = proxy.since(mark)
    assert ok.violations == [] and ok.problem == "" and ok.target == "/pets?limit=5"
    assert "x-api-key" in ok.headers
    assert limit.status == 400 and limit.violations[0]["location"] == ["request", "query", "limit"]
    assert no_key.status == 401 and no_key.violations[0]["code"] == 401
    assert no_species.violations and "species" in json.dumps(no_species.violations)
    assert no_route.status == 404 and no_route.problem == "NO_PATH_MATCHED_ERROR"
    assert made_up.status == 422 and made_up.problem == "UNPROCESSABLE_ENTITY"
    assert made_up.violations and made_up.violations[0]["location"][:2] == ["request", "path"]
    assert ok.response_violations == 0
