"""Fixtures for front-end tests: the spec folder and a static file server on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

SPECS = Path(__file__).resolve().parents[2] / "specs" / "frontend"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def specs() -> Path:
    return SPECS


@pytest.fixture
def served() -> Iterator[str]:
    """Base URL of a server on 127.0.0.1 serving specs/frontend."""
    server, url = serve(SPECS)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
