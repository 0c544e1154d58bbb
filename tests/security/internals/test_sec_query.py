"""Issue 10 item 11 (second half): reserved characters never break the query's structure.

``allowReserved: true`` used to keep ``&``, ``=``, ``#`` and ``+`` literal: ``"a&admin=1"`` added a
parameter and ``"x#"`` cut the rest of the query off into a fragment that is never sent.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from packc_runtime.calling.openapi._forms import urlencoded_body
from packc_runtime.calling.openapi._styles import RESERVED_LITERAL, serialize_query
from packc_runtime.calling.openapi.operations import read_operations
from packc_runtime.calling.openapi.request import build_request

DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "reserved", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/api?fixed=1"}],
    "paths": {
        "/search": {
            "get": {
                "parameters": [
                    {"name": "q", "in": "query", "allowReserved": True, "schema": {"type": "string"}},
                    {
                        "name": "tags",
                        "in": "query",
                        "allowReserved": True,
                        "explode": True,
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                    {
                        "name": "filter",
                        "in": "query",
                        "allowReserved": True,
                        "style": "deepObject",
                        "schema": {"type": "object"},
                    },
                    {"name": "page", "in": "query", "schema": {"type": "integer"}},
                ],
                "x-packc-binding": {
                    "verb": "search.get",
                    "args": {
                        "q": {"in": "query", "name": "q"},
                        "tags": {"in": "query", "name": "tags"},
                        "filter": {"in": "query", "name": "filter"},
                        "page": {"in": "query", "name": "page"},
                    },
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}
OP = read_operations(DOC)["search.get"]


def _pairs(request: httpx.Request) -> list[tuple[str, str]]:
    assert request.url.fragment == ""
    return parse_qsl(request.url.query.decode(), keep_blank_values=True)


def test_hostile_allow_reserved_values_add_no_parameter_and_cut_nothing() -> None:
    request = build_request(
        OP,
        {"q": "a&admin=1#frag", "tags": ["x#", "y+z", "p;q=r"], "page": 2},
        "http://127.0.0.1:9/api?fixed=1",
    )
    assert _pairs(request) == [
        ("fixed", "1"),
        ("q", "a&admin=1#frag"),
        ("tags", "x#"),
        ("tags", "y+z"),
        ("tags", "p;q=r"),
        ("page", "2"),
    ]


def test_allow_reserved_still_keeps_the_harmless_reserved_characters_literal() -> None:
    [piece] = serialize_query(OP.parameters[("query", "q")], "a/b:c?d@e,f[0]!$'()*")
    assert piece == "q=a/b:c?d@e,f[0]!$'()*"
    assert set(RESERVED_LITERAL).isdisjoint("&=#+;%")


def test_deep_object_keys_and_values_keep_their_place() -> None:
    request = build_request(OP, {"filter": {"a&b": "c=d", "e]": "#"}}, "http://127.0.0.1:9/api")
    assert _pairs(request) == [("filter[a&b]", "c=d"), ("filter[e]]", "#")]


def test_form_bodies_with_allow_reserved_keep_their_fields() -> None:
    body = urlencoded_body({"note": "a&b=c#d+e"}, {"note": {"allowReserved": True}})
    assert parse_qsl(body.decode(), keep_blank_values=True) == [("note", "a&b=c#d+e")]


@settings(max_examples=300, deadline=None)
@given(q=st.text(), tags=st.lists(st.text(), max_size=4), page=st.integers(-10, 10))
def test_any_text_gives_back_exactly_the_intended_pairs(q: str, tags: list[str], page: int) -> None:
    try:
        request = build_request(OP, {"q": q, "tags": tags, "page": page}, "http://127.0.0.1:9/api")
    except Exception as exc:  # only text a URL cannot carry at all (lone surrogates) may be refused
        assert "surrogate" in str(exc) or any(0xD800 <= ord(c) <= 0xDFFF for c in q + "".join(tags)), exc
        return
    assert _pairs(request) == [("q", q), *[("tags", t) for t in tags], ("page", str(page))]


@settings(max_examples=200, deadline=None)
@given(value=st.text())
def test_any_form_value_is_one_field(value: str) -> None:
    try:
        body = urlencoded_body({"note": value}, {"note": {"allowReserved": True}})
    except UnicodeEncodeError:
        return
    assert parse_qsl(body.decode(), keep_blank_values=True) == [("note", value)]
