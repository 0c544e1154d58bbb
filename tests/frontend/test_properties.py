"""Invariants of the front end on arbitrary input: it never raises anything but PackcError."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packc.errors import PackcError
from packc.read.frontend import read_api

_KEYS = st.sampled_from(
    [
        "openapi",
        "swagger",
        "info",
        "paths",
        "components",
        "servers",
        "security",
        "parameters",
        "schema",
        "$ref",
        "in",
        "name",
        "get",
        "post",
        "responses",
        "requestBody",
        "content",
        "application/json",
        "schemas",
        "definitions",
        "url",
        "variables",
        "default",
        "/a/{id}",
        "/b",
        "x-y",
        "required",
        "type",
        "securitySchemes",
        "securityDefinitions",
        "host",
        "basePath",
        "consumes",
        "produces",
        "examples",
    ]
) | st.text(max_size=8)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        [
            "3.0.3",
            "3.1.0",
            "2.0",
            "#/components/schemas/A",
            "#/definitions/A",
            "other.yaml",
            "query",
            "path",
            "header",
            "https://x.example.com/{v}",
            "/",
            "#",
            "http://[::1",
            "a\x00b.yaml",
            "../up.yaml",
            "https://:99999/x",
            "file:///etc/passwd",
            "other.yaml#/components/schemas/A",
            "#/paths/~1b",
            "mailto:x",
        ]
    )
    | st.text(max_size=12)
)
_JSON: st.SearchStrategy[Any] = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=6),
    max_leaves=40,
)
_DOCS = (
    st.fixed_dictionaries(
        {"openapi": st.sampled_from(["3.0.3", "3.1.0"])},
        optional={
            "info": _JSON,
            "paths": st.dictionaries(_KEYS, _JSON, max_size=4),
            "components": _JSON,
            "servers": _JSON,
            "security": _JSON,
        },
    )
    | st.fixed_dictionaries(
        {"swagger": st.just("2.0")},
        optional={
            "paths": st.dictionaries(_KEYS, _JSON, max_size=4),
            "definitions": _JSON,
            "parameters": _JSON,
            "securityDefinitions": _JSON,
            "host": _JSON,
            "basePath": _JSON,
        },
    )
    | _JSON
)

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _read(text: str | bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"spec{suffix}"
        if isinstance(text, str):
            path.write_text(text, encoding="utf-8")
        else:
            path.write_bytes(text)
        with contextlib.suppress(PackcError):
            # Operations' parameters, bodies and responses are read on first use: read them all.
            read_api(path).api.materialize()


@_SETTINGS
@given(_DOCS)
def test_arbitrary_json_never_crashes(doc: Any) -> None:
    _read(json.dumps(doc), ".json")


@_SETTINGS
@given(_DOCS)
def test_arbitrary_yaml_never_crashes(doc: Any) -> None:
    _read(yaml.safe_dump(doc, allow_unicode=True), ".yaml")


@_SETTINGS
@given(st.text(alphabet=st.sampled_from(list("{}[]:,-&*!|>'\"#\n abc01<?%@`")), max_size=60))
def test_arbitrary_yaml_text_never_crashes(text: str) -> None:
    _read(text, ".yaml")


@_SETTINGS
@given(st.binary(max_size=40))
def test_arbitrary_bytes_never_crash(raw: bytes) -> None:
    _read(raw, ".json")
