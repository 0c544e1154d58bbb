"""A copy of the reference's ledger that lists ``mcp`` among its transports, served by ``packc serve``
over stdio to the SDK's client: a read, a write approved by a person, one declined (its bin a real
child process); over HTTP, where there is no project, a ``project`` command returns no_project."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from .conftest import Asked
from .test_mcp_transports import http_server, with_bearer

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("node") is None, reason="node bin")]
LEDGER = Path(__file__).resolve().parents[1] / "fixtures" / "ledger"


def _copy(tmp: Path, **wrap: Any) -> Path:
    pack = tmp / "ledger"
    shutil.copytree(LEDGER, pack)
    surface = json.loads((pack / "surface.json").read_text())
    surface["transports"] = ["cli", "json_exec", "mcp"]
    surface["wrap"].update(wrap)
    (pack / "surface.json").write_text(json.dumps(surface))
    return pack


def test_ledger_over_stdio(tmp_path: Path) -> None:
    pack = _copy(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "packc.cli", "serve", str(pack)],
        env={**os.environ, "PACKC_KEYRING": "off"},
    )
    accept, decline = Asked("accept"), Asked("decline")

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(params, elicitation_callback=accept) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            seen["tools"] = tools
            seen["status"] = await client.call_tool("setup.status", {})
            seen["apply"] = await client.call_tool("setup.apply", {})
            seen["pay"] = await client.call_tool("transfer", {"amount": "2.80", "payee": "demo-transit"})
        async with Client(params, elicitation_callback=decline) as client:
            seen["declined"] = await client.call_tool("transfer", {"amount": "5", "payee": "x"})
        async with Client(params) as client:
            seen["hostile"] = await client.call_tool("connect", {"provider": "--help"})
            seen["list"] = await client.call_tool("list", {})
        return seen

    seen = asyncio.run(scenario())
    assert seen["tools"]["transfer"].annotations.read_only_hint is False
    assert seen["tools"]["connect"].input_schema["required"] == ["provider"]
    assert seen["status"].structured_content["body"] == {"ready": False}
    assert seen["apply"].structured_content["body"] == {"ready": True}
    assert seen["pay"].structured_content["body"]["payee"] == "demo-transit" and len(accept.questions) == 2
    assert "Pay demo-transit" in json.dumps(accept.questions[1].model_dump(mode="json"))
    assert seen["declined"].is_error and len(seen["list"].structured_content["body"]) == 1
    assert seen["hostile"].structured_content["error"]["code"] == "invalid_argument"


def test_over_http_a_project_command_has_no_project(tmp_path: Path) -> None:
    pack = _copy(tmp_path, workspace={"mode": "project"})
    env = {"PACKC_KEYRING": "off", "HCP_PROJECT_DIR": ""}

    async def call(url: str, secret: str) -> Any:
        async with Client(with_bearer(url, secret)()) as client:
            return await client.call_tool("setup.status", {})

    with http_server(pack, env) as (url, secret):
        result = asyncio.run(call(url, secret))
    assert result.is_error and result.structured_content["error"]["code"] == "no_project"
