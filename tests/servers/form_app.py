"""A Stripe-like test API: decodes form bodies with brackets the way Rack (and so Stripe) does.

``rack_parse`` (tools/conformance_forms.py, shared with the conformance run) follows
``Rack::Utils.parse_nested_query``: ``a[b]=1`` nests a hash, ``a[]=1`` appends to an array,
``a[0]=1`` is a hash keyed ``"0"`` (Stripe turns an integer-keyed hash into an array where its
schema has one: ``stripe_arrays``). Multipart parts are decoded the same way,
by their names. Each request's decoded params are kept in ``app.seen`` and echoed back as JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from conformance_forms import rack_parse, stripe_arrays

__all__ = ["FormApp", "body_pairs", "rack_parse", "stripe_arrays"]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def body_pairs(content_type: str, body: bytes) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of a urlencoded or multipart body (file parts: their filename)."""
    if not body:
        return []
    if content_type.startswith("application/x-www-form-urlencoded"):
        return parse_qsl(body.decode("ascii"), keep_blank_values=True, strict_parsing=bool(body))
    raw = f"Content-Type: {content_type}\r\n\r\n".encode() + body
    out: list[tuple[str, str]] = []
    for part in BytesParser(policy=HTTP).parsebytes(raw).iter_parts():
        name = str(part.get_param("name", header="content-disposition"))
        payload = part.get_payload(decode=True)
        out.append((name, part.get_filename() or (payload.decode() if isinstance(payload, bytes) else "")))
    return out


@dataclass
class FormApp:
    """Answers every request with the params it decoded; ``seen`` keeps (path, content type, params),
    ``headers`` each request's headers (lower-case names)."""

    seen: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        content_type = headers.get("content-type", "")
        self.headers.append(headers)
        try:
            params = rack_parse(body_pairs(content_type, body))
        except (ValueError, UnicodeDecodeError) as exc:
            await _answer(send, 400, {"error": {"message": f"undecodable body: {exc}"}})
            return
        self.seen.append((scope["path"], content_type, params))
        await _answer(send, 200, {"object": "payment_intent", "params": params})


async def _answer(send: Send, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})
