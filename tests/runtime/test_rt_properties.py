"""Hypothesis: requests validate against the document, paths stay in their template, unconfirmed writes send nothing."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openapi_core import OpenAPI  # noqa: TID251 - tests may use openapi-core
from rt_helpers import OpenApiRequest as _Request

from packc_runtime import Limits, load_pack
from packc_runtime.errors import ERROR_CLASSES
from servers import PACKS

BASE = "http://api.test/base"
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# Values of delimited styles (form explode=false, pipe, space, simple headers) avoid their delimiter:
# after percent-decoding, a server cannot tell "a,b" in one item from two items; neither can openapi-core.
PLAIN = st.text(st.characters(codec="utf-8", exclude_characters=", |;=\x00"), max_size=12)
KEYS = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)


def strategy(schema: Mapping[str, Any], *, delimited: bool = False) -> st.SearchStrategy[Any]:
    """Values a JSON schema (the fixture packs' subset) accepts."""
    kind = schema.get("type")
    if kind == "string":
        base = PLAIN if delimited else st.text(max_size=20)
        return base.filter(lambda s: len(s) >= schema.get("minLength", 0))
    if kind == "integer":
        return st.integers(schema.get("minimum", -(10**9)), schema.get("maximum", 10**9))
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False, width=32)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(
            strategy(schema.get("items", {"type": "string"}), delimited=True), min_size=1, max_size=4
        )
    if kind == "object":
        return st.dictionaries(KEYS, PLAIN, min_size=1, max_size=3)
    raise AssertionError(f"no strategy for {schema}")


def args_for(pack: str, verb: str, ascii_headers: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    surface = json.loads((PACKS / pack / "surface.json").read_text())
    schema = surface["verbs"][verb]["args"]
    required = set(schema.get("required", []))
    fields = {}
    for name, prop in schema["properties"].items():
        value = strategy(prop, delimited=prop.get("type") in ("object",))
        if ascii_headers and name in ("trace",):
            value = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20)
        fields[name] = value if name in required else st.none() | value
    return st.fixed_dictionaries(fields).map(lambda d: {k: v for k, v in d.items() if v is not None})


@pytest.fixture(scope="module")
def echo_openapi() -> OpenAPI:
    document = json.loads((PACKS / "echo" / "openapi.json").read_text())
    document["servers"] = [{"url": BASE}]
    return OpenAPI.from_dict(document)


class Recorder:
    def __init__(self) -> None:
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        return httpx.Response(200, json={})


def _one_request(
    verb: str, args: dict[str, Any], confirm: bool = True
) -> tuple[dict[str, Any], list[httpx.Request]]:
    recorder = Recorder()
    with load_pack(PACKS / "echo", transport=httpx.MockTransport(recorder)) as pack:
        envelope = pack.call(verb, args, confirm=confirm, server=BASE)
    return envelope, recorder.seen


def _styled_path_vars(raw_path: str) -> dict[str, str]:
    # openapi-core reads label and matrix path values under the keys ".name", ".name*", ";name" and
    # ";name*" (RFC 6570 operator names), which a plain OpenAPI template never yields: give it those.
    lab, mat, obj = raw_path.removeprefix("/base/echo/styles/").split("/")
    out = {"obj": unquote(obj)}
    for name, value in (("lab", lab), ("mat", mat)):
        for prefix in (".", ";"):
            out[f"{prefix}{name}"] = out[f"{prefix}{name}*"] = value
    return out


def _check_valid(openapi: OpenAPI, verb: str, args: dict[str, Any]) -> None:
    envelope, seen = _one_request(verb, args)
    if not envelope["ok"]:
        # The schema allows some values HTTP cannot carry; those are refused by name, nothing is sent.
        assert envelope["error"]["code"] == "invalid_argument", envelope
        assert any(
            w in envelope["error"]["message"] for w in ("CR, LF or NUL", "non-ASCII", "empty", "'..' segment")
        ), envelope
        assert seen == []
        return
    assert len(seen) == 1
    raw = seen[0].url.raw_path.decode().split("?")[0]
    openapi.validate_request(_Request(seen[0], _styled_path_vars(raw) if verb == "styles.path" else None))


@SETTINGS
@given(args=args_for("echo", "items.get"))
def test_items_get_requests_validate(echo_openapi: OpenAPI, args: dict[str, Any]) -> None:
    _check_valid(echo_openapi, "items.get", args)


@SETTINGS
@given(args=args_for("echo", "styles.query"))
def test_styles_query_requests_validate(echo_openapi: OpenAPI, args: dict[str, Any]) -> None:
    _check_valid(echo_openapi, "styles.query", args)


@SETTINGS
@given(args=args_for("echo", "styles.path"))
def test_styles_path_requests_validate(echo_openapi: OpenAPI, args: dict[str, Any]) -> None:
    _check_valid(echo_openapi, "styles.path", args)


@SETTINGS
@given(args=args_for("echo", "items.create"))
def test_json_body_requests_validate(echo_openapi: OpenAPI, args: dict[str, Any]) -> None:
    _check_valid(echo_openapi, "items.create", args)


@SETTINGS
@given(args=args_for("echo", "items.form"))
def test_form_body_requests_validate(echo_openapi: OpenAPI, args: dict[str, Any]) -> None:
    _check_valid(echo_openapi, "items.form", args)


@settings(max_examples=150, deadline=None)
@given(value=st.text(min_size=1, max_size=40))
def test_any_path_value_stays_inside_its_segment(value: str) -> None:
    envelope, seen = _one_request("items.get", {"item_id": value})
    assert envelope["ok"], envelope
    raw = seen[0].url.raw_path.decode()
    assert raw.startswith("/base/echo/items/")
    segment = raw.removeprefix("/base/echo/items/")
    assert "/" not in segment and "?" not in segment and "#" not in segment
    assert segment not in (".", "..")
    assert unquote(segment) == value  # the server decodes exactly the value given


WRITE_VERBS = [
    (pack, verb)
    for pack in ("echo", "flaky")
    for verb, row in json.loads((PACKS / pack / "policy.json").read_text())["commands"].items()
    if row["access"] == "write" and verb not in ("items.replace",)
]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), choice=st.sampled_from(WRITE_VERBS))
def test_unconfirmed_write_sends_nothing(data: st.DataObject, choice: tuple[str, str]) -> None:
    pack_name, verb = choice
    args = data.draw(args_for(pack_name, verb))
    recorder = Recorder()
    with load_pack(PACKS / pack_name, transport=httpx.MockTransport(recorder)) as pack:
        envelope = pack.call(verb, args, server=BASE)
    assert recorder.seen == []
    assert envelope["ok"] is False and envelope["error"]["code"] == "not_confirmed"
    assert envelope["error"]["preview"]["kind"]


def test_the_checker_can_fail(echo_openapi: OpenAPI) -> None:
    """Control: a request the document forbids does not validate (so the properties above can fail)."""
    bad = httpx.Request("GET", BASE + "/echo/items/1?limit=1000")
    with pytest.raises(Exception, match="limit"):
        echo_openapi.validate_request(_Request(bad))
    bad_matrix = httpx.Request("GET", BASE + "/echo/styles/.a/mat=x/k=v")
    with pytest.raises(Exception):  # noqa: B017 - any validation error will do
        echo_openapi.validate_request(
            _Request(bad_matrix, _styled_path_vars("/base/echo/styles/.a/mat=x/k=v"))
        )


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
ALL_VERBS = [
    (pack, verb)
    for pack in ("echo", "authz", "flaky")
    for verb in json.loads((PACKS / pack / "surface.json").read_text())["verbs"]
]


@settings(max_examples=80, deadline=None)
@given(
    choice=st.sampled_from(ALL_VERBS),
    args=st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=4) | JSON_VALUES,
    status=st.sampled_from([200, 201, 204, 301, 302, 400, 401, 404, 429, 500, 503]),
    ctype=st.sampled_from(
        ["application/json", "text/plain", "application/octet-stream", "", "application/x+json"]
    ),
    content=st.binary(max_size=64),
    location=st.sampled_from(["", "/elsewhere", "http://other.test/x", "::bad::"]),
    confirm=st.booleans(),
)
def test_any_input_and_any_answer_give_one_envelope(
    choice: tuple[str, str], args: Any, status: int, ctype: str, content: bytes, location: str, confirm: bool
) -> None:
    """The runtime never raises: every call, whatever the args and the server's answer, is one envelope."""
    pack_name, verb = choice
    headers = {"Content-Type": ctype} if ctype else {}
    if location and status in (301, 302):
        headers["Location"] = location

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=content, headers=headers)

    env = {"AUTHZ_KEY_HEADER_API_KEY": "k-0001", "AUTHZ_BEARER_TOKEN": "t-0002"}
    with load_pack(
        PACKS / pack_name,
        transport=httpx.MockTransport(handler),
        environ=env,
        limits=Limits(backoff=0.0, max_retry_after=0.0),
    ) as pack:
        envelope = pack.call(verb, args, confirm=confirm)
    assert isinstance(envelope["ok"], bool) and envelope["verb"] == verb
    if not envelope["ok"]:
        assert envelope["error"]["code"] in ERROR_CLASSES
    json.dumps(envelope)  # always serializable
