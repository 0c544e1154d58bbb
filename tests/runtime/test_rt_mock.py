"""binding.mode mock: nothing is sent, answers come from the document, writes are still confirmed."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from packc_runtime import load_pack
from servers.binding_pack import DOCUMENT, write_pack


class _NoNetwork(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """A transport that fails the test if a request ever reaches it."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"a mock pack sent {request.method} {request.url}")

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"a mock pack sent {request.method} {request.url}")


@pytest.fixture()
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a mock pack opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_a_read_answers_with_the_documents_example(tmp_path: Path, no_sockets: None) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "mock", "hub": "none"})
    with load_pack(pack_dir, transport=_NoNetwork(), environ={}) as pack:
        assert pack.slots == []
        envelope = pack.call("things.list")
    assert envelope == {
        "ok": True,
        "status": 200,
        "verb": "things.list",
        "title": "Listed things",
        "body": [{"id": 7, "name": "kettle"}],
        "mock": True,
    }


def test_without_an_injected_transport_no_socket_is_opened(tmp_path: Path, no_sockets: None) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "mock"})
    with load_pack(pack_dir, environ={}) as pack:
        assert pack.call("things.list")["mock"] is True
        assert pack.call("things.create", {"name": "lamp"}, confirm=True)["ok"] is True


def test_a_write_still_returns_its_card_then_a_value_built_from_the_schema(
    tmp_path: Path, no_sockets: None
) -> None:
    pack_dir = write_pack(tmp_path, {"mode": "mock"})
    with load_pack(pack_dir, transport=_NoNetwork(), environ={}) as pack:
        unconfirmed = pack.call("things.create", {"name": "lamp"})
        confirmed = pack.call("things.create", {"name": "lamp"}, confirm=True)
        refused = pack.call("things.create", {"name": 3}, confirm=True)
    assert unconfirmed["ok"] is False and unconfirmed["error"]["code"] == "not_confirmed"
    assert unconfirmed["error"]["preview"]["title"] == "Create lamp"
    assert "mock" not in unconfirmed
    assert confirmed == {
        "ok": True,
        "status": 201,
        "verb": "things.create",
        "title": "Created lamp",
        "body": {"id": 1, "name": "string", "tags": ["string"], "state": "new"},
        "mock": True,
    }
    assert refused["error"]["code"] == "invalid_argument"  # arguments are checked as for a real call


def test_async_calls_send_nothing_either(tmp_path: Path) -> None:  # the event loop itself needs a socketpair
    pack_dir = write_pack(tmp_path, {"mode": "mock"})

    async def run() -> dict[str, Any]:
        async with load_pack(pack_dir, transport=_NoNetwork(), environ={}) as pack:
            return dict(await pack.acall("things.list"))

    assert asyncio.run(run())["body"] == [{"id": 7, "name": "kettle"}]


def test_named_examples_recursive_schemas_and_no_content(tmp_path: Path) -> None:
    document: dict[str, Any] = {
        **DOCUMENT,
        "components": {
            **DOCUMENT["components"],
            "schemas": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "when": {"type": "string", "format": "date-time"},
                        "next": {"$ref": "#/components/schemas/Node"},
                    },
                }
            },
        },
        "paths": {
            "/things": {
                "get": {
                    **DOCUMENT["paths"]["/things"]["get"],
                    "responses": {
                        "200": {
                            "description": "named",
                            "content": {
                                "application/json": {
                                    "examples": {"one": {"value": {"named": True}}},
                                    "schema": {"type": "object"},
                                }
                            },
                        }
                    },
                },
                "post": {
                    **DOCUMENT["paths"]["/things"]["post"],
                    "responses": {
                        "201": {
                            "description": "a chain",
                            "content": {
                                "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
                            },
                        }
                    },
                },
            }
        },
    }
    pack_dir = write_pack(tmp_path, {"mode": "mock"}, document=document)
    with load_pack(pack_dir, transport=_NoNetwork(), environ={}) as pack:
        assert pack.call("things.list")["body"] == {"named": True}
        chain = pack.call("things.create", {"name": "x"}, confirm=True)["body"]
    depth = 0
    while isinstance(chain, dict) and chain.get("next") is not None:
        assert chain["when"] == "2024-01-01T00:00:00Z"
        chain, depth = chain["next"], depth + 1
    assert 1 < depth < 12  # a recursive schema ends


def test_the_pack_cli_says_it_is_a_mock(tmp_path: Path, no_sockets: None) -> None:
    import io
    import json

    from packc_runtime.faces.cli import pack_main

    pack_dir = write_pack(tmp_path, {"mode": "mock"})
    out, err = io.StringIO(), io.StringIO()
    assert pack_main(pack_dir, ["list"], stdout=out, stderr=err) == 0
    assert json.loads(out.getvalue()) == [{"id": 7, "name": "kettle"}]
    assert "mock: answered from the pack's document; nothing was sent" in err.getvalue()
    out = io.StringIO()
    assert pack_main(pack_dir, ["create", "--name", "lamp", "--json"], stdout=out, stderr=io.StringIO()) == 4
    assert json.loads(out.getvalue())["error"]["preview"]["title"] == "Create lamp"
