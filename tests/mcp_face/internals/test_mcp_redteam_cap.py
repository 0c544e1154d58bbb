"""Red-team regression (issue 23): the result cap holds for every result, not only a success's body.

A server answering an error with a 3 MB JSON body had it placed in ``structuredContent`` whole
although the server ran with ``--max-result-bytes 100000``; the host (and its model's context) took
all of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import packc
from mcp_face.conftest import SPEC
from packc_runtime.faces.mcp._tools import fit_and_render
from servers.runner import serve

from .helpers import MODES, make_server, run

LIMIT = 100_000
HUGE = {"code": "boom", "detail": "x" * 1_700_000, "trace": [{"frame": "y" * 100} for _ in range(12_000)]}


async def _huge_error(scope: dict[str, Any], receive: Any, send: Any) -> None:
    body = json.dumps(HUGE).encode()
    await send(
        {"type": "http.response.start", "status": 500, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": body})


@pytest.fixture()
def huge_error_server() -> Iterator[str]:
    with serve(_huge_error) as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
def test_a_huge_error_body_is_cut_to_the_result_cap(
    huge_error_server: str, tmp_path: Path, mode: str
) -> None:
    assert len(json.dumps(HUGE)) > 3_000_000
    result = packc.compile(SPEC, out_dir=tmp_path / "packs", server=huge_error_server + "/v1")
    env = {"PETSTORE_API_KEY": "k" * 20, "PACKC_TRUSTED_ORIGINS": huge_error_server}
    server = make_server(Path(result.packs[0].directory), env, max_result_bytes=LIMIT)
    answer = run(server, mode, lambda c: c.call_tool("pets.get", {"pet_id": 1}))
    assert answer.is_error
    envelope = answer.structured_content
    assert envelope is not None and len(json.dumps(envelope, ensure_ascii=False).encode()) <= LIMIT
    error = envelope["error"]
    assert error["code"] == "upstream_error" and envelope["status"] == 500
    assert isinstance(error["body"], dict) and error["body"]["code"] == "boom"  # cut, not replaced
    cut = envelope["truncated"]
    assert cut["limit"] == LIMIT and cut["bodyBytes"] > 3_000_000 and cut["keptBytes"] <= LIMIT
    assert any(note.startswith("error.body.") for note in cut["cut"])
    assert len(answer.content[0].text.encode()) <= LIMIT + 100  # type: ignore[union-attr]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3000),
    lambda inner: st.lists(inner, max_size=30) | st.dictionaries(st.text(max_size=300), inner, max_size=30),
    max_leaves=60,
)


@settings(max_examples=60, deadline=None)
@given(_JSON, _JSON, st.booleans(), st.integers(min_value=4096, max_value=20_000))
def test_every_result_fits_the_cap(body: Any, extra: Any, ok: bool, limit: int) -> None:
    """Success or error, whatever the body, the error object, the title and other members hold."""
    if ok:
        envelope = {"ok": True, "status": 200, "verb": "v", "title": json.dumps(extra), "body": body}
    else:
        error = {"code": "upstream_error", "message": "m", "body": body, "extra": extra}
        envelope = {"ok": False, "status": 500, "verb": "v", "error": error}
    fitted, _text = fit_and_render(envelope, limit, how="call again with narrower arguments")
    assert len(json.dumps(fitted, ensure_ascii=False).encode()) <= limit
    if not ok:
        assert isinstance(fitted["error"], dict) and fitted["error"]["code"] == "upstream_error"


def _nested(depth: int) -> dict[str, Any]:
    """A hostile review's error body: `depth` levels of 40-character keys over a large leaf."""
    node: Any = {"leaf": "z" * 200_000}
    for i in range(depth):
        node = {f"k{i:02d}" + "q" * 37: node}
    return {"code": "deep", "nest": node}


async def _deep_error(scope: dict[str, Any], receive: Any, send: Any) -> None:
    depth = int(scope["path"].rsplit("/", 1)[-1])
    body = json.dumps(_nested(depth)).encode()
    await send(
        {"type": "http.response.start", "status": 500, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": body})


@pytest.mark.parametrize("depth", [100, 450])
@pytest.mark.parametrize("mode", MODES)
def test_a_deeply_nested_error_body_is_cut_to_the_cap_and_stays_readable(
    tmp_path: Path, mode: str, depth: int
) -> None:
    """A hostile review: a 100-level error body grew the cut notes past the cap (103,226 bytes under
    100,000), a 450-level one broke the SDK's serialization, and the call failed instead of being cut."""
    with serve(_deep_error) as url:
        result = packc.compile(SPEC, out_dir=tmp_path / "packs", server=f"{url}/v1/{depth}")
        env = {"PETSTORE_API_KEY": "k" * 20, "PACKC_TRUSTED_ORIGINS": url}
        server = make_server(Path(result.packs[0].directory), env, max_result_bytes=LIMIT)
        answer = run(server, mode, lambda c: c.call_tool("pets.get", {"pet_id": 1}))
    assert answer.is_error
    envelope = answer.structured_content
    assert envelope is not None and len(json.dumps(envelope, ensure_ascii=False).encode()) <= LIMIT
    assert envelope["error"]["code"] == "upstream_error"


def test_the_how_line_cannot_outgrow_the_cap() -> None:
    """The line saying how to get the rest repeated the arguments whole: a 500 kB argument gave a
    500 kB result under a 100,000-byte cap."""
    envelope: Any = {"ok": True, "status": 200, "verb": "pets.get", "body": {"x": "y" * 300_000}}
    fitted, _ = fit_and_render(envelope, LIMIT, how="pets get --q " + "a" * 500_000)
    assert len(json.dumps(fitted, ensure_ascii=False).encode()) <= LIMIT
