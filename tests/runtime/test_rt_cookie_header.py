"""A declared ``Cookie`` header parameter is an argument whose cookie string opens the Cookie header.

vtex Checkout's gatewayCallback requires ``Cookie`` (the checkout session cookies an earlier call
returned). OpenAPI ignores header parameters named Accept, Content-Type and Authorization only, so
the compiler makes it an argument and the runtime sends one Cookie header: that string first, then
the cookie parameters, then API keys in cookies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from packc import compile as compile_api
from packc_runtime import load_pack
from packc_runtime.calling.openapi.operations import read_operations
from packc_runtime.calling.openapi.request import AuthParts, build_request
from servers.echo_app import EchoApp

SESSION = "Vtex_CHKO_Auth=0e/RpYIEZu19=; CheckoutDataAccess=0e/PoiTEZ="
COOKIE_PARAM = {
    "name": "Cookie",
    "in": "header",
    "required": True,
    "description": "The checkout session cookies.",
    "schema": {"type": "string", "default": SESSION},
}
DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Checkout", "version": "1"},
    "servers": [{"url": "https://api.test"}],
    "paths": {
        "/echo/callback/{group}": {
            "get": {
                "operationId": "callback",
                "parameters": [
                    {"name": "group", "in": "path", "required": True, "schema": {"type": "string"}},
                    COOKIE_PARAM,
                    {"name": "lang", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _op() -> Any:
    item = json.loads(json.dumps(DOCUMENT["paths"]["/echo/callback/{group}"]))
    item["get"]["x-packc-binding"] = {
        "verb": "callback",
        "args": {
            "group": {"in": "path", "name": "group"},
            "cookie": {"in": "header", "name": "Cookie"},
            "lang": {"in": "cookie", "name": "lang"},
        },
    }
    return read_operations({"paths": {"/echo/callback/{group}": item}})["callback"]


def test_cookie_string_then_cookie_parameters_then_api_keys() -> None:
    auth = AuthParts()
    auth.cookies.append(("sid", "k1"))
    request = build_request(_op(), {"group": "1", "cookie": SESSION, "lang": "en"}, "https://api.test", auth)
    assert request.headers.get_list("Cookie") == [f"{SESSION}; lang=en; sid=k1"]
    alone = build_request(_op(), {"group": "1", "cookie": SESSION}, "https://api.test")
    assert alone.headers["Cookie"] == SESSION
    assert "cookie" not in build_request(_op(), {"group": "1"}, "https://api.test").headers


@pytest.mark.parametrize("value", ["a=1\r\nX-Evil: 1", "a=1\nb", "a=\x00"])
def test_a_cookie_string_with_crlf_or_nul_is_refused(value: str) -> None:
    with pytest.raises(Exception, match="CR, LF or NUL"):
        build_request(_op(), {"group": "1", "cookie": value}, "https://api.test")


def test_the_compiler_makes_the_cookie_header_an_argument(tmp_path: Path) -> None:
    source = tmp_path / "checkout.json"
    source.write_text(json.dumps(DOCUMENT), "utf-8")
    result = compile_api(source, tmp_path / "packs", server="https://api.test")
    assert not [d for d in result.diagnostics if d.code == "C121"]
    surface = json.loads((tmp_path / "packs" / result.packs[0].id / "surface.json").read_text())
    args = surface["verbs"]["echo.callback.get"]["args"]
    assert "cookie" in args["required"] and args["properties"]["cookie"]["examples"] == [SESSION]


@pytest.mark.e2e
def test_the_cookie_header_reaches_a_real_server(tmp_path: Path, echo_server: tuple[EchoApp, str]) -> None:
    app, url = echo_server
    source = tmp_path / "checkout.json"
    source.write_text(json.dumps(DOCUMENT), "utf-8")
    result = compile_api(source, tmp_path / "packs", server=url + "/api")
    assert result.packs and result.packs[0].directory is not None
    with load_pack(result.packs[0].directory) as pack:
        envelope = pack.call("echo.callback.get", {"group": "9", "cookie": SESSION, "lang": "en"})
    assert envelope["ok"], envelope
    arrived = app.log[-1]
    assert arrived.raw_path == "/api/echo/callback/9"
    assert (
        arrived.headers["cookie"] == f"{SESSION}; lang=en"
    )  # one header (the server joins repeats with ", ")
