"""The sync deadline rests on httpx's private ``HTTPTransport._pool``: an httpx that moves it must fail loudly.

``transport._deadline_transport`` replaces httpx's connection pool with one over a network backend
that bounds every socket wait by the call's deadline. httpx has no public way to do that, so an
httpx that kept its pool under another name would silently go on using its own pool, and a server
trickling its head would again hold a call far past its deadline. These tests pin the attribute
path (the pool httpx uses is the one packc put there, and requests really go through the deadline
backend) and check that a transport without it refuses to send instead of sending unbounded.
"""

from __future__ import annotations

import http.server
import ssl
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import httpcore
import httpx
import pytest

from packc_runtime import load_pack
from packc_runtime.calling import transport
from servers import PACKS


class _Ok(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture()
def url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_httpx_keeps_its_pool_where_the_deadline_backend_is_put() -> None:
    plain = httpx.HTTPTransport()
    assert isinstance(plain._pool, httpcore.ConnectionPool)  # the attribute path the runtime relies on
    bounded = transport._deadline_transport(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    assert isinstance(bounded._pool, httpcore.ConnectionPool)
    assert isinstance(bounded._pool._network_backend, transport._DeadlineBackend)


def test_every_sync_request_connects_through_the_deadline_backend(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """httpx really sends over the pool packc put in ``_pool`` (not a pool of its own kept elsewhere)."""
    connected: list[tuple[str, int]] = []
    original = transport._DeadlineBackend.connect_tcp

    def counting(self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        connected.append((host, port))
        return original(self, host, port, *args, **kwargs)

    monkeypatch.setattr(transport._DeadlineBackend, "connect_tcp", counting)
    with load_pack(PACKS / "flaky") as pack:
        envelope = pack.call("limits.get", {}, server=url)
    assert envelope["ok"], envelope
    assert connected and connected[0][0] == "127.0.0.1" and _Ok.hits


def test_an_httpx_without_the_pool_attribute_refuses_to_send(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulates an httpx upgrade that renamed ``_pool``: loud, and nothing reaches the server."""
    original_init = httpx.HTTPTransport.__init__

    def moved(self: httpx.HTTPTransport, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self._pool_v2 = self.__dict__.pop("_pool")  # type: ignore[attr-defined]

    monkeypatch.setattr(httpx.HTTPTransport, "__init__", moved)
    with pytest.raises(transport.PoolMoved, match=r"HTTPTransport\._pool"):
        transport._deadline_transport(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
    before = len(_Ok.hits)
    lazy = transport.LazyTLSTransport()
    with pytest.raises(transport.PoolMoved):
        lazy.handle_request(httpx.Request("GET", url + "/limits"))
    lazy.close()
    assert len(_Ok.hits) == before
