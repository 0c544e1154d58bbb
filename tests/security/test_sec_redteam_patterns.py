"""Red-team regressions: two ways jsonschema ran a document's regexes outside the guard of ``patterns.py``.

1. ``unevaluatedProperties`` matches every ``patternProperties`` key with a plain ``re.search``: a
   3.1 document whose args schema holds ``patternProperties: {"^(a|a)*$": ...}`` beside
   ``unevaluatedProperties: false`` held ``Pack.call`` for 12 s on a 27-character key (doubling
   with each character, before the deadline starts). The key is always the agent's to choose.
2. A subschema naming its own ``$schema`` is validated with that dialect's stock class: ``pattern``
   and ``patternProperties`` there ran unguarded (a hand-written or shared pack; lint too).
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from packc import compile as packc_compile
from packc_runtime import load_pack
from packc_runtime.calling.args import validate_args
from packc_runtime.errors import InvalidArgument

EVIL = r"^(a|a)*$"
KEY = "a" * 25 + "!"  # about 3 s of backtracking per search before; doubles per "a"
SHAPES: list[dict[str, Any]] = [
    {"type": "object", "patternProperties": {EVIL: {"type": "string"}}, "unevaluatedProperties": False},
    {
        "type": "object",
        "allOf": [{"$ref": "#/$defs/evil"}],
        "unevaluatedProperties": False,
        "$defs": {"evil": {"patternProperties": {EVIL: {}}}},
    },
    {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "type": "object",
        "anyOf": [{"patternProperties": {EVIL: {}}}],
        "unevaluatedProperties": False,
    },
]


def _validate(schema: dict[str, Any], value: dict[str, Any]) -> float:
    args = {"type": "object", "properties": {"meta": schema}}
    started = time.monotonic()
    with contextlib.suppress(InvalidArgument):
        validate_args("things.create", args, {"meta": value}, simple=False)
    return time.monotonic() - started


@pytest.mark.parametrize("schema", SHAPES)
def test_unevaluated_properties_never_runs_a_risky_pattern_key(schema: dict[str, Any]) -> None:
    assert _validate(schema, {KEY: "x"}) < 0.5


def test_unevaluated_properties_still_checks_safe_schemas() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x-[a-z]+$": {"type": "string"}},
        "unevaluatedProperties": False,
    }
    args = {"type": "object", "properties": {"meta": schema}}
    validate_args("v.x", args, {"meta": {"x-ok": "1"}}, simple=False)
    with pytest.raises(InvalidArgument, match="unknown field"):
        validate_args("v.x", args, {"meta": {"nope": "1"}}, simple=False)
    assert jsonschema.Draft202012Validator(schema).is_valid({"x-ok": "1"})  # the same answer as jsonschema's


def test_a_hostile_31_document_does_not_hold_a_call(tmp_path: Path) -> None:
    ok = {"200": {"description": "ok"}}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "Uneval", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": {
            "/things": {
                "post": {
                    "operationId": "createThing",
                    "summary": "Create a thing",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {"type": "object", "properties": {"meta": SHAPES[0]}}
                            }
                        },
                    },
                    "responses": {"201": {"description": "made"}},
                }
            },
            **{f"/x{i}": {"get": {"operationId": f"x{i}", "responses": ok}} for i in range(4)},
        },
    }
    source = tmp_path / "d.json"
    source.write_text(json.dumps(document), "utf-8")
    directory = packc_compile(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    with load_pack(directory, environ={}) as pack:
        started = time.monotonic()
        envelope = pack.call("things.create", {"meta": {KEY: "x"}})
        assert time.monotonic() - started < 0.5
    assert envelope["error"]["code"] == "not_confirmed"  # validation skipped that check; nothing was sent


NESTED_DIALECT: list[dict[str, Any]] = [
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "pattern": EVIL},
    {"$schema": "https://json-schema.org/draft/2019-09/schema", "pattern": EVIL},
    {"$ref": "#/$defs/hide/const"},  # a schema hidden in a const value, used through $ref
]
HIDDEN = {"hide": {"const": {"$schema": "http://json-schema.org/draft-04/schema#", "pattern": EVIL}}}


@pytest.mark.parametrize("schema", NESTED_DIALECT)
def test_a_nested_schema_dialect_does_not_escape_the_guard(schema: dict[str, Any]) -> None:
    args = {"type": "object", "properties": {"name": schema}, "$defs": HIDDEN}
    started = time.monotonic()
    validate_args("v.x", args, {"name": KEY}, simple=False)  # the risky pattern is skipped, not run
    assert time.monotonic() - started < 0.5


def test_lint_checks_examples_without_running_a_nested_dialects_pattern() -> None:
    from packc_runtime.text.patterns import validator

    schema = {"type": "object", "properties": {"name": NESTED_DIALECT[0]}}
    started = time.monotonic()
    errors = list(validator(jsonschema.Draft202012Validator, schema).iter_errors({"name": KEY}))
    assert errors == [] and time.monotonic() - started < 0.5
    safe = {
        "type": "object",
        "properties": {"name": {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "^[a-z]+$"}},
    }
    assert list(validator(jsonschema.Draft202012Validator, safe).iter_errors({"name": "A!"}))  # still checked
