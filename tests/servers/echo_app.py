"""An ASGI test API for the runtime: echoes requests, redirects, rate-limits, trickles, misbehaves.

Every route lives under ``/api`` except the OAuth2 token endpoint ``/oauth/token``. Each app
instance records the requests it received (``app.log``), so a test can check what reached it.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

CLIENT_ID = "client-abc"
CLIENT_SECRET = "s3cret-client-value"


@dataclass
class Seen:
    """One request as the server saw it."""

    method: str
    raw_path: str
    query: str
    headers: dict[str, str]
    body: bytes


@dataclass
class EchoApp:
    """The test API; ``log`` holds every request received, ``counters`` per-key hit counts."""

    log: list[Seen] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    tokens_issued: int = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers: dict[str, str] = {}
        for key, value in scope["headers"]:
            name = key.decode("latin-1")
            headers[name] = (
                headers[name] + ", " + value.decode("latin-1") if name in headers else value.decode("latin-1")
            )
        raw_path = scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        seen = Seen(scope["method"], raw_path, scope["query_string"].decode("latin-1"), headers, body)
        self.log.append(seen)
        await self.route(seen, send)

    async def route(self, seen: Seen, send: Send) -> None:
        path = seen.raw_path
        query = {k: v[-1] for k, v in parse_qs(seen.query).items()}
        if path == "/oauth/token":
            return await self.token(seen, send)
        if path.startswith("/api/echo") or path.startswith("/api/secure"):
            return await _json(send, 200, echo(seen))
        if path == "/api/redirect":
            status = int(query.get("status", "302"))
            return await _send(
                send, status, b"", [(b"location", query.get("to", "/api/echo/landed").encode())]
            )
        if path == "/api/ratelimit":
            key = query.get("key", "default")
            self.counters[key] = self.counters.get(key, 0) + 1
            if self.counters[key] <= int(query.get("n", "1")):
                return await _json(
                    send,
                    int(query.get("status", "429")),
                    {"error": "slow down"},
                    [(b"retry-after", query.get("after", "0").encode())],
                )
            return await _json(send, 200, {"hits": self.counters[key]})
        if path.startswith("/api/status/"):
            code = int(path.rsplit("/", 1)[1])
            return await _json(send, code, {"status": code, "detail": "as asked"})
        if path == "/api/trickle":
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]}
            )
            for _ in range(int(query.get("n", "10"))):
                await send({"type": "http.response.body", "body": b"x", "more_body": True})
                await asyncio.sleep(float(query.get("interval", "0.5")))
            return await send({"type": "http.response.body", "body": b"", "more_body": False})
        if path == "/api/sleep":
            await asyncio.sleep(float(query.get("seconds", "1")))
            return await _json(send, 200, {"slept": True})
        if path == "/api/invalid-json":
            return await _send(send, 200, b'{"half": ', [(b"content-type", b"application/json")])
        if path == "/api/bomb":
            size = int(query.get("mb", "20")) * 1024 * 1024
            payload = gzip.compress(b"0" * size, compresslevel=9)
            return await _send(
                send, 200, payload, [(b"content-type", b"text/plain"), (b"content-encoding", b"gzip")]
            )
        if path == "/api/binary":
            return await _send(
                send,
                200,
                bytes(range(256)) * 4,
                [
                    (b"content-type", b"application/octet-stream"),
                    (b"content-disposition", b'attachment; filename="../../etc/blob.bin"'),
                ],
            )
        return await _json(send, 404, {"error": "no route", "path": path})

    async def token(self, seen: Seen, send: Send) -> None:
        expected = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        form = parse_qs(seen.body.decode())
        if seen.headers.get("authorization") != f"Basic {expected}" or form.get("grant_type") != [
            "client_credentials"
        ]:
            return await _json(send, 401, {"error": "invalid_client"})
        self.tokens_issued += 1
        return await _json(
            send,
            200,
            {
                "access_token": f"tok-{self.tokens_issued}-xyz",
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": form.get("scope", [""])[0],
            },
        )


def echo(seen: Seen) -> dict[str, Any]:
    """What the echo routes answer: the request as received."""
    try:
        body: Any = seen.body.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        body, encoding = base64.b64encode(seen.body).decode(), "base64"
    return {
        "method": seen.method,
        "path": seen.raw_path,
        "query": seen.query,
        "headers": seen.headers,
        "body": body,
        "bodyEncoding": encoding,
    }


async def _send(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, data: Any, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await _send(
        send, status, json.dumps(data).encode(), [(b"content-type", b"application/json"), *(headers or [])]
    )
