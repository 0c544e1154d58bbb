"""Send one request: overall deadline, capped decompression, retries with backoff, safe redirects."""

from __future__ import annotations

import email.utils
import math
import time
import zlib
from collections.abc import Callable, Generator, Iterable
from datetime import UTC, datetime
from typing import Any, NamedTuple

import httpx

from packc_runtime.calling.transport import DEADLINE
from packc_runtime.errors import ConnectionFailed, InvalidResponse, Timeout, UnsafeRedirect

__all__ = ["Limits", "Received", "Sender", "Steps", "origin", "parse_retry_after"]

RETRY_STATUSES = frozenset({429, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Headers that may carry credentials; dropped on any redirect to another origin.
_ALWAYS_CREDENTIAL = frozenset({"authorization", "proxy-authorization", "cookie"})
# Errors after which the request may not have reached the server, or a kept-alive socket dropped.
_RETRY_ERRORS = (
    httpx.ConnectError,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
    httpx.CloseError,
)


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


# What the request loop asks its driver to do: send one request (under a deadline), or sleep.
Effect = tuple[str, Any]
Steps = Generator[Effect, Any, Any]


class _Body:
    """Collects a response body: capped after decompression, and cut off at the deadline."""

    def __init__(self, response: httpx.Response, limits: Limits, deadline: float) -> None:
        self.cap = limits.max_response_bytes
        self.deadline = deadline
        self.limits = limits
        self.body = bytearray()
        self.truncated = False
        self.consumed = response.is_stream_consumed  # a transport that answered with content already read
        self.decoder = _Decoder("" if self.consumed else response.headers.get("content-encoding", ""))

    def feed(self, chunk: bytes) -> bool:
        """Add a raw chunk; True when reading must stop (the cap is reached)."""
        self.body += self.decoder.feed(chunk, self.cap - len(self.body))
        if len(self.body) > self.cap:
            del self.body[self.cap :]
            self.truncated = True
            return True
        if time.monotonic() > self.deadline:  # a server trickling bytes outlives inactivity timeouts
            raise Timeout(
                f"The response did not finish within the call's deadline of {self.limits.deadline:g} s."
            )
        return False

    def received(self, response: httpx.Response, request: httpx.Request) -> Received:
        return Received(
            response.status_code, response.headers, bytes(self.body), self.truncated, str(request.url), 0
        )


class Sender:
    """Sends requests under :class:`Limits`, through a pooled sync client and/or an async one.

    The request loop (deadline, retries, backoff, redirects) is written once, in :meth:`steps`, as a
    generator of effects; :meth:`run` performs them with the sync client, :meth:`arun` with the
    async one.
    """

    def __init__(
        self,
        client: httpx.Client | None,
        limits: Limits,
        *,
        aclient: httpx.AsyncClient | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.aclient = aclient
        self.limits = limits
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"Sender({self.limits!r})"

    def send(
        self,
        request: httpx.Request,
        *,
        retry: bool,
        credential_headers: Iterable[str] = (),
        deadline_at: float | None = None,
    ) -> Received:
        """Send with the sync client (see :meth:`steps`); returns the final response."""
        result: Received = self.run(
            self.steps(request, retry=retry, credential_headers=credential_headers, deadline_at=deadline_at)
        )
        return result

    def steps(
        self,
        request: httpx.Request,
        *,
        retry: bool,
        credential_headers: Iterable[str] = (),
        deadline_at: float | None = None,
        same_origin: bool = False,
    ) -> Steps:
        """Send, following redirects safely and retrying when allowed; returns the final response.

        Args:
            request: the request; its URL's origin is the one credentials are bound to.
            retry: whether the request may be repeated (idempotent method or declared idempotent).
            credential_headers: header names that carry credentials besides Authorization/Cookie.
            deadline_at: ``time.monotonic()`` value by which everything must be done.
            same_origin: follow no redirect to another origin (token requests: their secrets are in
                the body, which a 307/308 carries along).
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
                received: Received = yield ("send", (request, deadline))
            except _RETRY_ERRORS as exc:
                wait = limits.backoff * 2 ** (attempts - 1)
                if retry and attempts <= limits.retries and self._fits(wait, deadline):
                    yield ("sleep", wait)
                    continue
                url = request.url
                port = url.port or {"http": 80, "https": 443}.get(url.scheme)
                raise ConnectionFailed(
                    f"The connection to {url.host} port {port} ({url.scheme}) failed ({type(exc).__name__}).",
                    host=url.host,
                    port=port,
                ) from None
            received = received._replace(attempts=attempts)
            if received.status in RETRY_STATUSES and retry and attempts <= limits.retries:
                wait = parse_retry_after(received.headers.get("retry-after"))
                if wait is None:
                    wait = limits.backoff * 2 ** (attempts - 1)
                if wait <= limits.max_retry_after and self._fits(wait, deadline):
                    yield ("sleep", wait)
                    continue
            if received.status in _REDIRECTS and "location" in received.headers:
                redirects += 1
                if redirects > limits.max_redirects:
                    raise InvalidResponse(
                        f"More than {limits.max_redirects} redirects.", status=received.status
                    )
                request = self._redirect(request, received, home, secret_headers)
                if same_origin and origin(request.url) != home:
                    raise UnsafeRedirect(
                        "The token endpoint redirected to another origin; a token request is never followed "
                        "there, since it carries secrets. Nothing was sent to it.",
                        status=received.status,
                    )
                continue
            return received

    @staticmethod
    def _fits(seconds: float, deadline: float) -> bool:
        """Whether sleeping ``seconds`` leaves time before the deadline."""
        return time.monotonic() + seconds < deadline

    def run(self, steps: Steps) -> Any:
        """Drive ``steps`` with the sync client; returns the generator's result."""
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = steps.throw(error) if error is not None else steps.send(value)
            except StopIteration as stop:
                return stop.value
            value, error = None, None
            try:
                if effect[0] == "sleep":
                    self._sleep(effect[1])
                else:
                    value = self._exchange(*effect[1])
            except Exception as exc:  # handed to the loop, which decides (retry, map, or raise)
                error = exc

    async def arun(self, steps: Steps) -> Any:
        """Drive ``steps`` with the async client; returns the generator's result."""
        import asyncio  # lazily: the CLI path never needs it

        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                effect = steps.throw(error) if error is not None else steps.send(value)
            except StopIteration as stop:
                return stop.value
            value, error = None, None
            try:
                if effect[0] == "sleep":
                    await asyncio.sleep(effect[1])
                else:
                    value = await self._aexchange(*effect[1])
            except Exception as exc:
                error = exc

    def _prepare(self, request: httpx.Request, deadline: float) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout(f"The call ran past its deadline of {self.limits.deadline:g} s.")
        budget = min(self.limits.timeout, remaining)
        request.extensions["timeout"] = httpx.Timeout(budget).as_dict()
        request.headers["Accept-Encoding"] = "gzip, deflate"  # the encodings _Decoder can cap
        return budget

    def _late(self, request: httpx.Request, deadline: float, budget: float, head: bool) -> Timeout:
        """The Timeout for a wait that ran out: the call's deadline, or inactivity in the head or the body."""
        host = request.url.host
        if time.monotonic() >= deadline - 0.01:
            return Timeout(
                f"The response from {host} did not finish within the call's deadline of "
                f"{self.limits.deadline:g} s."
            )
        if head:
            return Timeout(f"No answer from {host} within {budget:.3g} s.")
        return Timeout(f"The response from {host} stalled for {budget:.3g} s.")

    def _exchange(self, request: httpx.Request, deadline: float) -> Received:
        assert self.client is not None
        budget = self._prepare(request, deadline)
        token = DEADLINE.set(deadline)  # every socket wait of the runtime's transport ends by then
        try:
            try:
                response = self.client.send(request, stream=True, follow_redirects=False)
            except httpx.TimeoutException:
                raise self._late(request, deadline, budget, True) from None
            except httpx.InvalidURL:  # httpx prepares the next request of a redirect even when not following
                raise UnsafeRedirect("The server redirected to an invalid URL; it is not followed.") from None
            body = _Body(response, self.limits, deadline)
            try:
                for chunk in [response.content] if body.consumed else response.iter_raw():
                    if body.feed(chunk):
                        break
            except httpx.TimeoutException:
                raise self._late(request, deadline, budget, False) from None
            finally:
                response.close()
        finally:
            DEADLINE.reset(token)
        return body.received(response, request)

    async def _aexchange(self, request: httpx.Request, deadline: float) -> Received:
        import anyio  # httpx's own async layer; lazily, as the CLI path never needs it

        budget = self._prepare(request, deadline)
        # A cancel scope bounds the whole exchange, head included (inactivity timeouts do not).
        with anyio.move_on_after(max(0.0, deadline - time.monotonic())) as scope:
            return await self._aexchange_unbounded(request, deadline, budget)
        assert scope.cancelled_caught
        raise self._late(request, deadline, budget, True)

    async def _aexchange_unbounded(self, request: httpx.Request, deadline: float, budget: float) -> Received:
        assert self.aclient is not None
        try:
            response = await self.aclient.send(request, stream=True, follow_redirects=False)
        except httpx.TimeoutException:
            raise self._late(request, deadline, budget, True) from None
        except httpx.InvalidURL:
            raise UnsafeRedirect("The server redirected to an invalid URL; it is not followed.") from None
        body = _Body(response, self.limits, deadline)
        try:
            if body.consumed:
                body.feed(response.content)
            else:
                async for chunk in response.aiter_raw():
                    if body.feed(chunk):
                        break
        except httpx.TimeoutException:
            raise self._late(request, deadline, budget, False) from None
        finally:
            await response.aclose()
        return body.received(response, request)

    def _redirect(
        self,
        request: httpx.Request,
        received: Received,
        home: tuple[str, str, int | None],
        secret_headers: frozenset[str] | set[str],
    ) -> httpx.Request:
        try:
            target = request.url.join(received.headers["location"])
        except (httpx.InvalidURL, ValueError):
            raise UnsafeRedirect("The server redirected to an invalid URL.", status=received.status) from None
        if target.scheme not in ("http", "https"):
            raise UnsafeRedirect(
                f"The server redirected to a {target.scheme!r} URL; only http(s) is followed.",
                status=received.status,
            )
        method, content = request.method, request.content
        headers = httpx.Headers(request.headers)
        if (received.status == 303 and method != "HEAD") or (
            received.status in (301, 302) and method == "POST"
        ):
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
