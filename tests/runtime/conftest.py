"""Fixtures for the runtime tests: fixture packs, the echo test server, a clean credential setup."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:  # tests/servers is imported as the package ``servers``
    sys.path.insert(0, str(TESTS))

from servers import FIXTURE_ORIGIN  # noqa: E402
from servers.echo_app import EchoApp  # noqa: E402
from servers.runner import serve  # noqa: E402

PACKS = TESTS / "fixtures" / "packs"  # also servers.PACKS


def _fixture_variables() -> list[str]:
    from packc_runtime import load_pack

    names: set[str] = set()
    for pack in ("authz", "echo", "flaky"):
        with load_pack(PACKS / pack, environ={}) as loaded:
            names.update(slot.env for slot in loaded.slots)
    return sorted(names)


FIXTURE_VARIABLES = _fixture_variables()


@pytest.fixture(autouse=True)
def _isolated_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the real keyring, credentials file or environment credentials.

    The fixture packs' variables are approved for their document's origin (``FIXTURE_ORIGIN``), as
    ``connect --approve-env`` would record it: tests of requests pass credentials in ``environ``.
    Tests of the approval itself remove the approvals file, or use another origin.
    """
    from packc_runtime.credentials.store import approve_env

    monkeypatch.setenv("PACKC_KEYRING", "off")
    monkeypatch.setenv("PACKC_CREDENTIALS_FILE", str(tmp_path / "creds" / "credentials.json"))
    monkeypatch.delenv("PACKC_TRUSTED_ORIGINS", raising=False)
    approve_env(FIXTURE_VARIABLES, [FIXTURE_ORIGIN])
    monkeypatch.setenv("PACKC_DOWNLOAD_DIR", str(tmp_path / "downloads"))
    for prefix in ("ECHO_", "AUTHZ_", "FLAKY_"):
        for name in [k for k in list(__import__("os").environ) if k.startswith(prefix)]:
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def echo_server() -> Iterator[tuple[EchoApp, str]]:
    """The echo API on a free port of 127.0.0.1: ``(app, base URL)``."""
    app = EchoApp()
    with serve(app) as url:
        yield app, url


@pytest.fixture(scope="session")
def other_server() -> Iterator[tuple[EchoApp, str]]:
    """A second echo API on another port: another origin, for redirect tests."""
    app = EchoApp()
    with serve(app) as url:
        yield app, url
