"""Drive a PackServer through the SDK's in-process client, in either protocol era."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx
from mcp import Client

from packc_runtime import load_pack
from packc_runtime.faces.mcp._server import PackServer

T = TypeVar("T")
#: The handshake era (initialize; elicitation as a server-to-client request) and the stateless one
#: (elicitation as an input_required result answered by a retried call).
MODES = ("legacy", "2026-07-28")


def make_server(
    pack_dir: Path,
    env: Mapping[str, str],
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    **options: Any,
) -> PackServer:
    return PackServer([load_pack(pack_dir, environ=env, transport=transport)], **options)


def run(server: PackServer, mode: str, body: Callable[[Client], Awaitable[T]], *, elicit: Any = None) -> T:
    """Run ``body(client)`` against ``server`` over a fresh in-process connection."""

    async def main() -> T:
        try:
            async with Client(server.server, mode=mode, elicitation_callback=elicit) as client:
                return await body(client)
        finally:
            await server.aclose()

    return asyncio.run(main())
