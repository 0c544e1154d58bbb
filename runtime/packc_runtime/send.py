"""Send one request: overall deadline, capped decompression, retries with backoff, safe redirects."""

from __future__ import annotations

import email.utils
import math
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import NamedTuple

import httpx

from .errors import ConnectionFailed, InvalidResponse, Timeout, UnsafeRedirect

__all__ = ["LazyTLSTransport", "Limits", "Received", "Sender", "origin", "parse_retry_after"]

RETRY_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Headers that may carry credentials; dropped on any redirect to another origin.
_ALWAYS_CREDENTIAL = frozenset({"authorization", "proxy-authorization", "cookie"})
# Errors after which the request may not have reached the server, or a kept-alive socket dropped.
_RETRY_ERRORS = (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError,
                 httpx.CloseError)


class Limits(NamedTuple):
    """Time and size limits of a call (seconds and bytes); all documented in docs/runtime.md."""

    timeout: float = 10.0  # inactivity timeout for connect/read/write/pool
    deadline: float = 30.0  # overall per call, retries and redirects included
    max_response_bytes: int = 10 * 1024 * 1024  # after decompression; the rest is cut
    retries: int = 2  # extra attempts for idempotent requests
    backoff: float = 0.25  # first backoff; doubles per attempt
    max_retry_after: float = 30.0  # longer Retry-After values are not waited for
    max_redirects: int = 5


class Received(NamedTuple):
    """A finished response: status, headers, the decoded (and possibly cut) body, final URL."""

    status: int
    headers: httpx.Headers
    content: bytes
    truncated: bool
    url: str
    attempts: int


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and effective port: what credentials are bound to."""
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, port


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None if unusable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value) if len(value) < 12 else math.inf
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


class LazyTLSTransport(httpx.BaseTransport):
    """The default transport, but the verifying TLS context is built on the first https request.

    Building it (loading the CA bundle) costs more than importing httpx; a call to an http://
    server (a local mock, a staging box) never needs it. Plain-http requests get a context that
    holds no CA certificates, which httpx never uses for them.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plain: httpx.HTTPTransport | None = None
        self._tls: httpx.HTTPTransport | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            if request.url.scheme == "https":
                if self._tls is None:
                    self._tls = httpx.HTTPTransport()
                transport = self._tls
            else:
                if self._plain is None:
                    self._plain = httpx.HTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
                transport = self._plain
        return transport.handle_request(request)

    def close(self) -> None:
        for transport in (self._plain, self._tls):
            if transport is not None:
                transport.close()


class _Decoder:
    """Decompress gzip/deflate incrementally, never producing more than ``cap + 1`` bytes."""

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self._zlib = None
        elif encoding in ("gzip", "x-gzip", "deflate"):
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 32)
        else:
            raise InvalidResponse(f"The response uses content encoding {encoding!r}, which is not supported.")

    def feed(self, chunk: bytes, room: int) -> bytes:
        if self._zlib is None:
            return chunk[: room + 1]
        try:
            out = self._zlib.decompress(chunk, room + 1)
            # unconsumed input means the cap is reached: the rest is never inflated
            return out
        except zlib.error as exc:
            raise InvalidResponse("The response body is not valid compressed data.") from exc


class Sender:
    """Sends requests through one pooled client under :class:`Limits`."""

    def __init__(self, client: httpx.Client, limits: Limits, sleep: Callable[[float], None] = time.sleep) -> None:
        self.client = client
        self.limits = limits
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"Sender({self.limits!r})"

    def send(self, request: httpx.Request, *, retry: bool, credential_headers: Iterable[str] = (),
             deadline_at: float | None = None) -> Received:
        """Send, following redirects safely and retrying when allowed; returns the final response.

        Args:
            request: the request; its URL's origin is the one credentials are bound to.
            retry: whether the request may be repeated (idempotent method or declared idempotent).
            credential_headers: header names that carry credentials besides Authorization/Cookie.
            deadline_at: ``time.monotonic()`` value by which everything must be done.
        """
        limits = self.limits
        deadline = deadline_at if deadline_at is not None else time.monotonic() + limits.deadline
        secret_headers = _ALWAYS_CREDENTIAL | {h.lower() for h in credential_headers}
        home = origin(request.url)
        attempts = 0
        redirects = 0
        while True:
            attempts += 1
            try:
                received = self._once(request, deadline, attempts)
            except _RETRY_ERRORS as exc:
                if retry and attempts <= limits.retries and self._pause(limits.backoff * 2 ** (attempts - 1), deadline):
                    continue
                raise ConnectionFailed(f"The connection to {request.url.host} failed ({type(exc).__name__}).") from None
            if received.status in RETRY_STATUSES and retry and attempts <= limits.retries:
                wait = parse_retry_after(received.headers.get("retry-after"))
                if wait is None:
                    wait = limits.backoff * 2 ** (attempts - 1)
                if wait <= limits.max_retry_after and self._pause(wait, deadline):
                    continue
            if received.status in _REDIRECTS and "location" in received.headers:
                redirects += 1
                if redirects > limits.max_redirects:
                    raise InvalidResponse(f"More than {limits.max_redirects} redirects.", status=received.status)
                request = self._redirect(request, received, home, secret_headers)
                continue
            return received

    def _pause(self, seconds: float, deadline: float) -> bool:
        """Sleep if the deadline allows it; False when it does not."""
        if time.monotonic() + seconds >= deadline:
            return False
        self._sleep(seconds)
        return True

    def _once(self, request: httpx.Request, deadline: float, attempts: int) -> Received:
        limits = self.limits
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout(f"The call ran past its deadline of {limits.deadline:g} s.")
        budget = min(limits.timeout, remaining)
        request.extensions["timeout"] = httpx.Timeout(budget).as_dict()
        request.headers["Accept-Encoding"] = "gzip, deflate"  # the encodings _Decoder can cap
        try:
            response = self.client.send(request, stream=True, follow_redirects=False)
        except httpx.TimeoutException:
            raise Timeout(f"No answer from {request.url.host} within {budget:.3g} s.") from None
        except httpx.InvalidURL:  # httpx prepares the next request of a redirect even when not following
            raise UnsafeRedirect("The server redirected to an invalid URL; it is not followed.") from None
        try:
            cap = limits.max_response_bytes
            body = bytearray()
            truncated = False
            if response.is_stream_consumed:  # a transport that answered with content already read
                decoder, chunks = _Decoder(""), iter([response.content])
            else:
                decoder, chunks = _Decoder(response.headers.get("content-encoding", "")), response.iter_raw()
            for chunk in chunks:
                body += decoder.feed(chunk, cap - len(body))
                if len(body) > cap:
                    del body[cap:]
                    truncated = True
                    break
                if time.monotonic() > deadline:  # a server trickling bytes outlives inactivity timeouts
                    raise Timeout(f"The response did not finish within the call's deadline of {limits.deadline:g} s.")
        except httpx.TimeoutException:
            raise Timeout(f"The response from {request.url.host} stalled for {budget:.3g} s.") from None
        finally:
            response.close()
        return Received(response.status_code, response.headers, bytes(body), truncated, str(request.url), attempts)

    def _redirect(self, request: httpx.Request, received: Received, home: tuple[str, str, int | None],
                  secret_headers: frozenset[str] | set[str]) -> httpx.Request:
        try:
            target = request.url.join(received.headers["location"])
        except (httpx.InvalidURL, ValueError):
            raise UnsafeRedirect("The server redirected to an invalid URL.", status=received.status) from None
        if target.scheme not in ("http", "https"):
            raise UnsafeRedirect(f"The server redirected to a {target.scheme!r} URL; only http(s) is followed.",
                                 status=received.status)
        method, content = request.method, request.content
        headers = httpx.Headers(request.headers)
        if (received.status == 303 and method != "HEAD") or (received.status in (301, 302) and method == "POST"):
            method, content = "GET", b""
            for name in ("content-type", "content-length", "transfer-encoding"):
                headers.pop(name, None)
        if origin(target) != home:
            # Credentials are bound to the pack's origin: none of them travel to another one.
            for name in list(headers.keys()):
                if name.lower() in secret_headers:
                    del headers[name]
        headers.pop("host", None)
        return httpx.Request(method, target, headers=headers, content=content or None)
