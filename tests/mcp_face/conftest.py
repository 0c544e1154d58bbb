"""Fixtures for the MCP server tests: the demo petstore pack compiled against the demo server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

import packc

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "demo" / "petstore.yaml"

ElicitFn = Callable[[Any, types.ElicitRequestParams], Awaitable[types.ElicitResult]]


@pytest.fixture()
def pack_dir(demo_server: Any, tmp_path: Path) -> Path:
    """The demo pack, its server URL pointing at the running demo server."""
    result = packc.compile(SPEC, out_dir=tmp_path / "packs", server=demo_server.url)
    return Path(result.packs[0].directory)


@pytest.fixture()
def env(demo_server: Any) -> dict[str, str]:
    origin = demo_server.url.rsplit("/", 1)[
        0
    ]  # the key goes to the demo server because this names its origin
    return {"PETSTORE_API_KEY": demo_server.api_key, "PACKC_TRUSTED_ORIGINS": origin}


class Asked:
    """An elicitation callback that answers with ``action`` (and ``approve``) and records the questions."""

    def __init__(self, action: str = "accept", approve: bool = True) -> None:
        self.action = action
        self.approve = approve
        self.questions: list[types.ElicitRequestParams] = []

    async def __call__(self, ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params)
        content = {"approve": self.approve} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


@pytest.fixture()
def pets_count(demo_server: Any) -> Iterator[Callable[[], int]]:
    yield lambda: len(demo_server.store.pets)


@pytest.fixture()
def upstream_log(demo_server: Any) -> Iterator[list[str]]:
    """Every request that reaches the demo API, as "METHOD /path" (to assert that nothing was sent)."""
    seen: list[str] = []
    base = demo_server.RequestHandlerClass

    class Recording(base):  # type: ignore[misc,valid-type]
        def _handle(self, method: str) -> None:
            seen.append(f"{method} {self.path.split('?')[0]}")
            super()._handle(method)

    demo_server.RequestHandlerClass = Recording
    yield seen
    demo_server.RequestHandlerClass = base
