"""Fetches never reach a private address the user did not point packc at (issue 10, SSRF).

Two servers on loopback stand for the internet and this machine: the test treats 127.0.0.1 as a
public address (``_private`` patched) and 127.0.0.2 as what it is. A document "from the internet"
(on 127.0.0.1) whose ``$ref`` (with ``--allow-remote-refs``) or redirect leads to 127.0.0.2 must
not reach it, even through a name that resolves there (checked at connect time, on the address);
the user's own input on a private address, or ``--allow-private-addresses``, lets it through.
"""

from __future__ import annotations

import http.server
import ipaddress
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc.cli import main as packc_main
from packc.errors import InputError
from packc.read.frontend import read_api
from packc_runtime.calling import netguard
from packc_runtime.calling.netguard import private_fetches


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, dict[str, Any]]] = {}
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        host = self.server.server_address[0]
        self.hits.append(f"{host}{self.path}")
        route = self.routes.get(f"{host}{self.path}")
        if route is None:
            self.send_response(404)
            self.end_headers()
            return
        if "location" in route:
            self.send_response(302)
            self.send_header("Location", route["location"])
            self.end_headers()
            return
        body = json.dumps(route["json"]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(host: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer((host, 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"


@pytest.fixture()
def hosts(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """(the "public" server's base URL on 127.0.0.1, the private one's on 127.0.0.2)."""
    real = netguard._private
    monkeypatch.setattr(netguard, "_private", lambda address: address != "127.0.0.1" and real(address))
    _Handler.routes.clear()
    _Handler.hits.clear()
    public, public_url = _serve("127.0.0.1")
    private, private_url = _serve("127.0.0.2")
    try:
        yield public_url, private_url
    finally:
        for server in (public, private):
            server.shutdown()
            server.server_close()


def _doc(ref: str) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://t.example"}],
        "paths": {
            "/x": {
                "get": {
                    "operationId": "x",
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


_SECRET = {"type": "object", "description": "instance credentials from the metadata service"}


def _key(url: str) -> str:
    rest = url.removeprefix("http://")
    host, _, path = rest.partition("/")
    return f"{host.split(':')[0]}/{path}"


def test_a_public_documents_ref_never_reaches_a_private_address(hosts: tuple[str, str]) -> None:
    public, private = hosts
    _Handler.routes[_key(f"{public}/openapi.json")] = {"json": _doc(f"{private}/latest/meta-data.json")}
    _Handler.routes[_key(f"{private}/latest/meta-data.json")] = {"json": _SECRET}
    result = read_api(f"{public}/openapi.json", allow_remote_refs=True)
    assert [d.code for d in result.diagnostics] == ["D027"]
    assert (
        "127.0.0.2" in result.diagnostics[0].message
        and "--allow-private-addresses" in result.diagnostics[0].fix
    )
    assert not any(hit.startswith("127.0.0.2") for hit in _Handler.hits)
    assert "metadata" not in json.dumps(result.api.document)
    with private_fetches(True):  # what --allow-private-addresses does
        allowed = read_api(f"{public}/openapi.json", allow_remote_refs=True)
    assert "metadata" in json.dumps(allowed.api.document)


def test_a_name_resolving_to_a_private_address_is_refused_where_it_connects(
    hosts: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A public-looking name (DNS rebinding, a hostile resolver) is judged by the address it reaches."""
    public, private = hosts
    port = private.rsplit(":", 1)[1]
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.2" if host == "metadata.example" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    _Handler.routes[_key(f"{public}/openapi.json")] = {
        "location": f"http://metadata.example:{port}/openapi.json"
    }
    with pytest.raises(InputError) as info:
        read_api(f"{public}/openapi.json", allow_remote_refs=True)
    assert [d.code for d in info.value.diagnostics] == ["D027"]
    assert "metadata.example resolves to 127.0.0.2" in info.value.diagnostics[0].message
    assert not any(hit.startswith("127.0.0.2") for hit in _Handler.hits)


def test_the_users_own_private_input_and_its_refs_are_fetched(hosts: tuple[str, str]) -> None:
    """``packc compile http://127.0.0.2:PORT/openapi.json``: the user pointed packc there."""
    _, private = hosts
    _Handler.routes[_key(f"{private}/openapi.json")] = {"json": _doc("item.json")}
    _Handler.routes[_key(f"{private}/item.json")] = {"json": _SECRET}
    result = read_api(f"{private}/openapi.json")
    assert result.diagnostics == ()
    assert "metadata" in json.dumps(result.api.document)


def test_a_local_files_remote_ref_to_a_private_address_needs_the_flag(
    hosts: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, private = hosts
    _Handler.routes[_key(f"{private}/item.json")] = {"json": _SECRET}
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(_doc(f"{private}/item.json")))
    assert [d.code for d in read_api(spec, allow_remote_refs=True).diagnostics] == ["D027"]
    assert _Handler.hits == []
    out = tmp_path / "out"
    assert packc_main(["plan", str(spec), "--allow-remote-refs", "--json"]) == 0
    assert "D027" in capsys.readouterr().out
    assert packc_main(["plan", str(spec), "--allow-remote-refs", "--allow-private-addresses", "--json"]) == 0
    assert "D027" not in capsys.readouterr().out and _Handler.hits
    assert not out.exists()


@pytest.mark.parametrize(
    "address, private",
    [
        ("127.0.0.1", True),
        ("10.1.2.3", True),
        ("192.168.0.1", True),
        ("172.16.5.4", True),
        ("169.254.169.254", True),
        ("100.64.0.1", True),
        ("0.0.0.0", True),
        ("::1", True),
        ("fe80::1%eth0", True),
        ("fd00::1", True),
        ("::ffff:127.0.0.1", True),
        ("::ffff:169.254.169.254", True),
        ("8.8.8.8", False),
        ("2606:4700::1111", False),
    ],
)
def test_what_counts_as_private(address: str, private: bool) -> None:
    assert netguard._private(address) is private


@given(st.ip_addresses(v=4))
def test_an_ipv4_address_is_judged_the_same_in_every_spelling(ip: ipaddress.IPv4Address) -> None:
    """Private or not, an IPv4 address and its IPv4-mapped IPv6 form get the same answer (no bypass via ::ffff:)."""
    mapped = f"::ffff:{ip}"
    assert netguard._private(str(ip)) is netguard._private(mapped) is (not ip.is_global)
