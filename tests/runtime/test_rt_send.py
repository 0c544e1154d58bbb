"""Sending: retries and backoff, Retry-After, caps, redirects without credentials, results (MockTransport)."""

from __future__ import annotations

import gzip
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from packc_runtime import Limits, load_pack
from packc_runtime.calling.send import Sender, parse_retry_after
from servers import PACKS

FAST = Limits(backoff=0.001, max_retry_after=1.0, deadline=5.0)


def flaky_pack(handler: Any, limits: Limits = FAST) -> Any:
    return load_pack(PACKS / "flaky", transport=httpx.MockTransport(handler), limits=limits)


def test_retry_after_parsing() -> None:
    now = datetime(2030, 1, 1, tzinfo=UTC)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=90)), now=now.timestamp()) == 90.0
    assert parse_retry_after(format_datetime(now - timedelta(days=1)), now=now.timestamp()) == 0.0
    assert parse_retry_after("99999999999999999999999") == float("inf")
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-5") is None
    assert parse_retry_after("") is None


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_idempotent_get_is_retried_on_retryable_statuses(status: int) -> None:
    hits = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(request)
        return httpx.Response(
            status if len(hits) < 3 else 200, json={"n": len(hits)}, headers={"Retry-After": "0"}
        )

    with flaky_pack(handler) as pack:
        envelope = pack.call("limits.get", {})
    assert envelope["ok"] and envelope["body"] == {"n": 3}
    assert len(hits) == 3


def test_retries_give_up_with_a_stable_code() -> None:
    hits = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(request)
        return httpx.Response(503, json={"down": True})

    with flaky_pack(handler) as pack:
        envelope = pack.call("limits.get", {})
    assert envelope["error"]["code"] == "upstream_error"
    assert envelope["status"] == 503
    assert len(hits) == 1 + FAST.retries


def test_post_is_never_retried_unless_declared_idempotent() -> None:
    hits: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(request.method)
        return httpx.Response(503)

    with flaky_pack(handler) as pack:
        assert pack.call("limits.post", {}, confirm=True)["error"]["code"] == "upstream_error"
        assert hits == ["POST"]
        hits.clear()
        pack.call("limits.patch", {}, confirm=True)  # x-packc-binding.idempotent: true
        assert hits == ["PATCH"] * 3
        hits.clear()
        pack.call("limits.put", {}, confirm=True)  # PUT is idempotent by method
        assert hits == ["PUT"] * 3


def test_dropped_keepalive_connection_is_retried_for_get_only() -> None:
    hits: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(request.method)
        if len(hits) == 1:
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        return httpx.Response(200, json={"ok": 1})

    with flaky_pack(handler) as pack:
        assert pack.call("limits.get", {})["ok"]
        hits.clear()
        envelope = pack.call("limits.post", {}, confirm=True)
    assert envelope["error"]["code"] == "connection_failed"
    assert hits == ["POST"]


def test_absurd_or_long_retry_after_neither_hangs_nor_crashes() -> None:
    for value in ("99999999999999999999", "31", "Wed, 01 Jan 3000 00:00:00 GMT", "garbage", "-1"):
        hits = []

        def handler(request: httpx.Request, value: str = value, hits: list[int] = hits) -> httpx.Response:
            hits.append(1)
            return httpx.Response(429, json={}, headers={"Retry-After": value})

        started = time.monotonic()
        with flaky_pack(handler) as pack:
            envelope = pack.call("limits.get", {})
        assert time.monotonic() - started < 2
        assert envelope["error"]["code"] == "rate_limited"
        if value in ("garbage", "-1"):
            assert len(hits) == 3  # unusable header: plain backoff
        else:
            assert len(hits) == 1  # longer than max_retry_after: reported, not waited for


def test_decompression_is_capped() -> None:
    bomb = gzip.compress(b"0" * (8 * 1024 * 1024))
    assert len(bomb) < 20_000

    class Streamed(httpx.SyncByteStream):
        def __iter__(self) -> Any:
            yield bomb

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"}, stream=Streamed()
        )

    with flaky_pack(handler, Limits(max_response_bytes=1000)) as pack:
        envelope = pack.call("bad.bomb", {})
    assert envelope["ok"]
    assert envelope["truncated"] == {"limit": 1000}
    assert envelope["body"].startswith("0" * 1000)
    assert envelope["body"].endswith("[packc: response cut at 1000 bytes]")


def test_status_codes_map_to_stable_error_codes() -> None:
    expected = {
        400: "request_rejected",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        409: "request_rejected",
        500: "upstream_error",
    }
    for status, code in expected.items():
        with flaky_pack(lambda r, s=status: httpx.Response(s, json={"why": "x"})) as pack:
            envelope = pack.call("status.get", {"code": status})
        assert envelope["ok"] is False and envelope["status"] == status
        assert envelope["error"]["code"] == code
        assert envelope["error"]["body"] == {"why": "x"}


def test_invalid_json_text_and_binary_bodies(tmp_path: Any) -> None:
    with flaky_pack(
        lambda r: httpx.Response(200, content=b'{"a": ', headers={"Content-Type": "application/json"})
    ) as p:
        envelope = p.call("bad.json", {})
    assert envelope["error"]["code"] == "invalid_response" and envelope["status"] == 200
    with flaky_pack(lambda r: httpx.Response(200, text="plain words")) as p:
        assert p.call("bad.json", {})["body"] == "plain words"
    blob = bytes(range(256))
    with flaky_pack(
        lambda r: httpx.Response(
            200,
            content=blob,
            headers={
                "Content-Type": "application/octet-stream",
                "Content-Disposition": 'attachment; filename="../x/../../a b.bin"',
            },
        )
    ) as p:
        body = p.call("files.get", {})["body"]
    assert body["bytes"] == 256 and body["contentType"] == "application/octet-stream"
    saved = __import__("pathlib").Path(body["file"])
    assert saved.read_bytes() == blob
    assert saved.parent == tmp_path / "downloads"
    assert saved.name.startswith("files.get-") and saved.name.endswith(".bin")  # never the server's name
    assert body["suggestedName"] == "a_b.bin"


def _redirecting(location: str, status: int = 302) -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/api/redirect":
            return httpx.Response(status, headers={"Location": location})
        return httpx.Response(200, json={"landed": str(request.url)})

    return seen, httpx.MockTransport(handler)


ALL_CREDS = {
    "AUTHZ_KEY_HEADER_API_KEY": "hdr-secret-1",
    "AUTHZ_KEY_QUERY_API_KEY": "qry-secret-2",
    "AUTHZ_KEY_COOKIE_API_KEY": "cke-secret-3",
    "AUTHZ_BEARER_TOKEN": "brr-secret-4",
}


def test_cross_origin_redirect_carries_no_credentials() -> None:
    seen, transport = _redirecting("http://other.test:9999/landing?x=1", 307)
    with load_pack(PACKS / "authz", transport=transport, environ=ALL_CREDS, limits=FAST) as pack:
        envelope = pack.call("redirect.go", {"to": "ignored"})
    assert envelope["ok"], envelope
    first, second = seen
    assert first.headers["X-API-Key"] == "hdr-secret-1" and "sid=cke-secret-3" in first.headers["Cookie"]
    assert (
        b"api_key=qry-secret-2" in first.url.query and first.headers["Authorization"] == "Bearer brr-secret-4"
    )
    assert second.url.host == "other.test"
    for name in ("X-API-Key", "Authorization", "Cookie"):
        assert name not in second.headers
    assert not any(secret in str(second.url) + str(second.headers.raw) for secret in ALL_CREDS.values())


def test_same_origin_redirect_keeps_credentials_and_303_becomes_get() -> None:
    seen, transport = _redirecting("/api/echo/landed", 303)
    with load_pack(PACKS / "authz", transport=transport, environ=ALL_CREDS, limits=FAST) as pack:
        envelope = pack.call("redirect.go", {"to": "x"})
    assert envelope["ok"]
    assert seen[1].url.path == "/api/echo/landed" and seen[1].method == "GET"
    assert seen[1].headers["X-API-Key"] == "hdr-secret-1"


@pytest.mark.parametrize("location", ["file:///etc/passwd", "javascript:alert(1)"])
def test_redirect_to_non_http_scheme_is_refused(location: str) -> None:
    _, transport = _redirecting(location)
    with load_pack(PACKS / "authz", transport=transport, environ=ALL_CREDS, limits=FAST) as pack:
        envelope = pack.call("redirect.go", {"to": "x"})
    assert envelope["error"]["code"] == "unsafe_redirect"


def test_redirect_loops_end() -> None:
    _, transport = _redirecting("/api/redirect")
    with load_pack(PACKS / "authz", transport=transport, environ=ALL_CREDS, limits=FAST) as pack:
        envelope = pack.call("redirect.go", {"to": "x"})
    assert envelope["error"]["code"] == "invalid_response"
    assert "redirects" in envelope["error"]["message"]


def test_one_client_is_reused_across_calls() -> None:
    with flaky_pack(lambda r: httpx.Response(200, json={})) as pack:
        pack.call("bad.json", {})
        first = pack._client
        pack.call("bad.json", {})
        assert pack._client is first and first is not None
    assert pack._client is None


def test_sender_repr_shows_no_secrets() -> None:
    sender = Sender(httpx.Client(), FAST)
    assert "Limits" in repr(sender)


def test_error_status_with_broken_json_keeps_its_status_code() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, content=b"<html>oops", headers={"Content-Type": "application/json"})

    with flaky_pack(handler) as pack:
        envelope = pack.call("status.get", {"code": 500})
    assert envelope["error"]["code"] == "upstream_error" and envelope["error"]["body"] == "<html>oops"


def test_http_date_retry_after_is_waited_and_the_deadline_caps_waits() -> None:
    from email.utils import formatdate

    answers = iter(
        [
            httpx.Response(429, headers={"Retry-After": formatdate(time.time() + 2, usegmt=True)}),
            httpx.Response(200, json={}),
        ]
    )
    slept: list[float] = []
    client = httpx.Client(transport=httpx.MockTransport(lambda r: next(answers)))
    sender = Sender(client, Limits(max_retry_after=5.0, deadline=10.0), sleep=slept.append)
    received = sender.send(httpx.Request("GET", "http://api.test/x"), retry=True)
    assert received.status == 200 and received.attempts == 2
    assert (
        len(slept) == 1 and 0.5 < slept[0] <= 2.0
    )  # an HTTP date, seconds from now (whole-second precision)
    slept.clear()
    late = Sender(
        httpx.Client(
            transport=httpx.MockTransport(lambda r: httpx.Response(503, headers={"Retry-After": "2"}))
        ),
        Limits(deadline=1.0),
        sleep=slept.append,
    )
    assert late.send(httpx.Request("GET", "http://api.test/x"), retry=True).status == 503
    assert slept == []  # waiting 2 s would pass the 1 s deadline: no retry
