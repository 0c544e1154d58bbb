"""The real faces: ``packc serve`` as a stdio subprocess and as a streamable-HTTP server on 127.0.0.1,
driven by the SDK's client in both protocol eras, against the demo server."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from .conftest import Asked

pytestmark = pytest.mark.e2e
MODES = ("legacy", "auto")  # auto: the stateless 2026-07-28 protocol, found by server/discover


def _env(extra: dict[str, str], tmp: Path) -> dict[str, str]:
    # No keyring, no credentials file: the environment is the only source.
    return {"PACKC_KEYRING": "off", "PACKC_CREDENTIALS_FILE": str(tmp / "none.json"), **extra}


@contextmanager
def http_server(
    pack_dir: Path,
    env: dict[str, str],
    *flags: str,
    seen: list[str] | None = None,
    bind: str = "127.0.0.1",
) -> Iterator[tuple[str, str]]:
    """``packc serve --http BIND:0`` in a subprocess; yields its URL and the bearer secret it printed
    ("" when it names its --token-file instead). ``seen`` collects the stderr lines read."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "packc.cli", "serve", str(pack_dir), "--http", f"{bind}:0", *flags],
        env={**os.environ, **env},
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = seen if seen is not None else []
    try:
        assert proc.stderr is not None
        url = secret = None
        for line in proc.stderr:  # the URL line, then the secret's, after any warning printed first
            lines.append(line)
            if found := re.search(r"(\d+) tools at (http://\S+:\d+/mcp)", line):
                url = found.group(2)
            if found := re.search(r"'Authorization: Bearer ([A-Za-z0-9_-]{43})'", line):
                secret = found.group(1)
            elif "the secret in" in line:
                secret = ""
            if url and secret is not None:
                break
        assert url and secret is not None, "".join(lines)
        yield url, secret
    finally:
        proc.terminate()
        proc.wait(10)


def with_bearer(url: str, secret: str) -> Callable[[], Any]:
    """A fresh client transport per Client, sending the server's secret on every request."""

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        async with (
            create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"}) as http,
            streamable_http_client(url, http_client=http) as streams,
        ):
            yield streams

    return transport


def _stdio(pack_dir: Path, env: dict[str, str], *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "packc.cli", "serve", str(pack_dir), *flags], env=env
    )


async def _scenario(target: Callable[[], Any], mode: str, demo: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    accept, decline = Asked("accept"), Asked("decline")
    async with Client(target(), mode=mode, elicitation_callback=accept) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        seen["annotations"] = {n: t.annotations for n, t in tools.items()}
        seen["read"] = await client.call_tool("pets.get", {"pet_id": 1})
        seen["write"] = await client.call_tool("pets.create", {"name": "Wire", "species": "cat"})
        seen["bad"] = await client.call_tool("pets.get", {"pet_id": "one", "extra": 1})
        seen["upstream"] = await client.call_tool("pets.get", {"pet_id": 999})
        for i in range(200):
            demo.store.pets[1000 + i] = {
                "id": 1000 + i,
                "name": "n" * 60,
                "species": "dog",
                "tag": None,
                "status": "available",
                "ownerId": None,
            }
        seen["huge"] = await client.call_tool("pets.list", {"limit": 100})
    seen["asked"] = accept.questions
    async with Client(target(), mode=mode, elicitation_callback=decline) as client:
        seen["declined"] = await client.call_tool("pets.delete", {"pet_id": 2})
    async with Client(target(), mode=mode) as client:  # no elicitation
        seen["preview"] = await client.call_tool("pets.delete", {"pet_id": 2})
    return seen


def _check(seen: dict[str, Any], demo: Any) -> None:
    a = seen["annotations"]
    assert a["pets.get"].read_only_hint is True and a["pets.delete"].destructive_hint is True
    assert all(x.open_world_hint is True and x.idempotent_hint is not None for x in a.values())
    assert seen["read"].structured_content["body"]["name"] == "Mittens"
    write = seen["write"]
    assert not write.is_error and write.structured_content["status"] == 201 and len(seen["asked"]) == 1
    assert any(p["name"] == "Wire" for p in demo.store.pets.values())
    bad = seen["bad"].structured_content["error"]
    assert seen["bad"].is_error and bad["unknown"] == ["extra"] and bad["invalid"][0]["argument"] == "pet_id"
    assert seen["upstream"].is_error and seen["upstream"].structured_content["error"]["code"] == "not_found"
    huge = seen["huge"].structured_content
    assert huge["ok"] and huge["truncated"]["limit"] == 4096 and len(huge["body"]) < 100
    for key in ("declined", "preview"):
        assert seen[key].is_error and seen[key].structured_content["error"]["code"] == "not_confirmed", key
    assert 2 in demo.store.pets  # neither the declined nor the previewed delete was sent
    assert isinstance(seen["preview"].content[0], types.TextContent)


@pytest.mark.parametrize("mode", MODES)
def test_stdio_subprocess(pack_dir: Path, demo_server: Any, tmp_path: Path, mode: str) -> None:
    env = _env({"PETSTORE_API_KEY": demo_server.api_key, "PACKC_TRUSTED_ORIGINS": demo_server.url}, tmp_path)
    params = _stdio(pack_dir, env, "--max-result-bytes", "4096")
    seen = asyncio.run(_scenario(lambda: params, mode, demo_server))
    _check(seen, demo_server)


@pytest.mark.parametrize("mode", MODES)
def test_streamable_http_server_on_loopback(
    pack_dir: Path, demo_server: Any, tmp_path: Path, mode: str
) -> None:
    env = _env({"PETSTORE_API_KEY": demo_server.api_key, "PACKC_TRUSTED_ORIGINS": demo_server.url}, tmp_path)
    with http_server(pack_dir, env, "--max-result-bytes", "4096") as (url, secret):
        seen = asyncio.run(_scenario(with_bearer(url, secret), mode, demo_server))
    _check(seen, demo_server)


def test_missing_credential_over_stdio_names_the_variable_and_connect(
    pack_dir: Path, tmp_path: Path, upstream_log: list[str]
) -> None:
    async def call() -> types.CallToolResult:
        async with Client(_stdio(pack_dir, _env({}, tmp_path))) as client:
            return await client.call_tool("pets.get", {"pet_id": 1})

    result = asyncio.run(call())
    error = result.structured_content["error"]  # type: ignore[index]
    assert result.is_error and error["code"] == "missing_credentials"
    assert "PETSTORE_API_KEY" in error["fix"] and "petstore connect" in error["fix"]
    assert upstream_log == []  # nothing reached the API


def test_the_packs_own_cli_serves_it_too(pack_dir: Path, demo_server: Any, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(pack_dir / "bin" / "petstore"), "mcp"],
        env=_env(
            {"PETSTORE_API_KEY": demo_server.api_key, "PACKC_TRUSTED_ORIGINS": demo_server.url}, tmp_path
        ),
    )

    async def call() -> types.CallToolResult:
        async with Client(params) as client:
            return await client.call_tool("pets.get", {"pet_id": 1})

    assert asyncio.run(call()).structured_content["body"]["id"] == 1  # type: ignore[index]


def test_a_pack_cli_that_is_not_served_never_imports_mcp(pack_dir: Path) -> None:
    code = (
        "import sys, runpy; sys.argv=['petstore','--help']\n"
        f"try: runpy.run_path({str(pack_dir / 'bin' / 'petstore')!r}, run_name='__main__')\n"
        "except SystemExit: pass\n"
        "assert not [m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))], 'mcp imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "petstore mcp [--http" in done.stdout
