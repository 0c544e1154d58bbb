"""Fixtures for the OAuth2 sign-in tests: a clean credential setup, the authlib server, a compiled pack."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from oauth_server import TestAuthServer, document, running  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the real keyring, credentials file or environment credentials."""
    monkeypatch.setenv("PACKC_KEYRING", "off")
    monkeypatch.setenv("PACKC_CREDENTIALS_FILE", str(tmp_path / "creds" / "credentials.json"))
    monkeypatch.delenv("PACKC_TRUSTED_ORIGINS", raising=False)
    for name in [k for k in __import__("os").environ if k.startswith("TASKS_")]:
        monkeypatch.delenv(name)


@pytest.fixture()
def auth_server() -> Iterator[TestAuthServer]:
    server = TestAuthServer()
    with running(server):
        yield server


@pytest.fixture()
def pack_dir(tmp_path: Path, auth_server: TestAuthServer) -> Path:
    from packc import compile as compile_api

    source = tmp_path / "tasks.json"
    source.write_text(json.dumps(document(auth_server.url, device=True)), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    return directory


def compiled(tmp_path: Path, doc: dict[str, Any], name: str = "tasks") -> Path:
    """``doc`` compiled to a pack under ``tmp_path``; the pack's directory."""
    from packc import compile as compile_api

    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(doc), "utf-8")
    directory = compile_api(source, tmp_path / f"{name}-packs").packs[0].directory
    assert directory is not None
    return directory


@pytest.fixture()
def oidc_pack_dir(tmp_path: Path, auth_server: TestAuthServer) -> Path:
    return compiled(tmp_path, document(auth_server.url, oidc=True), "oidc")


@pytest.fixture()
def compile_doc(tmp_path: Path) -> Callable[..., Path]:
    """Compile a document (a dict) to a pack: ``compile_doc(doc, name)`` -> the pack's directory."""
    return lambda doc, name="tasks": compiled(tmp_path, doc, name)
