"""Issue 10 item 7: document regexes never hang compile or argument validation; validation never fetches.

The review's reproductions: ``^(a|a)*$`` and ``^(a|aa)*$`` were judged safe (compile ran past 90 s
on an example, argument validation hung past 30 s before sending); ``patternProperties`` keys ran
unguarded; a remote ``$ref`` in an args schema was fetched during validation.
"""

from __future__ import annotations

import http.server
import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packc import compile as packc_compile
from packc.build._schemas import validates
from packc_runtime.calling.args import validate_args
from packc_runtime.errors import InvalidArgument
from packc_runtime.format.lint import _apply
from packc_runtime.text.patterns import risky, search

HOSTILE = [
    r"^(a|a)*$",
    r"^(a|aa)*$",
    r"^(\w|\d\d)+$",
    r"^(a|ab|b)*c$",
    r"((a|a){10}){10}",
    r"^(a*)*$",
    r"^(x+x+)+y$",
    "^" + "(a|b?)" * 40 + "$",
    "^" + "(a|a)" * 30 + "$",
    r"(?=(a|aa)*$)x",
    r"(a)\1+",
]
ATTACK = "a" * 40 + "!"
SAFE = [
    r"^[a-z0-9]+(-[a-z0-9]+)*$",
    r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
    r"^((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)$",
    r"^(\w|\d)+$",
    r"(ab|a)*c",
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
    r"^([A-Za-z]_?)+$",
]


@pytest.mark.parametrize("pattern", HOSTILE)
def test_overlapping_alternatives_and_multiplied_counts_are_risky(pattern: str) -> None:
    assert risky(pattern)
    assert search(pattern, ATTACK) is None  # never run


@pytest.mark.parametrize("pattern", SAFE)
def test_common_unambiguous_patterns_stay_checked(pattern: str) -> None:
    assert not risky(pattern)


@pytest.mark.parametrize("pattern", [r"^(a|a)*$", r"^(a|aa)*$"])
def test_argument_validation_with_a_hostile_pattern_returns_at_once(pattern: str) -> None:
    simple = {"type": "object", "properties": {"x": {"type": "string", "pattern": pattern}}}
    beyond = {"type": "object", "properties": {"x": {"anyOf": [{"type": "string", "pattern": pattern}]}}}
    start = time.monotonic()
    assert validate_args("v", simple, {"x": ATTACK}) == {"x": ATTACK}
    assert validate_args("v", beyond, {"x": ATTACK}) == {"x": ATTACK}
    assert time.monotonic() - start < 1.0


def test_pattern_properties_keys_are_guarded_and_safe_ones_still_apply() -> None:
    meta = {
        "type": "object",
        "patternProperties": {r"^(a|aa)*$": {"type": "integer"}, r"^x-[a-z]+$": {"type": "string"}},
        "additionalProperties": False,
    }
    schema = {"type": "object", "properties": {"meta": meta}}
    start = time.monotonic()
    # The hostile key pattern is not run: the key counts as matched (not refused as additional).
    assert validate_args("v", schema, {"meta": {ATTACK: "text"}})
    assert time.monotonic() - start < 1.0
    with pytest.raises(InvalidArgument):  # a safe pattern still types its keys
        validate_args("v", schema, {"meta": {"x-tag": 5}})
    assert _apply(schema, {"meta": {ATTACK: "text"}}) == ""  # lint, the same way
    assert validates(schema, {"meta": {ATTACK: "text"}})  # the compiler's example check


@pytest.fixture()
def ref_server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = json.dumps({"type": "integer"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_argument_validation_never_fetches_a_remote_ref(ref_server: tuple[str, list[str]]) -> None:
    url, hits = ref_server
    schema = {"type": "object", "properties": {"n": {"$ref": f"{url}/schema.json"}}}
    with pytest.raises(InvalidArgument, match="cannot be used"):
        validate_args("v", schema, {"n": "not an integer"})
    assert not validates(schema, {"n": 1})  # the compiler's check refuses it too
    assert "cannot be applied" in _apply(schema, {"n": 1})
    assert hits == []


def test_compiling_a_document_with_a_hostile_pattern_and_example_is_quick(tmp_path: Path) -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Hostile", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": {
            "/x": {
                "get": {
                    "operationId": "getX",
                    "parameters": [
                        {
                            "name": "q",
                            "in": "query",
                            "required": True,
                            "example": ATTACK,
                            "schema": {"type": "string", "pattern": r"^(a|aa)*$", "minLength": 30},
                        },
                        {
                            "name": "meta",
                            "in": "query",
                            "schema": {
                                "type": "object",
                                "additionalProperties": False,
                                "patternProperties": {r"^(a|a)*$": {"type": "string"}},
                            },
                            "example": {ATTACK: "v"},
                        },
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(doc))
    start = time.monotonic()
    result = packc_compile(source, tmp_path / "out")
    assert time.monotonic() - start < 30  # ran past 90 s before
    assert any(d.code == "C157" for d in result.diagnostics)


# --- a property: any pattern judged safe runs fast on adversarial text; a risky one never runs ---

_ATOMS = st.sampled_from(["a", "b", "[ab]", r"\d", r"\w", ".", "a?", "(?:a|b)", "[a-z]", r"\s"])


def _regex(depth: int = 3) -> st.SearchStrategy[str]:
    if depth == 0:
        return _ATOMS
    inner = _regex(depth - 1)
    quantified = st.tuples(inner, st.sampled_from(["*", "+", "?", "{1,3}", "{2}", "{0,12}", ""])).map(
        lambda t: f"(?:{t[0]}){t[1]}"
    )
    return st.one_of(
        inner,
        quantified,
        st.lists(inner, min_size=2, max_size=3).map("".join),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
    )


class _TooSlow(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _TooSlow


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_regex(), anchored=st.booleans())
def test_search_never_backtracks_for_long_and_never_runs_a_risky_pattern(body: str, anchored: bool) -> None:
    pattern = f"^(?:{body})$" if anchored else f"(?:{body})+$"
    if risky(pattern):
        assert search(pattern, ATTACK) is None
        return
    texts = [c * 30 + "!" for c in "ab1 _"] + [
        "ab" * 15 + "!",
        "aab" * 10 + "!",
        "a1" * 15 + "\n!",
        "a" * 3000 + "!",
    ]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, 2.0)  # exponential ones take minutes at this length
    try:
        start = time.perf_counter()
        for text in texts:
            search(pattern, text)  # runs the pattern unless the text is too long for its degree
        took = time.perf_counter() - start
    except _TooSlow:
        pytest.fail(f"{pattern!r} was judged safe but backtracked for over 2 s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert took < 1.0, (pattern, took)
