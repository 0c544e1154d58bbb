"""Over the real faces (a stdio subprocess and the streamable-HTTP server on 127.0.0.1, both protocol
eras): a cancelled approval, an upstream 5xx and a missing credential, each checked against what
reached the API (nothing, or exactly the one request that was approved)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import packc

from .conftest import SPEC, Asked
from .test_mcp_transports import _env, _stdio, http_server, with_bearer

pytestmark = pytest.mark.e2e
FACES = [("stdio", "legacy"), ("stdio", "auto"), ("http", "legacy"), ("http", "auto")]


class _Failing(BaseHTTPRequestHandler):
    """An API whose every GET answers 500 and every other method 503 (neither retried for these verbs)."""

    server: Any
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.server.seen.append(f"{self.command} {self.path.split('?')[0]}")
        status = 500 if self.command == "GET" else 503
        body = json.dumps({"code": "down", "message": f"upstream {status}"}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = do_PATCH = do_PUT = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture()
def failing_api() -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(5)


def _run_face(
    face: str, pack_dir: Path, env: dict[str, str], mode: str, body: Callable[[Callable[[], Any]], Any]
) -> Any:
    """``body(target)`` against ``packc serve`` over ``face``; ``target()`` gives a fresh client target."""
    if face == "stdio":
        params = _stdio(pack_dir, env)
        return asyncio.run(body(lambda: params))
    with http_server(pack_dir, env) as (url, secret):
        return asyncio.run(body(with_bearer(url, secret)))


@pytest.mark.parametrize(("face", "mode"), FACES)
def test_cancel_and_upstream_5xx_over_the_wire(
    face: str, mode: str, failing_api: Any, tmp_path: Path
) -> None:
    base = f"http://127.0.0.1:{failing_api.server_address[1]}/v1"
    pack_dir = Path(packc.compile(SPEC, out_dir=tmp_path / "packs", server=base).packs[0].directory)
    env = _env({"PETSTORE_API_KEY": "k" * 20, "PACKC_TRUSTED_ORIGINS": base}, tmp_path)
    seen: list[str] = failing_api.seen

    async def body(target: Callable[[], Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        cancel, accept = Asked("cancel"), Asked("accept")
        async with Client(target(), mode=mode, elicitation_callback=cancel) as client:
            out["cancelled"] = await client.call_tool("pets.delete", {"pet_id": 2})
            out["after_cancel"] = list(seen)
        async with Client(target(), mode=mode, elicitation_callback=accept) as client:
            out["write"] = await client.call_tool("pets.create", {"name": "Down", "species": "cat"})
            out["read"] = await client.call_tool("pets.get", {"pet_id": 1})
        out["asked"] = len(cancel.questions), len(accept.questions)
        return out

    out = _run_face(face, pack_dir, env, mode, body)
    cancelled = out["cancelled"].structured_content
    assert out["cancelled"].is_error and cancelled["error"]["code"] == "not_confirmed"
    assert cancelled["error"]["declined"] == "cancel" and "nothing was sent" in cancelled["error"]["message"]
    assert out["after_cancel"] == [] and out["asked"] == (1, 1)
    write, read = out["write"].structured_content, out["read"].structured_content
    assert out["write"].is_error and write["status"] == 503 and write["error"]["code"] == "upstream_error"
    assert out["read"].is_error and read["status"] == 500 and read["error"]["code"] == "upstream_error"
    assert "upstream 503" in out["write"].content[0].text
    assert seen == ["POST /v1/pets", "GET /v1/pets/1"]  # the approved write once (a POST is not retried)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_missing_credential_over_http_sends_nothing(
    mode: str, pack_dir: Path, demo_server: Any, tmp_path: Path, upstream_log: list[str]
) -> None:
    async def body(target: Callable[[], Any]) -> tuple[Any, Any]:
        async with Client(target(), mode=mode, elicitation_callback=Asked("accept")) as client:
            return (
                await client.call_tool("pets.get", {"pet_id": 1}),
                await client.call_tool("pets.create", {"name": "Nokey", "species": "dog"}),
            )

    read, write = _run_face("http", pack_dir, _env({}, tmp_path), mode, body)
    for result in (read, write):
        error = result.structured_content["error"]
        assert result.is_error and error["code"] == "missing_credentials", error
        assert "PETSTORE_API_KEY" in error["fix"] and "petstore connect" in error["fix"]
    assert upstream_log == []
