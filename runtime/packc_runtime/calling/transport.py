"""The runtime's own transports: TLS built on first use, and every socket wait bounded by the call's deadline.

httpx's timeouts measure inactivity: a server that sends one header line a second never trips a
10 s read timeout, and holds the call for as long as it likes (h11 reads a head of up to 64 KiB).
The sync transport therefore runs its connection pool over a network backend whose every
connect, read and write waits at most until the deadline of the call in progress
(:data:`DEADLINE`, set by ``send.Sender`` around each exchange); the wait that passes it fails
as a read/write/connect timeout. The name lookup before a new connection is bounded the same way. The async path bounds the whole exchange with a cancel scope
instead (``anyio.fail_after`` in ``send.Sender``), which covers the same ground.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

import httpx

__all__ = ["DEADLINE", "LazyTLSAsyncTransport", "LazyTLSTransport", "PoolMoved", "pooled_transport"]

# ``time.monotonic()`` by which the exchange running in this context must be done; None: no bound.
DEADLINE: ContextVar[float | None] = ContextVar("packc_deadline", default=None)


def _bounded(timeout: float | None, error: str) -> float | None:
    """``timeout`` shortened to what is left before the deadline; httpcore's ``error`` once nothing is left."""
    deadline = DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        import httpcore  # httpx imports it on first use too; the CLI's cold start never needs it

        raise getattr(httpcore, error)("The call's deadline has passed.")
    return left if timeout is None else min(timeout, left)


def _addresses(host: str, port: int) -> list[str]:
    """``host``'s addresses, looked up within the deadline (``getaddrinfo`` has no timeout of its own).

    The lookup runs on a daemon thread; past the deadline the call goes on without it (a resolver
    gives up by itself later). Without a deadline, a literal address, or when the lookup fails,
    ``[host]``: the connect then resolves and reports as httpcore always did.
    """
    deadline = DEADLINE.get()
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        if deadline is None:
            return [host]
    found: list[Any] = []

    def lookup() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:
            found.append(exc)

    worker = threading.Thread(target=lookup, name="packc-resolve", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if not found:
        import httpcore

        raise httpcore.ConnectTimeout(f"Looking up {host} did not finish within the call's deadline.")
    if isinstance(found[0], Exception) or not found[0]:
        return [host]
    return list(dict.fromkeys(str(info[4][0]) for info in found[0]))


# httpcore's stream and backend interfaces, by duck typing: subclassing them would import httpcore
# with this module, on the CLI's cold-start path.
class _DeadlineStream:
    """A socket stream whose every wait ends at the deadline of the call using it."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._stream.read(max_bytes, _bounded(timeout, "ReadTimeout"))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _bounded(timeout, "WriteTimeout"))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> _DeadlineStream:
        inner = self._stream.start_tls(ssl_context, server_hostname, _bounded(timeout, "ConnectTimeout"))
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend:
    """httpcore's sync backend, handing out :class:`_DeadlineStream` sockets."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> _DeadlineStream:
        import httpcore

        failure: Exception | None = None
        for address in _addresses(host, port):  # each in turn, as socket.create_connection does
            try:
                return _DeadlineStream(
                    self._backend.connect_tcp(
                        address, port, _bounded(timeout, "ConnectTimeout"), local_address, socket_options
                    )
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> _DeadlineStream:
        return _DeadlineStream(
            self._backend.connect_unix_socket(path, _bounded(timeout, "ConnectTimeout"), socket_options)
        )

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class PoolMoved(RuntimeError):
    """httpx no longer keeps its connection pool where the deadline backend is put (an httpx upgrade)."""


def pooled_transport(
    network_backend: Callable[[Any], Any], *, verify: ssl.SSLContext | bool = True, purpose: str
) -> httpx.HTTPTransport:
    """httpx's default transport, its pool rebuilt over ``network_backend(httpcore.SyncBackend())``.

    httpx has no public way to pass a network backend; its transport keeps the pool in ``_pool``
    (httpx 0.28). Should a later httpx keep it elsewhere, replacing ``_pool`` would silently leave
    httpx's own pool in use and the backend would no longer see the connections: so a transport
    without an httpcore pool there raises :class:`PoolMoved` (nothing is sent; ``purpose`` says
    what the pool is for), and tests/security/test_sec_deadline_pool.py checks that requests really
    run over the backend. The one home of this swap: the compiler's fetches use it too.
    """
    import httpcore

    context = httpx.create_ssl_context(verify=verify)  # built once, shared by both below
    transport = httpx.HTTPTransport(verify=context)
    if not isinstance(getattr(transport, "_pool", None), httpcore.ConnectionPool):
        raise PoolMoved(
            f"httpx {httpx.__version__} keeps no httpcore.ConnectionPool in HTTPTransport._pool, where "
            f"{purpose}. Install the httpx the runtime declares (httpx>=0.28,<0.29)."
        )
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults
    transport._pool = httpcore.ConnectionPool(
        ssl_context=context,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=network_backend(httpcore.SyncBackend()),
    )
    return transport


def _deadline_transport(verify: ssl.SSLContext | bool) -> httpx.HTTPTransport:
    """httpx's default transport, its pool rebuilt over :class:`_DeadlineBackend`."""
    return pooled_transport(
        _DeadlineBackend,
        verify=verify,
        purpose="packc_runtime puts the pool that bounds every socket wait by the call's deadline; "
        "nothing is sent rather than sent without the deadline",
    )


class LazyTLSTransport(httpx.BaseTransport):
    """The default transport, but the verifying TLS context is built on the first https request.

    Building it (loading the CA bundle) costs more than importing httpx; a call to an http://
    server (a local mock, a staging box) never needs it. Plain-http requests get a context that
    holds no CA certificates, which httpx never uses for them. Both pools bound every socket wait
    by the call's deadline (:data:`DEADLINE`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plain: httpx.HTTPTransport | None = None
        self._tls: httpx.HTTPTransport | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            if request.url.scheme == "https":
                if self._tls is None:
                    self._tls = _deadline_transport(True)
                transport = self._tls
            else:
                if self._plain is None:
                    self._plain = _deadline_transport(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
                transport = self._plain
        return transport.handle_request(request)

    def close(self) -> None:
        for transport in (self._plain, self._tls):
            if transport is not None:
                transport.close()


def record_missing_sniffio() -> None:
    """Make httpcore's per-request ``import sniffio`` fail at once when sniffio is not installed.

    httpcore's async locks, events and semaphores each run ``import sniffio`` when first used (four
    per request); when it is not installed (httpx 0.28 and anyio 4 no longer need it), every one
    is a failed search of sys.path: 0.3-0.6 ms per ``Pack.acall`` on loopback. Recording the miss
    in sys.modules (``None`` means "not importable") keeps the outcome (ImportError, so httpcore
    assumes asyncio) and skips the search. Nothing is recorded when sniffio is importable.
    """
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


class LazyTLSAsyncTransport(httpx.AsyncBaseTransport):
    """:class:`LazyTLSTransport` for the async client (its deadline is a cancel scope in ``send``)."""

    def __init__(self) -> None:
        record_missing_sniffio()
        self._plain: httpx.AsyncHTTPTransport | None = None
        self._tls: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme == "https":
            if self._tls is None:
                self._tls = httpx.AsyncHTTPTransport()
            return await self._tls.handle_async_request(request)
        if self._plain is None:
            self._plain = httpx.AsyncHTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
        return await self._plain.handle_async_request(request)

    async def aclose(self) -> None:
        for transport in (self._plain, self._tls):
            if transport is not None:
                await transport.aclose()
