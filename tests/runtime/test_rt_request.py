"""Requests are built exactly as the document says (httpx.MockTransport, nothing on the network)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from packc_runtime import load_pack
from packc_runtime.calling.openapi.operations import Operation, Parameter, Server, read_operations
from packc_runtime.calling.openapi.request import build_request, server_url
from servers import PACKS

Seen = list[httpx.Request]


def recording(status: int = 200, body: Any = None) -> tuple[Seen, httpx.MockTransport]:
    seen: Seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, json=body if body is not None else {"ok": True})

    return seen, httpx.MockTransport(handler)


def call(verb: str, args: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], Seen]:
    seen, transport = recording()
    with load_pack(PACKS / "echo", transport=transport) as pack:
        kw.setdefault("server", "http://api.test/base")
        return pack.call(verb, args, **kw), seen


@pytest.mark.parametrize(
    "value, raw",
    [
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("a/b", "a%2Fb"),
        ("a?b#c", "a%3Fb%23c"),
        ("%2e%2e", "%252e%252e"),
        ("..\\..\\etc", "%2E%2E%5C%2E%2E%5Cetc"),
        ("a\r\nb\x00", "a%0D%0Ab%00"),
        ("é ü", "%C3%A9%20%C3%BC"),
    ],
)
def test_path_values_stay_in_their_segment(value: str, raw: str) -> None:
    envelope, seen = call("items.get", {"item_id": value})
    assert envelope["ok"], envelope
    assert seen[0].url.raw_path == f"/base/echo/items/{raw}".encode()


def test_empty_path_value_is_refused_and_nothing_is_sent() -> None:
    envelope, seen = call("items.get", {"item_id": ""})
    assert envelope["error"]["code"] == "invalid_argument"
    assert "empty" in envelope["error"]["message"]
    assert seen == []


def test_query_header_cookie_defaults() -> None:
    envelope, seen = call(
        "items.get",
        {
            "item_id": "7",
            "limit": 5,
            "tags": ["a b", "c&d"],
            "trace": "t-1",
            "session": "s v;x",
            "verbose": False,
        },
    )
    assert envelope["ok"]
    req = seen[0]
    assert req.url.query == b"limit=5&tags=a%20b&tags=c%26d&verbose=false"
    assert req.headers["X-Trace"] == "t-1"
    assert req.headers["Cookie"] == "session=s%20v%3Bx"


def test_path_styles_label_matrix_simple() -> None:
    envelope, seen = call(
        "styles.path", {"lab": ["a", "b.c"], "mat": ["x", "y/z"], "obj": {"k": "v", "n": "1"}}
    )
    assert envelope["ok"], envelope
    assert seen[0].url.raw_path == b"/base/echo/styles/.a.b%2Ec/;mat=x,y%2Fz/k=v,n=1"


def test_query_styles_and_ignored_accept_header() -> None:
    envelope, seen = call(
        "styles.query",
        {
            "ids": [1, 2, 3],
            "pipes": ["p", "q"],
            "filter": {"a": "1", "b": "x y"},
            "color": {"R": "100", "G": "200"},
            "csv": ["x", "y"],
            "accept": "text/html",
            "mode": ["m1", "m2"],
            "prefs": {"lang": "en", "tz": "utc"},
        },
    )
    assert envelope["ok"], envelope
    req = seen[0]
    assert req.url.query.decode() == (
        "ids=1%202%203&pipes=p|q&filter%5Ba%5D=1&filter%5Bb%5D=x%20y&color=R,100,G,200&csv=x,y"
    )
    assert req.headers["Accept"] != "text/html"  # a header parameter named Accept is ignored
    assert req.headers["X-Mode"] == "m1,m2"
    assert req.headers["Cookie"] == "lang=en; tz=utc"


@pytest.mark.parametrize("value", ["a\r\nX-Evil: 1", "a\nb", "a\x00b"])
def test_header_values_with_crlf_or_nul_are_refused(value: str) -> None:
    envelope, seen = call("items.get", {"item_id": "1", "trace": value})
    assert envelope["error"]["code"] == "invalid_argument"
    assert "CR, LF or NUL" in envelope["error"]["message"]
    assert seen == []


def test_non_ascii_header_value_is_refused_clearly() -> None:
    envelope, seen = call("items.get", {"item_id": "1", "trace": "café"})
    assert envelope["error"]["code"] == "invalid_argument"
    assert "non-ASCII" in envelope["error"]["message"]
    assert seen == []


def test_server_override_keeps_its_query_and_path_prefix() -> None:
    envelope, seen = call(
        "items.get", {"item_id": "1", "limit": 2}, server="http://mock.test:8080/v2/?tenant=a"
    )
    assert envelope["ok"]
    assert str(seen[0].url) == "http://mock.test:8080/v2/echo/items/1?tenant=a&limit=2"


@pytest.mark.parametrize("server", ["ftp://x.test/", "/relative", "http://user:pw@x.test/", "x.test"])
def test_bad_server_overrides_are_refused(server: str) -> None:
    envelope, seen = call("items.get", {"item_id": "1"}, server=server)
    assert envelope["error"]["code"] == "invalid_server"
    assert seen == []


def _op(servers: tuple[Server, ...]) -> Operation:
    return Operation("x", "GET", "/p", servers, {}, {}, None, None, {}, None, False, "#/paths/~1p/get")


def test_server_variables_defaults_overrides_enum_and_host_safety() -> None:
    server = Server(
        "https://{region}.api.test:{port}/{base}",
        {
            "region": {"default": "eu", "enum": ["eu", "us"]},
            "port": {"default": "443"},
            "base": {"default": "v1"},
        },
    )
    op = _op((server,))
    assert server_url(op) == "https://eu.api.test:443/v1"
    assert server_url(op, variables={"region": "us", "base": "v2/beta"}) == "https://us.api.test:443/v2/beta"
    with pytest.raises(Exception, match="must be one of"):
        server_url(op, variables={"region": "evil"})
    free = _op((Server("https://{host}/api", {"host": {"default": "api.test"}}),))
    for evil in (
        "evil.example/x?",
        "evil.example#",
        "a@evil.example",
        "evil.example:80",
        "a\\b",
        "evil.example",
    ):
        with pytest.raises(Exception, match="refused"):
            server_url(free, variables={"host": evil})
    assert server_url(free, variables={"host": "api.test"}) == "https://api.test/api"  # the default itself
    sub = _op(
        (
            Server(
                "https://{region}.api.test:{port}/v1",
                {"region": {"default": "eu"}, "port": {"default": "443"}},
            ),
        )
    )
    assert (
        server_url(sub, variables={"region": "ap-south", "port": "8443"})
        == "https://ap-south.api.test:8443/v1"
    )
    with pytest.raises(Exception, match="refused"):
        server_url(sub, variables={"port": "44x"})
    with pytest.raises(Exception, match="relative"):
        server_url(_op((Server("/api"),)))
    with pytest.raises(Exception, match="no server"):
        server_url(_op(()))


def test_operation_and_path_level_servers_win() -> None:
    doc = {
        "servers": [{"url": "https://top.test"}],
        "paths": {
            "/a": {
                "servers": [{"url": "https://path.test"}],
                "get": {"x-packc-binding": {"verb": "a", "args": {}}},
                "post": {
                    "servers": [{"url": "https://op.test"}],
                    "x-packc-binding": {"verb": "b", "args": {}},
                },
            },
            "/c": {"get": {"x-packc-binding": {"verb": "c", "args": {}}}},
        },
    }
    ops = read_operations(doc)
    assert server_url(ops["a"]) == "https://path.test"
    assert server_url(ops["b"]) == "https://op.test"
    assert server_url(ops["c"]) == "https://top.test"


def test_json_form_multipart_octet_bodies(tmp_path: Path) -> None:
    upload = tmp_path / "note.txt"
    upload.write_bytes(b"file-bytes")
    envelope, seen = call(
        "items.create", {"name": "lamp", "price": 9.5, "tags": ["a"], "meta": {"k": "v"}}, confirm=True
    )
    assert envelope["ok"], envelope
    assert json.loads(seen[0].content) == {"name": "lamp", "price": 9.5, "tags": ["a"], "meta": {"k": "v"}}
    assert seen[0].headers["Content-Type"] == "application/json"
    envelope, seen = call("items.form", {"name": "a b&c", "count": 3, "tags": ["x", "y"]}, confirm=True)
    assert seen[0].content == b"name=a%20b%26c&count=3&tags=x&tags=y"
    assert seen[0].headers["Content-Type"] == "application/x-www-form-urlencoded"
    envelope, seen = call("items.upload", {"file": str(upload), "note": "hi"}, confirm=True)
    content = seen[0].read()
    assert seen[0].headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert b'name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\nfile-bytes' in content
    assert b'name="note"\r\n\r\nhi' in content
    envelope, seen = call("items.raw", {"file": str(upload)}, confirm=True)
    assert seen[0].content == b"file-bytes"
    assert seen[0].headers["Content-Type"] == "application/octet-stream"
    envelope, seen = call("items.replace", {"item_id": "1", "item": {"name": "n"}}, confirm=True)
    assert json.loads(seen[0].content) == {"name": "n"}


def test_unreadable_upload_is_an_invalid_argument(tmp_path: Path) -> None:
    envelope, seen = call("items.raw", {"file": str(tmp_path / "missing.bin")}, confirm=True)
    assert envelope["error"]["code"] == "invalid_argument"
    assert seen == []


def test_build_request_without_binding_declaration_uses_location_defaults() -> None:
    from packc_runtime.calling.openapi.operations import ArgBinding

    op = Operation(
        "v",
        "GET",
        "/x/{id}",
        (),
        {},
        {"id": ArgBinding("path", "id"), "q": ArgBinding("query", "q")},
        None,
        None,
        {},
        None,
        False,
        "",
    )
    request = build_request(op, {"id": "a b", "q": ["1", "2"]}, "http://h.test")
    assert str(request.url) == "http://h.test/x/a%20b?q=1&q=2"
    assert Parameter("q", "query", "form", True, False, {}) is not None


Handler = Callable[[httpx.Request], httpx.Response]


def test_required_body_with_no_fields_given_is_sent_empty() -> None:
    from packc_runtime.calling.openapi.operations import ArgBinding

    op = Operation(
        "v",
        "PATCH",
        "/x",
        (),
        {},
        {"note": ArgBinding("body", "note")},
        "application/json",
        {"type": "object"},
        {},
        None,
        False,
        "",
        body_required=True,
    )
    request = build_request(op, {}, "http://h.test")
    assert request.content == b"{}" and request.headers["Content-Type"] == "application/json"
    optional = op._replace(body_required=False)
    assert build_request(optional, {}, "http://h.test").content == b""


def test_label_items_cannot_make_a_dot_segment() -> None:
    envelope, seen = call("styles.path", {"lab": ["", ""], "mat": ["x"], "obj": {"k": "v"}})
    assert envelope["error"]["code"] == "invalid_argument" and "'..' segment" in envelope["error"]["message"]
    assert seen == []


@pytest.mark.parametrize(
    "name", ["Content-Length", "Transfer-Encoding", "Host", "Authorization"]
)  # Cookie: test_rt_cookie_header
def test_reserved_and_framing_header_parameters_are_ignored(name: str) -> None:
    from packc_runtime.calling.openapi.operations import ArgBinding

    op = Operation(
        "v",
        "POST",
        "/x",
        (),
        {},
        {"h": ArgBinding("header", name), "b": ArgBinding("body", "b")},
        "application/json",
        {"type": "object"},
        {},
        None,
        False,
        "",
    )
    request = build_request(op, {"h": "0", "b": "x"}, "http://h.test")
    assert request.headers.get(name) != "0"
    assert request.headers["Content-Length"] == str(len(request.content))


def _multipart_parts(request: httpx.Request) -> list[tuple[str | None, bytes]]:
    """(name, content) of each part, in order, as a server parses the body."""
    from email.parser import BytesParser
    from email.policy import HTTP

    raw = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode() + request.read()
    message = BytesParser(policy=HTTP).parsebytes(raw)
    return [
        (p.get_param("name", header="content-disposition"), p.get_payload(decode=True))  # type: ignore[misc]
        for p in message.iter_parts()
    ]


def test_multipart_without_file_parts_is_still_multipart() -> None:
    envelope, seen = call("notes.create", {"title": "a b&c", "count": 2, "tags": ["x", "y"]}, confirm=True)
    assert envelope["ok"], envelope
    assert seen[0].headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert _multipart_parts(seen[0]) == [("title", b"a b&c"), ("count", b"2"), ("tags", b"x"), ("tags", b"y")]
    assert b"filename=" not in seen[0].content  # text parts are not files


def test_required_multipart_body_with_no_fields_given_is_an_empty_multipart() -> None:
    from packc_runtime.calling.openapi.operations import ArgBinding

    op = Operation(
        "v",
        "POST",
        "/x",
        (),
        {},
        {"note": ArgBinding("body", "note")},
        "multipart/form-data",
        {"type": "object"},
        {},
        None,
        False,
        "",
        body_required=True,
    )
    request = build_request(op, {}, "http://h.test")
    boundary = request.headers["Content-Type"].removeprefix("multipart/form-data; boundary=")
    assert boundary and request.content == f"--{boundary}--\r\n".encode()


def test_multipart_text_part_keeps_its_encoding_content_type() -> None:
    from packc_runtime.calling.openapi.operations import ArgBinding

    op = Operation(
        "v",
        "POST",
        "/x",
        (),
        {},
        {"meta": ArgBinding("body", "meta")},
        "multipart/form-data",
        {"type": "object", "properties": {"meta": {"type": "object"}}},
        {"meta": {"contentType": "application/json"}},
        None,
        False,
        "",
    )
    content = build_request(op, {"meta": {"k": 1}}, "http://h.test").read()
    assert b'name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":1}' in content


def test_path_key_with_a_query_string_joins_with_ampersand() -> None:
    envelope, seen = call("rest.ping", {"limit": 3}, server="http://api.test/base?tenant=a")
    assert envelope["ok"], envelope
    assert str(seen[0].url) == "http://api.test/base/echo/rest?tenant=a&method=echo.ping&limit=3"
    from packc_runtime.calling.openapi.operations import ArgBinding
    from packc_runtime.calling.openapi.request import AuthParts

    op = Operation(
        "v",
        "GET",
        "/rest?method=flickr.x&format=json#frag",
        (),
        {},
        {"q": ArgBinding("query", "q")},
        None,
        None,
        {},
        None,
        False,
        "",
    )
    auth = AuthParts()
    auth.query.append(("api_key", "k&1"))
    request = build_request(op, {"q": "a?b"}, "http://h.test/v1", auth)
    assert str(request.url) == "http://h.test/v1/rest?method=flickr.x&format=json&q=a%3Fb&api_key=k%261"
    assert request.url.query.count(b"?") == 0 and request.url.fragment == ""


def test_declared_accept_and_content_type_parameters_get_allowed_values() -> None:
    envelope, seen = call("report.get", {})
    assert envelope["ok"], envelope
    assert seen[0].headers["Accept"] == "application/vnd.echo.report+json"  # the declared enum's JSON value
    assert seen[0].headers["Content-Type"] == "application/json"  # required by the document, even on a GET
    assert seen[0].content == b""


def test_accept_follows_the_declared_response_media_types() -> None:
    _, seen = call("notes.create", {"title": "t"}, confirm=True)
    assert seen[0].headers["Accept"] == "application/json, text/plain;q=0.9, */*;q=0.5"
    _, seen = call("items.get", {"item_id": "1"})
    assert seen[0].headers["Accept"] == "application/json, */*;q=0.5"
    op = _op((Server("http://h.test"),))
    assert (
        build_request(
            op._replace(response_types=("text/csv", "application/xml")), {}, "http://h.test"
        ).headers["Accept"]
        == "text/csv, application/xml, */*;q=0.5"
    )
    assert build_request(op, {}, "http://h.test").headers["Accept"] == "application/json, */*;q=0.5"


def test_accept_and_content_type_arguments_never_override_the_runtime() -> None:
    from packc_runtime.calling.openapi.operations import ArgBinding

    params = {
        ("header", "Accept"): Parameter(
            "Accept",
            "header",
            "simple",
            False,
            False,
            {"type": "string", "enum": ["text/plain", "text/csv"]},
            required=True,
        ),
        ("header", "content-type"): Parameter(
            "content-type",
            "header",
            "simple",
            False,
            False,
            {"type": "string", "default": "application/json"},
            required=True,
        ),
    }
    op = Operation(
        "v",
        "POST",
        "/x",
        (),
        params,
        {
            "a": ArgBinding("header", "Accept"),
            "c": ArgBinding("header", "content-type"),
            "b": ArgBinding("body", "b"),
        },
        "application/x-www-form-urlencoded",
        {"type": "object"},
        {},
        None,
        False,
        "",
    )
    request = build_request(op, {"a": "evil/x", "c": "evil/y", "b": "1"}, "http://h.test")
    assert request.headers.get_list("Accept") == ["text/plain"]
    # a body is sent: its Content-Type is the binding's, whatever the declared parameter says
    assert request.headers.get_list("Content-Type") == ["application/x-www-form-urlencoded"]
    assert build_request(op, {}, "http://h.test").headers["Content-Type"] == "application/json"


def test_declared_defaults_yield_to_the_response_types_for_accept() -> None:
    # vtex Checkout: Accept and Content-Type required with default application/json (no enum), the
    # response only text/plain: the default Accept would be refused (406); Content-Type takes its default.
    params = {
        ("header", name): Parameter(
            name,
            "header",
            "simple",
            False,
            False,
            {"type": "string", "default": "application/json"},
            required=True,
        )
        for name in ("Content-Type", "Accept")
    }
    op = _op((Server("http://h.test"),))._replace(parameters=params, response_types=("text/plain",))
    request = build_request(op, {}, "http://h.test")
    assert request.headers["Accept"] == "text/plain, */*;q=0.5"
    assert request.headers["Content-Type"] == "application/json" and request.content == b""
    assert (
        build_request(op._replace(response_types=()), {}, "http://h.test").headers["Accept"]
        == "application/json"
    )
    optional = {k: v._replace(required=False) for k, v in params.items()}
    assert "Content-Type" not in build_request(op._replace(parameters=optional), {}, "http://h.test").headers


def test_ref_fragments_are_percent_decoded() -> None:
    from packc_runtime.calling.openapi.operations import resolve

    document = {
        "paths": {"/a/{id}": {"get": {"parameters": [{"name": "n"}]}}},
        "components": {"schemas": {"{id}": {"type": "string"}, "a~b/c d": {"type": "integer"}}},
    }
    assert resolve(document, {"$ref": "#/components/schemas/%7Bid%7D"}) == {"type": "string"}
    assert resolve(document, {"$ref": "#/components/schemas/a~0b~1c%20d"}) == {"type": "integer"}
    assert resolve(document, {"$ref": "#/paths/~1a~1%7Bid%7D/get/parameters/0"}) == {"name": "n"}
    # percent-decoding comes first: %7E1 is "~1", which is then an escaped "/"
    assert resolve({"x": {"a/b": 1}}, {"$ref": "#/x/a%7E1b"}) == 1
    envelope, seen = call("rest.ping", {"limit": 7})  # its parameter is such a $ref in the fixture pack
    assert envelope["ok"], envelope
    assert seen[0].url.params["limit"] == "7"
