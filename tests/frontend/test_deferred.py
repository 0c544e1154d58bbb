"""An operation's parameters, request body and responses are read on first use, warnings kept."""

from __future__ import annotations

import dataclasses
import gc
import json
import pickle
from collections import Counter
from pathlib import Path

import pytest

from packc.model import Operation, Parameter
from packc.read.frontend import read_api

from .conftest import SPECS

_SPEC = """
openapi: 3.0.3
info: {title: Deferred, version: "1"}
servers: [{url: "https://d.example.com"}]
paths:
  /a/{id}:
    parameters:
      - {name: id, in: path, schema: {type: string}}
    get:
      operationId: getA
      responses: {"200": {description: ok}}
    put:
      operationId: putA
      requestBody: {description: nothing}
      responses: {"200": {$ref: "#/components/responses/Missing"}}
  /b:
    get:
      operationId: getB
      parameters: [{in: query}]
      responses: {"204": {description: none}}
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "deferred.yaml"
    path.write_text(_SPEC, encoding="utf-8")
    return path


def test_parts_are_read_on_first_use_and_their_warnings_kept(spec: Path) -> None:
    result = read_api(spec)
    api = result.api
    assert result.diagnostics == ()
    assert api.deferred_diagnostics() == ()
    get_a, put_a, get_b = api.operations
    assert [(p.name, p.required) for p in get_a.parameters] == [("id", True)]
    # The path-level parameter is warned about once, where it is declared.
    assert [(d.code, d.pointer) for d in api.deferred_diagnostics()] == [
        ("D042", "#/paths/~1a~1{id}/parameters/0")
    ]
    assert get_a.parameters is get_a.parameters  # read once, then kept
    assert put_a.request_body is None and put_a.responses == ()
    assert [d.code for d in api.deferred_diagnostics()] == ["D042", "D045", "D020"]
    # materialize reads the rest (get_b) and returns every deferred warning, each once.
    assert [d.code for d in api.materialize()] == ["D042", "D045", "D020", "D041"]
    assert [d.code for d in api.materialize()] == ["D042", "D045", "D020", "D041"]
    assert [r.status for r in get_b.responses] == ["204"]


def test_eager_reads_everything_at_once(spec: Path) -> None:
    eager = read_api(spec, eager=True)
    assert [d.code for d in eager.diagnostics] == ["D042", "D045", "D020", "D041"]
    assert eager.api.deferred_diagnostics() == ()
    assert eager.api.materialize() == ()
    assert eager.api == read_api(spec).api  # the lazily read model is the same


@pytest.mark.parametrize(
    "name",
    [
        "petstore-3.0.yaml",
        "petstore-3.1.json",
        "petstore-2.0.yaml",
        "circular.yaml",
        "aliases.yaml",
        "yaml11.yaml",
        "multi/openapi.yaml",
    ],
)
def test_lazy_then_materialized_equals_eager(name: str) -> None:
    eager = read_api(SPECS / name, eager=True)
    lazy = read_api(SPECS / name)
    late = lazy.api.materialize()
    assert lazy.api == eager.api
    assert Counter(eager.diagnostics) == Counter(lazy.diagnostics + late)


def test_a_deferred_operation_behaves_like_a_plain_frozen_one(spec: Path) -> None:
    api = read_api(spec).api
    op = api.operations[0]
    assert "_read_parts" not in repr(op) and "parameters=(Parameter(name='id'" in repr(op)
    with pytest.raises(dataclasses.FrozenInstanceError):
        op.parameters = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        getattr(op, "no_such_field")  # noqa: B009 - the attribute lookup itself is under test
    other = api.operations[1]
    assert pickle.loads(pickle.dumps(other)) == other  # pickling reads the parts first
    changed = dataclasses.replace(api.operations[2], summary="new")
    assert changed.summary == "new" and changed.parameters == ()
    assert [d.code for d in api.deferred_diagnostics()] == ["D042", "D045", "D020", "D041"]


def test_an_operation_built_directly_has_its_fields() -> None:
    op = Operation(method="get", path="/x", parameters=(Parameter(name="q", location="query"),))
    assert [p.name for p in op.parameters] == ["q"] and op.request_body is None and op.responses == ()
    assert op == Operation(method="get", path="/x", parameters=(Parameter(name="q", location="query"),))


def test_no_reference_cycle_keeps_a_dropped_document_alive(tmp_path: Path) -> None:
    # read_api pauses the cyclic GC because the document and the model hold no cycles; operations
    # waiting to be read must not add one (else every document outlives its Api until a full GC).
    paths = {
        f"/things{i}/{{id}}": {
            "get": {
                "parameters": [{"name": "id", "in": "path", "required": True}],
                "responses": {"200": {"description": "ok"}},
            }
        }
        for i in range(300)
    }
    spec = tmp_path / "many.json"
    spec.write_text(
        json.dumps({"openapi": "3.0.3", "info": {"title": "Many", "version": "1"}, "paths": paths})
    )
    gc.collect()
    gc.disable()
    try:
        result = read_api(spec)
        assert len(result.api.operations) == 300
        del result
        assert gc.collect() < 50  # a cycle would hold thousands: the whole document
    finally:
        gc.enable()
