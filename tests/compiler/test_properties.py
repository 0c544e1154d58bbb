"""Hypothesis: random small OpenAPI 3.0 documents compile without crashing, into lint-clean packs."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packc import PackcError, compile
from packc.lint import lint_pack

SEGMENTS = [
    "pets",
    "owners",
    "v1",
    "api",
    "search",
    "login",
    "items",
    "status",
    "{id}",
    "{petId}",
    "{x-y}",
    "a.b",
    "über",
    "Photos",
    "_x",
    "2fa",
    "adopt",
]
NAMES = [
    "id",
    "petId",
    "limit",
    "json",
    "confirm",
    "X-Trace",
    "Authorization",
    "Accept",
    "q",
    "sort",
    "body",
    "name",
    "amount",
    "currency",
    "to",
    "text",
    "start",
    "end",
    "x",
]
FORMATS = ["date", "date-time", "email", "uuid", "uri", "int32", "binary", "weird"]
PATTERNS = ["^[a-z]+$", "^[0-9]{3}-[A-Z]{2}$", "^\\p{L}+$", "(", "^(a|b)c?$", "^\\d+(\\.\\d+)?$"]


def _scalar() -> st.SearchStrategy[dict[str, Any]]:
    string = st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "format": st.sampled_from(FORMATS),
            "pattern": st.sampled_from(PATTERNS),
            "minLength": st.integers(0, 5),
            "maxLength": st.integers(0, 12),
            "enum": st.lists(st.text(max_size=4), min_size=1, max_size=3),
            "nullable": st.booleans(),
            "example": st.one_of(st.text(max_size=5), st.integers()),
        },
    )
    number = st.fixed_dictionaries(
        {"type": st.sampled_from(["integer", "number"])},
        optional={
            "minimum": st.integers(-5, 5),
            "maximum": st.integers(-5, 50),
            "exclusiveMinimum": st.booleans(),
            "multipleOf": st.sampled_from([1, 2, 0.5, 3]),
            "default": st.integers(-3, 3),
        },
    )
    other = st.sampled_from(
        [
            {"type": "boolean"},
            {},
            {"type": "null"},
            {"$ref": "#/components/schemas/Node"},
            {"$ref": "#/components/schemas/Missing"},
            {"type": "bogus"},
            {"required": True},
        ]
    )
    return st.one_of(string, number, other)


def _schema() -> st.SearchStrategy[Any]:
    return st.recursive(
        _scalar(),
        lambda inner: st.one_of(
            st.fixed_dictionaries(
                {"type": st.just("array"), "items": inner}, optional={"minItems": st.integers(0, 3)}
            ),
            st.fixed_dictionaries(
                {
                    "type": st.just("object"),
                    "properties": st.dictionaries(st.sampled_from(NAMES), inner, max_size=4),
                },
                optional={"required": st.lists(st.sampled_from(NAMES), max_size=3)},
            ),
            st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=2)}),
        ),
        max_leaves=6,
    )


def _parameter() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "name": st.sampled_from(NAMES),
            "in": st.sampled_from(["path", "query", "header", "cookie"]),
            "schema": _schema(),
        },
        optional={"required": st.booleans(), "description": st.text(max_size=30)},
    )


def _operation() -> st.SearchStrategy[dict[str, Any]]:
    body = st.fixed_dictionaries(
        {
            "content": st.dictionaries(
                st.sampled_from(
                    [
                        "application/json",
                        "application/x-www-form-urlencoded",
                        "multipart/form-data",
                        "application/octet-stream",
                        "text/plain; charset=utf-8",
                    ]
                ),
                st.fixed_dictionaries({}, optional={"schema": _schema()}),
                min_size=1,
                max_size=2,
            )
        },
        optional={"required": st.booleans()},
    )
    return st.fixed_dictionaries(
        {"responses": st.just({"200": {"description": "ok"}})},
        optional={
            "operationId": st.text(min_size=1, max_size=12),
            "summary": st.text(max_size=40),
            "deprecated": st.booleans(),
            "tags": st.lists(st.sampled_from(["a", "b", "c", "Ü"]), max_size=2),
            "parameters": st.lists(_parameter(), max_size=4),
            "requestBody": body,
            "security": st.sampled_from([[], [{"key": []}], [{"oauth": ["r"]}]]),
            "x-packc": st.fixed_dictionaries(
                {},
                optional={
                    "verb": st.sampled_from(["a.b", "Bad Name", "pets.list"]),
                    "access": st.sampled_from(["read", "write", "x"]),
                    "exclude": st.booleans(),
                    "preview": st.sampled_from(["payment", "nope"]),
                },
            ),
        },
    )


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 16))):
        path = "/" + "/".join(draw(st.lists(st.sampled_from(SEGMENTS), max_size=4)))
        methods = draw(
            st.lists(
                st.sampled_from(["get", "post", "put", "patch", "delete", "head"]),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        paths[path] = {m: draw(_operation()) for m in methods}
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": draw(st.text(max_size=20)), "version": "1"},
        "paths": paths,
        "components": {
            "schemas": {
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}}
            },
            "securitySchemes": {
                "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
                "oauth": {
                    "type": "oauth2",
                    "flows": {
                        "clientCredentials": {
                            "tokenUrl": "https://auth.example.com/token",
                            "scopes": {"r": "read"},
                        }
                    },
                },
            },
        },
    }
    if draw(st.booleans()):
        doc["servers"] = [{"url": "https://api.example.com/v1"}]
    if draw(st.booleans()):
        doc["security"] = [{"key": []}]
    return doc


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(documents(), st.booleans())
def test_compile_never_crashes_and_every_pack_lints_clean(doc: dict[str, Any], split: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "api.json"
        source.write_text(json.dumps(doc), encoding="utf-8")
        try:
            result = compile(source, Path(tmp) / "out", split=split, lint=False)
        except PackcError:
            return
        for pack in result.packs:
            assert pack.directory is not None
            errors = [str(d) for d in lint_pack(pack.directory) if d.level == "error"]
            assert errors == []
            assert 1 <= len(pack.verbs) <= 12
        again = compile(source, Path(tmp) / "again", split=split, lint=False)
        for a, b in zip(result.packs, again.packs, strict=True):
            assert a.directory is not None and b.directory is not None
            for f in ("surface.json", "policy.json", "openapi.json", "HARNESS.md"):
                assert (a.directory / f).read_bytes() == (b.directory / f).read_bytes()
