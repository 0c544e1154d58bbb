"""Red-team regression (issue 23): a response schema's regex never reaches the host unjudged.

A ``pattern`` in a response schema (``^(a|a)*$``) was copied into the tool's ``outputSchema``; the
official SDK client validates every result against it with Python's ``re``, so a 34-character answer
hung the client for over 20 s.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import packc
from packc_runtime.text.patterns import linear, risky
from servers.runner import serve

from .helpers import MODES, make_server, run

EVIL = "^(a|a)*$"
ANSWER = {"code": "a" * 33 + "!", "keyed": {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!": 1}}


def _document(url: str) -> dict[str, Any]:
    body = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": EVIL},
            "keyed": {"type": "object", "patternProperties": {"^(a+)+$": {"type": "integer"}}},
            "safe": {"type": "string", "pattern": "^[a-z]+$"},
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Codes", "version": "1"},
        "servers": [{"url": url}],
        "paths": {
            "/code": {
                "get": {
                    "operationId": "getCode",
                    "summary": "Get the code.",
                    "responses": {
                        "200": {"description": "ok", "content": {"application/json": {"schema": body}}}
                    },
                }
            }
        },
    }


async def _answer(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": json.dumps(ANSWER).encode()})


@pytest.fixture()
def answering() -> Iterator[str]:
    with serve(_answer) as url:
        yield url


def _patterns(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        keyed = node.get("patternProperties")
        found += list(keyed) if isinstance(keyed, dict) else []
        return found + [p for v in node.values() for p in _patterns(v)]
    if isinstance(node, list):
        return [p for v in node for p in _patterns(v)]
    return []


@pytest.mark.parametrize("mode", MODES)
def test_a_response_pattern_that_can_hang_never_reaches_the_output_schema(
    answering: str, tmp_path: Path, mode: str
) -> None:
    source = tmp_path / "codes.json"
    source.write_text(json.dumps(_document(answering)))
    result = packc.compile(source, out_dir=tmp_path / "packs")
    # compile warns at each pattern the host would not get, and only at those (issue 23: "warn at compile time")
    warned = {d.message.split('"')[1] for d in result.diagnostics if d.code == "C162"}
    assert warned == {EVIL, "^(a+)+$"}
    server = make_server(Path(result.packs[0].directory), {})
    tools = run(server, mode, lambda c: c.list_tools()).tools
    [tool] = [t for t in tools if t.name.startswith("code")]
    found = _patterns(tool.output_schema)
    assert EVIL not in found and "^(a+)+$" not in found and "^[a-z]+$" in found
    started = time.monotonic()
    answer = run(make_server(Path(result.packs[0].directory), {}), mode, lambda c: c.call_tool(tool.name, {}))
    assert time.monotonic() - started < 5 and not answer.is_error
    assert answer.structured_content["body"] == ANSWER  # type: ignore[index]


@given(st.text(max_size=30))
def test_only_linear_patterns_are_handed_on(pattern: str) -> None:
    if linear(pattern):
        assert not risky(pattern)
