"""Fixtures for the demo tests: the demo server on a free port, and openapi-core over the demo spec."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml
from openapi_core import OpenAPI  # noqa: TID251 - tests may use openapi-core
from openapi_core.datatypes import RequestParameters  # noqa: TID251
from werkzeug.datastructures import Headers, ImmutableMultiDict

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "specs" / "demo" / "petstore.yaml"
SERVER = ROOT / "specs" / "demo" / "server.py"


def load_module(path: Path, name: str) -> ModuleType:
    """Import a script by path (specs/ and tools/ are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def server(demo_server: Any) -> Any:
    """The demo server (the shared ``demo_server`` fixture of tests/conftest.py)."""
    return demo_server


@pytest.fixture()
def client(server: Any) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers={"X-API-Key": server.api_key}, timeout=5) as c:
        yield c


class _Request:
    """An httpx request seen through openapi-core's Request protocol."""

    def __init__(self, request: httpx.Request) -> None:
        self.host_url = f"{request.url.scheme}://{request.url.netloc.decode()}"
        self.path = request.url.path
        self.method = request.method.lower()
        self.body: bytes | None = request.content or None
        self.content_type = request.headers.get("content-type", "").lower()
        self.parameters = RequestParameters(
            query=ImmutableMultiDict(request.url.params.multi_items()),
            header=Headers(dict(request.headers)),
        )


class _Response:
    def __init__(self, response: httpx.Response) -> None:
        self.status_code = response.status_code
        self.content_type = response.headers.get("content-type", "").lower()
        self.headers = Headers(dict(response.headers))
        self.data: bytes | None = response.content


class SpecChecker:
    """Validates real requests and answers against petstore.yaml, served at the test server's URL."""

    def __init__(self, base_url: str) -> None:
        document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
        document["servers"] = [{"url": base_url}]
        self.openapi = OpenAPI.from_dict(document)

    def check(self, response: httpx.Response) -> None:
        """Both the request and the answer must match the document."""
        self.openapi.validate_request(_Request(response.request))
        self.check_response(response)

    def check_response(self, response: httpx.Response) -> None:
        """The answer must match the document (for requests that are wrong on purpose)."""
        self.openapi.validate_response(_Request(response.request), _Response(response))


@pytest.fixture()
def spec_checker(server: Any) -> SpecChecker:
    return SpecChecker(server.url)
