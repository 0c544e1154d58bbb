"""title.live reaches an MCP client as a progress notification when it sent a progress token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcp_face.conftest import Asked
from servers.binding_pack import write_pack

from .helpers import MODES, make_server, run


@pytest.mark.parametrize("mode", MODES)
def test_a_read_reports_its_live_title_as_progress(tmp_path: Path, mode: str) -> None:
    server = make_server(write_pack(tmp_path, {"mode": "mock"}), {})
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async def body(client: Client) -> Any:
        return await client.call_tool("things.list", {}, progress_callback=progress)

    result = run(server, mode, body)
    assert result.structured_content is not None and result.structured_content["mock"] is True
    assert seen == [(0, None, "Listing things")]


@pytest.mark.parametrize("mode", MODES)
def test_a_write_reports_only_once_approved(tmp_path: Path, mode: str) -> None:
    seen: list[str | None] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    async def body(client: Client) -> Any:
        return await client.call_tool("things.create", {"name": "lamp"}, progress_callback=progress)

    declined = run(
        make_server(write_pack(tmp_path, {"mode": "mock"}), {}), mode, body, elicit=Asked("decline")
    )
    assert declined.structured_content is not None and declined.structured_content["ok"] is False
    assert seen == []
    accepted = run(
        make_server(write_pack(tmp_path, {"mode": "mock"}), {}), mode, body, elicit=Asked("accept")
    )
    assert accepted.structured_content is not None and accepted.structured_content["ok"] is True
    assert seen == ["Creating lamp"]


@pytest.mark.parametrize("mode", MODES)
def test_without_a_progress_token_the_call_is_unchanged(tmp_path: Path, mode: str) -> None:
    server = make_server(write_pack(tmp_path, {"mode": "mock"}), {})
    result = run(server, mode, lambda c: c.call_tool("things.list", {}))
    assert result.structured_content is not None and result.structured_content["ok"] is True
