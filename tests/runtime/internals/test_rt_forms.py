"""Form and multipart bodies follow the media type's ``encoding`` (OpenAPI's Encoding Object), and a
server that decodes them as Rack and Stripe do gets every argument's value intact."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packc_runtime.calling.openapi._forms import deep_pairs, urlencoded_body
from packc_runtime.calling.openapi._styles import scalar_text
from packc_runtime.calling.openapi.operations import ArgBinding, Operation
from packc_runtime.calling.openapi.request import build_request
from packc_runtime.errors import InvalidArgument
from servers.form_app import body_pairs, rack_parse, stripe_arrays

FORM = "application/x-www-form-urlencoded"


def _op(encoding: Mapping[str, Any], ctype: str = FORM, props: Mapping[str, Any] | None = None) -> Operation:
    names = list(props or {}) or ["color", "ids", "metadata", "items", "expand", "note"]
    return Operation(
        "v",
        "POST",
        "/x",
        (),
        {},
        {n: ArgBinding("body", n) for n in names},
        ctype,
        {"type": "object", "properties": dict(props or {})},
        encoding,
        None,
        False,
        "",
    )


def _form(encoding: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    return build_request(_op(encoding), args, "http://h.test").content.decode()


OBJ = {"R": 100, "G": 200}
ARR = ["x", "y z"]


@pytest.mark.parametrize(
    ("enc", "value", "wire"),
    [
        ({}, ARR, "ids=x&ids=y%20z"),  # the default: style form, explode true
        ({}, OBJ, "R=100&G=200"),
        ({"style": "form", "explode": False}, ARR, "ids=x%2Cy%20z"),
        ({"style": "form", "explode": False}, OBJ, "ids=R%2C100%2CG%2C200"),
        ({"style": "spaceDelimited", "explode": False}, ARR, "ids=x%20y%20z"),
        ({"style": "pipeDelimited", "explode": False}, ARR, "ids=x%7Cy%20z"),
        ({"style": "deepObject", "explode": True}, OBJ, "ids[R]=100&ids[G]=200"),
        ({"style": "deepObject", "explode": True}, ARR, "ids[0]=x&ids[1]=y%20z"),
        ({"contentType": "application/json"}, OBJ, "ids=%7B%22R%22%3A100%2C%22G%22%3A200%7D"),
        ({"allowReserved": True}, "a/b:c?d", "ids=a/b:c?d"),
        ({}, "a/b:c?d", "ids=a%2Fb%3Ac%3Fd"),
    ],
)
def test_urlencoded_property_by_its_encoding(enc: dict[str, Any], value: Any, wire: str) -> None:
    assert _form({"ids": enc}, {"ids": value}) == wire


def test_stripe_deep_object_nesting() -> None:
    deep = {"style": "deepObject", "explode": True}
    enc = {name: deep for name in ("metadata", "items", "expand", "color")}
    wire = _form(
        enc,
        {
            "metadata": {"order": "42"},
            "color": {"enabled": True},
            "items": [{"price": "p_1", "quantity": 2}, {"price": "p_2"}],
            "expand": ["customer"],
        },
    )
    assert wire == (
        "color[enabled]=true&metadata[order]=42&items[0][price]=p_1&items[0][quantity]=2"
        "&items[1][price]=p_2&expand[0]=customer"
    )


@pytest.mark.parametrize("key", ["", "a]b", "a[b"])
def test_a_key_the_nesting_cannot_carry_is_refused_naming_the_argument(key: str) -> None:
    op = _op({"metadata": {"style": "deepObject", "explode": True}})._replace(
        args={"meta_arg": ArgBinding("body", "metadata")}
    )
    with pytest.raises(InvalidArgument) as info:
        build_request(op, {"meta_arg": {"ok": "1", key: "v"}}, "http://h.test")
    assert info.value.details["argument"] == "meta_arg" and repr(key) in str(info.value)


def _parts(request: httpx.Request) -> list[tuple[str, str]]:
    return body_pairs(request.headers["content-type"], request.read())


def test_multipart_encoding_styles_and_default_content_types() -> None:
    op = _op(
        {"file_link_data": {"style": "deepObject", "explode": True}},
        "multipart/form-data",
        {
            "file_link_data": {"type": "object"},
            "meta": {"type": "object"},
            "tags": {"type": "array"},
            "note": {"type": "string"},
        },
    )
    request = build_request(
        op,
        {
            "file_link_data": {"create": True, "expires_at": 5},
            "meta": {"k": 1},
            "tags": ["a", "b"],
            "note": "n",
        },
        "http://h.test",
    )
    assert _parts(request) == [
        ("file_link_data[create]", "true"),
        ("file_link_data[expires_at]", "5"),
        ("meta", '{"k":1}'),
        ("tags", "a"),
        ("tags", "b"),
        ("note", "n"),
    ]
    content = request.read()
    assert b'name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":1}' in content  # an object: JSON
    assert b'name="note"\r\n\r\nn' in content  # a primitive: text/plain, a part without Content-Type


# -- round trip: any nested value, deepObject-encoded, is decoded by Rack's rules to what was sent --

_keys = st.text(min_size=1, max_size=8).filter(lambda k: "[" not in k and "]" not in k)
_scalars = st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none())
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=4), st.dictionaries(_keys, inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)


def _as_rack(value: Any) -> Any:
    """What Rack decodes for ``value``: arrays as integer-keyed hashes, scalars as text."""
    if isinstance(value, Mapping):
        return {str(k): _as_rack(v) for k, v in value.items()}
    if isinstance(value, list):
        return {str(i): _as_rack(v) for i, v in enumerate(value)}
    return scalar_text(value)


def _prunable(value: Any) -> bool:
    """An empty object or array anywhere: it sends no pair, so there is nothing to decode."""
    if isinstance(value, Mapping):
        return not value or any(_prunable(v) for v in value.values())
    if isinstance(value, list):
        return not value or any(_prunable(v) for v in value)
    return False


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, _values, min_size=1, max_size=4))
def test_deep_object_round_trips_through_rack_parsing(fields: dict[str, Any]) -> None:
    enc = {name: {"style": "deepObject", "explode": True} for name in fields}
    body = urlencoded_body(fields, enc)
    decoded = rack_parse(parse_qsl(body.decode("ascii"), keep_blank_values=True))
    for name, value in fields.items():
        if not _prunable(value):
            assert decoded[name] == _as_rack(value)


@given(st.lists(_scalars, min_size=1, max_size=5))
def test_stripe_reads_indexed_arrays_back_as_arrays(items: list[Any]) -> None:
    pairs = deep_pairs("expand", items, "expand")
    assert stripe_arrays(rack_parse(pairs))["expand"] == [scalar_text(v) for v in items]
