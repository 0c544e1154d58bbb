"""Pack.acall: the same loop (retries, redirects, deadline, credentials) on httpx.AsyncClient."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from packc_runtime import Limits, load_pack
from servers import PACKS
from servers.echo_app import CLIENT_ID, CLIENT_SECRET, EchoApp

Server = tuple[EchoApp, str]
FAST = Limits(backoff=0.001, max_retry_after=1.0, deadline=5.0)


def test_acall_retries_and_reuses_one_async_pool() -> None:
    hits: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(request.method)
        return httpx.Response(
            503 if len(hits) % 3 else 200, json={"n": len(hits)}, headers={"Retry-After": "0"}
        )

    async def main() -> tuple[list[dict[str, Any]], bool]:
        async with load_pack(PACKS / "flaky", transport=httpx.MockTransport(handler), limits=FAST) as pack:
            first = await pack.acall("limits.get", {})
            pool = pack._aclient
            second = await pack.acall("limits.get", {})
            post = await pack.acall("limits.post", {}, confirm=True)
            return [first, second, post], pool is pack._aclient and pool is not None and pack._client is None

    (first, second, post), same_pool = asyncio.run(main())
    assert first["ok"] and second["ok"] and same_pool
    assert post["error"]["code"] == "upstream_error"  # POST: one attempt only
    assert hits == ["GET"] * 6 + ["POST"]


def test_acall_unconfirmed_write_sends_nothing_and_sync_only_transport_falls_back() -> None:
    seen: list[httpx.Request] = []

    class SyncOnly(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return httpx.Response(200, json={"sync": True})

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with load_pack(PACKS / "echo", transport=SyncOnly()) as pack:
            refused = await pack.acall("items.delete", {"item_id": "1"}, server="http://x.test")
            fallback = await pack.acall("items.get", {"item_id": "1"}, server="http://x.test")
            return refused, fallback

    refused, fallback = asyncio.run(main())
    assert refused["error"]["code"] == "not_confirmed" and len(seen) == 1
    assert fallback["body"] == {"sync": True}


@pytest.mark.e2e
def test_acall_end_to_end_oauth_redirect_and_deadline(echo_server: Server, other_server: Server) -> None:
    app, url = echo_server
    other_app, other_url = other_server
    env = {
        "AUTHZ_CLIENT_ID": CLIENT_ID,
        "AUTHZ_CLIENT_SECRET": CLIENT_SECRET,
        "AUTHZ_BEARER_TOKEN": "bt-async-1",
        "AUTHZ_KEY_HEADER_API_KEY": "hk-async-2",
        "AUTHZ_KEY_QUERY_API_KEY": "qk-async-3",
        "AUTHZ_KEY_COOKIE_API_KEY": "ck-async-4",
        "PACKC_TRUSTED_ORIGINS": url,
    }

    async def main() -> list[dict[str, Any]]:
        async with load_pack(PACKS / "authz", environ=env) as pack:
            oauth = await asyncio.gather(
                *(pack.acall("whoami.oauth", {}, server=url + "/api") for _ in range(3))
            )
            moved = await pack.acall(
                "redirect.go", {"to": other_url + "/api/echo/async"}, server=url + "/api"
            )
        async with load_pack(PACKS / "flaky", limits=Limits(timeout=5, deadline=1.2)) as flaky:
            slow = await flaky.acall("slow.trickle", {"n": 20, "interval": 0.3}, server=url + "/api")
        return [*oauth, moved, slow]

    before, tokens_before = len(app.log), app.tokens_issued
    started = time.monotonic()
    *oauth, moved, slow = asyncio.run(main())
    assert all(r["ok"] for r in oauth) and moved["ok"]
    protected = [s for s in app.log[before:] if s.raw_path == "/api/secure/oauth"]
    assert len(protected) == 3
    assert app.tokens_issued == tokens_before + 1  # concurrent calls share one token request
    assert all(s.headers["authorization"].startswith("Bearer tok-") for s in protected)
    arrived = other_app.log[-1]
    assert arrived.raw_path == "/api/echo/async"
    assert not any(v in str(arrived.headers) + arrived.query for v in env.values())
    assert slow["error"]["code"] == "timeout"
    assert time.monotonic() - started < 10


_COUNT_SNIFFIO = """
import asyncio, sys
from packc_runtime import load_pack
looked = []

class Spy:  # first on sys.meta_path: sees every import that is not already in sys.modules
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "sniffio":
            looked.append(name)
        return None

sys.meta_path.insert(0, Spy)

async def main():
    async with load_pack(sys.argv[1]) as pack:
        return [await pack.acall("items.get", {"item_id": "1"}, server=sys.argv[2]) for _ in range(5)]

done = asyncio.run(main())
assert all(r["ok"] for r in done), done
print(len(looked), repr(sys.modules.get("sniffio", "absent")))
"""


@pytest.mark.e2e
def test_acall_does_not_search_for_a_missing_sniffio_on_every_request(
    echo_server: Server, tmp_path: Any
) -> None:
    # httpcore runs `import sniffio` four times per async request; when it is not installed each was a
    # failed search of sys.path. The async transport records the miss once (the same ImportError).
    import os
    import subprocess
    import sys

    _, url = echo_server
    run = [sys.executable, "-c", _COUNT_SNIFFIO, str(PACKS / "echo"), url + "/api"]
    done = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "1",
        "None",
    ]  # one search when the pool is made (not 4 per call), then "None"
    (tmp_path / "sniffio.py").write_text("def current_async_library():\n    return 'asyncio'\n")
    present = subprocess.run(
        run, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(tmp_path)}
    )
    assert present.returncode == 0, present.stderr
    assert "<module 'sniffio' from" in present.stdout  # an installed sniffio is used, not hidden
