"""Fetches stay on their allowed origins, redirects included (issue 10, item 8: SSRF).

Two servers on 127.0.0.1 on different ports are two origins; one redirects to the other.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packc import compile
from packc.errors import InputError
from packc.read._fetch import RedirectRefused, fetch, origin_of, same_origin
from packc.read.frontend import read_api

SECRET = "SECRET-OF-THE-OTHER-ORIGIN"
Route = Callable[[http.server.BaseHTTPRequestHandler], None]


def _json(body: object) -> Route:
    def send(h: http.server.BaseHTTPRequestHandler) -> None:
        data = json.dumps(body).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    return send


def _redirect(location: Callable[[], str], status: int = 302) -> Route:
    def send(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        h.send_header("Location", location())
        h.send_header("Content-Length", "0")
        h.end_headers()

    return send


class _Server:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                outer.hits.append(self.path)
                route = outer.routes.get(self.path)
                if route is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                route(self)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


pytestmark = pytest.mark.slow  # real servers and deadlines: seconds of waiting


@pytest.fixture
def two() -> Iterator[tuple[_Server, _Server]]:
    a, b = _Server(), _Server()
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def _doc(ref: str) -> dict[str, object]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "/api"}],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "summary": "List pets.",
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"$ref": ref}}},
                        }
                    },
                }
            }
        },
    }


def _secret_schema() -> dict[str, object]:
    return {"Pet": {"type": "object", "description": SECRET, "properties": {"name": {"type": "string"}}}}


def _pack_text(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())


def test_same_origin_ref_redirecting_to_another_origin_is_not_embedded(
    two: tuple[_Server, _Server], tmp_path: Path
) -> None:
    """The reproduction: A's same-origin $ref redirects to B; B's answer used to land in the pack."""
    a, b = two
    a.routes["/openapi.json"] = _json(_doc("./pet.json#/Pet"))
    a.routes["/pet.json"] = _redirect(lambda: f"{b.url}/internal/pet.json")
    b.routes["/internal/pet.json"] = _json(_secret_schema())
    result = compile(f"{a.url}/openapi.json", tmp_path / "out")
    assert result.ok
    assert SECRET not in _pack_text(tmp_path / "out")
    assert b.hits == []  # the redirect was refused before B was asked
    d026 = [d for d in result.diagnostics if d.code == "D026"]
    assert len(d026) == 1 and d026[0].level == "warning"
    assert d026[0].pointer == "#/paths/~1pets/get/responses/200/content/application~1json/schema"
    assert f"{b.url}/internal/pet.json" in d026[0].message and "another origin" in d026[0].message
    # With the flag the user trusts other origins: the same document then embeds B's schema.
    trusted = compile(f"{a.url}/openapi.json", tmp_path / "trusted", allow_remote_refs=True)
    assert trusted.ok and SECRET in _pack_text(tmp_path / "trusted")


def test_same_origin_redirect_of_a_ref_is_followed(two: tuple[_Server, _Server]) -> None:
    a, _ = two
    a.routes["/openapi.json"] = _json(_doc("./pet.json#/Pet"))
    a.routes["/pet.json"] = _redirect(lambda: "/v2/pet.json", status=301)
    a.routes["/v2/pet.json"] = _json(_secret_schema())
    result = read_api(f"{a.url}/openapi.json")
    assert not [d for d in result.diagnostics if d.code in ("D024", "D026")]
    assert SECRET in json.dumps(result.api.document)


def test_input_url_redirecting_to_another_origin_is_refused(two: tuple[_Server, _Server]) -> None:
    a, b = two
    a.routes["/openapi.json"] = _redirect(lambda: f"{b.url}/openapi.json", status=307)
    b.routes["/openapi.json"] = _json(_doc("#/components/schemas/Pet"))
    with pytest.raises(RedirectRefused) as info:
        read_api(f"{a.url}/openapi.json")
    [diagnostic] = info.value.diagnostics
    assert diagnostic.code == "D026" and diagnostic.level == "error"
    assert f"{a.url}/openapi.json redirects to {b.url}/openapi.json" in diagnostic.message
    assert "--allow-remote-refs" in diagnostic.fix and b.hits == []
    assert read_api(f"{a.url}/openapi.json", allow_remote_refs=True).api.source == f"{b.url}/openapi.json"


def test_redirect_to_file_url_is_refused_even_with_the_flag(two: tuple[_Server, _Server]) -> None:
    a, _ = two
    a.routes["/openapi.json"] = _redirect(lambda: "file:///etc/passwd")
    for allow in (False, True):
        with pytest.raises(RedirectRefused) as info:
            read_api(f"{a.url}/openapi.json", allow_remote_refs=allow)
        assert info.value.reason == "not an http(s) URL" and info.value.diagnostics[0].code == "D026"


def test_remote_stub_fetches_its_document_only_from_its_own_origin(two: tuple[_Server, _Server]) -> None:
    a, b = two
    b.routes["/openapi.json"] = _json(_doc("#/x"))
    a.routes["/surface.json"] = _json(
        {"id": "zoo", "kind": "openapi", "openapi": {"url": f"{b.url}/openapi.json"}}
    )
    with pytest.raises(InputError) as info:
        read_api(f"{a.url}/surface.json")
    assert [d.code for d in info.value.diagnostics] == ["D014"]
    assert info.value.diagnostics[0].pointer == f"{a.url}/surface.json#/openapi/url" and b.hits == []
    assert read_api(f"{a.url}/surface.json", allow_remote_refs=True).stub is not None
    # openapi.path is relative, but a path that resolves elsewhere (or redirects) is held to the same origin
    a.routes["/surface.json"] = _json({"id": "zoo", "kind": "openapi", "openapi": {"path": "openapi.json"}})
    a.routes["/openapi.json"] = _redirect(lambda: f"{b.url}/openapi.json")
    b.hits.clear()
    with pytest.raises(RedirectRefused):
        read_api(f"{a.url}/surface.json")
    assert b.hits == []


def test_local_stub_may_name_any_url(two: tuple[_Server, _Server], tmp_path: Path) -> None:
    _, b = two
    b.routes["/openapi.json"] = _json(_doc("#/x"))
    stub = tmp_path / "surface.json"
    stub.write_text(json.dumps({"id": "zoo", "kind": "openapi", "openapi": {"url": f"{b.url}/openapi.json"}}))
    assert read_api(stub).api.source == f"{b.url}/openapi.json"


def test_the_compiler_judges_origins_with_the_runtimes_rule() -> None:
    """One home: fetches and credentials read an origin the same way (a homograph is its A-label)."""
    from packc_runtime.credentials import origins

    assert origin_of is origins.origin_of
    assert origin_of("https://\u0430pi.github.com/openapi.json") == "https://xn--pi-6kc.github.com"


def _canonical(allowed: str) -> str:
    """An ``_ALLOWED`` entry (``scheme://host:port``, port always written) as ``origin_of`` writes it."""
    return origin_of(allowed) or ""


def test_hop_rules() -> None:
    assert same_origin("http://a.example", "https://a.example/x")  # the https upgrade
    assert same_origin("http://[::1]", "https://[::1]/x")
    assert not same_origin("http://a.example:8080", "https://a.example:8080/x")  # only from the default port
    assert not same_origin("http://[::1]:8080", "https://[::1]:8080/x")
    assert not same_origin("https://a.example", "http://a.example/x")
    assert not same_origin("http://a.example", "http://a.example:8080/x")
    assert not same_origin("http://a.example", "http://a.example.evil.test/x")
    # Judged by the parser that sends: httpx reads "evil.test\\" as user info, and connects to a.example.
    assert origin_of("http://evil.test\\@a.example/") == "http://a.example"
    assert not same_origin("http://a.example", "http://a.example@evil.test/")
    from packc_runtime.calling.fetch import hop_refusal as _refusal

    assert _refusal(None, "https://a.example/x", "http://a.example/y") == "from https to plain http"
    assert _refusal(None, "http://a.example/x", "https://b.example/y") is None
    assert _refusal(None, "http://a.example/x", "gopher://a.example/") == "not an http(s) URL"
    # Found by the property below: a host IDNA refuses raised from httpx's URL.host (a traceback).
    assert origin_of("http://xn--bcher-kva.example ") is None
    assert _refusal(None, "http://a.example/x", "http://xn--bcher-kva.example /") == "not an http(s) URL"


class _Trickle(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for i in range(40):  # one header line every 0.2 s: 8 s before the head ends
                self.wfile.write(f"X-Slow-{i}: x\r\n".encode())
                self.wfile.flush()
                time.sleep(0.2)
            self.wfile.write(b"Content-Length: 2\r\n\r\n{}")
        except OSError:
            pass


def test_trickling_head_hits_the_total_deadline() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        start = time.monotonic()
        with pytest.raises(InputError) as info:
            fetch(f"http://127.0.0.1:{server.server_address[1]}/x", timeout=0.5, max_bytes=1000)
        assert time.monotonic() - start < 3
        assert [d.code for d in info.value.diagnostics] == ["D001"]
        assert "longer than 1 s" in info.value.diagnostics[0].message
    finally:
        server.shutdown()
        server.server_close()


_TRICKY = ["", "@", "\\", "/", "#", "?", "%2e", "%40", ".", ":", "\t", " ", "\x00", "..", "[", "]", "%00"]
_SCHEMES = st.sampled_from(
    ["http://", "https://", "HTTP://", "HtTpS://", "file://", "ftp://", "//", "http:", ""]
)
_HOSTS = st.sampled_from(
    [
        "a.example",
        "A.EXAMPLE",
        "a.example.",
        "b.example",
        "a.example.b.example",
        "127.0.0.1",
        "127.0.0.1.",
        "0x7f.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "xn--bcher-kva.example",
        "a.example@b.example",
        "b.example@a.example",
        "a.example\\@b.example",
        "",
    ]
)
_PORTS = st.sampled_from(["", ":80", ":443", ":8080", ":", ":0080", ":65536", ":x"])
_REST = st.lists(st.sampled_from([*_TRICKY, "a", "b.example", "x=1"]), max_size=6).map("".join)
_URLISH = st.tuples(_SCHEMES, st.sampled_from(["", "user:pw@", "u@"]), _HOSTS, _PORTS, _REST).map(
    "".join
) | st.text(max_size=40)
_ALLOWED = st.sampled_from(
    ["http://a.example:80", "https://a.example:443", "http://127.0.0.1:8080", "https://[::1]:443"]
)


@st.composite
def _near(draw: st.DrawFn, allowed: str) -> str:
    """A URL string close to ``allowed``: its own host (often), tricky pieces around it, or anything."""
    scheme, rest = allowed.split("://")
    host, port = rest.rsplit(":", 1)
    own = st.sampled_from(
        [
            host,
            host.upper(),
            f"{host}.",
            f"{host}:{port}",
            f"{host}:{port}0",
            f"{host}@b.example",
            f"b.example@{host}",
            f"{host}\\@b.example",
            f"{host}%2eb.example",
        ]
    )
    own_scheme = f"{scheme}://"
    pieces = (
        draw(st.sampled_from([own_scheme] * 4 + ["http://", "https://", "HTTPS://", "file://", "//"])),
        draw(st.sampled_from(["", "", "", "u@", "u:p@"])),
        draw(own if draw(st.booleans()) else _HOSTS),
        draw(st.just("") if draw(st.booleans()) else _PORTS),
        "/" + draw(_REST),
    )
    return "".join(pieces) if draw(st.integers(0, 9)) else draw(_URLISH)


def _sent_origin(url: str) -> tuple[str, str, int]:
    """Where httpx would connect for ``url``: the scheme, the Host it sends, the effective port."""
    request = httpx.Request("GET", url)
    port = request.url.port or {"http": 80, "https": 443}[request.url.scheme]
    return request.url.scheme, request.url.host, port


@settings(max_examples=500, deadline=None)
@given(data=st.data(), allowed=_ALLOWED)
def test_same_origin_never_accepts_another_origin(data: st.DataObject, allowed: str) -> None:
    url = data.draw(_near(allowed))
    if not same_origin(_canonical(allowed), url):
        return
    scheme, host, port = _sent_origin(url)
    a_scheme, rest = allowed.split("://")
    a_host, a_port = rest.rsplit(":", 1)
    assert host == a_host.strip("[]")
    assert (scheme, port) == (a_scheme, int(a_port)) or (a_scheme, int(a_port), scheme, port) == (
        "http",
        80,
        "https",
        443,
    )


@settings(max_examples=400, deadline=None)
@given(data=st.data(), allowed=_ALLOWED)
def test_an_allowed_redirect_lands_on_the_allowed_origin(data: st.DataObject, allowed: str) -> None:
    """What a redirect's Location joins to, once judged allowed, is requested on the allowed origin."""
    location = data.draw(_near(allowed) | _REST)
    from packc_runtime.calling.fetch import hop_refusal as _refusal

    scheme, rest = allowed.split("://")
    host, port = rest.rsplit(":", 1)
    base = f"{scheme}://{host}" + ("" if port in ("80", "443") else f":{port}") + "/dir/doc.json"
    try:
        target = str(httpx.URL(base).join(location))
    except (httpx.InvalidURL, ValueError):
        return
    if _refusal(_canonical(allowed), base, target) is None:
        sent_scheme, sent_host, sent_port = _sent_origin(target)
        assert sent_host == host.strip("[]")
        assert (sent_scheme, sent_port) == (scheme, int(port)) or (sent_scheme, sent_port) == ("https", 443)
