"""Fetches never reach a private address the user did not point packc at (SSRF, issue 10).

The one home of this guard: the compiler's fetches (``packc.read``) import it from the runtime, so
a document the runtime fetches is held to the same rule (STYLE.md, one home per rule).

A document fetched from the internet may name, through a ``$ref`` (with ``--allow-remote-refs``),
a stub's ``openapi.url`` or a redirect, an address only the user's machine can reach: a service on
127.0.0.1, the cloud metadata address 169.254.169.254, a router on 192.168.0.1; whatever answers
would end up in the pack. So every connection a fetch makes is checked where it is made, on the
address the name resolved to (a name that resolves to a public address for the check and a
private one for the connection, DNS rebinding, cannot slip through): an address that is not
globally reachable (loopback, private, link-local, carrier-grade NAT, unique-local, unspecified,
reserved) is refused, unless

- the user's own input is on such an address (``packc compile http://127.0.0.1:8000/openapi.json``,
  or a local stub whose ``openapi.url`` is): the user pointed packc there, and its refs may follow;
- the user passes ``--allow-private-addresses``.

A local file's remote refs get no such pass: the file may have come from anywhere.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

import httpx

__all__ = [
    "GuardedBackend",
    "PrivateAddress",
    "guarded_transport",
    "is_private_host",
    "let_private",
    "private_allowed",
    "private_fetches",
]

# None: no front end decided (a direct ``fetch``): the URL fetched is then the input, judged by itself.
_PRIVATE_OK: ContextVar[bool | None] = ContextVar("packc_private_ok", default=None)


class PrivateAddress(Exception):
    """A fetch would connect to a private address it was not allowed: ``host`` resolved to ``address``."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(f"{host} resolves to {address}, an address that is not public")
        self.host, self.address = host, address


def _private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global


def _resolve(host: str, port: int) -> list[str]:
    host = host.strip("[]")
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        return [host]
    except ValueError:
        pass
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_private_host(url: str) -> bool:
    """True when ``url``'s host is, or resolves to, an address that is not public (False if it cannot be looked up)."""
    try:
        parts = urlsplit(url)
        host = httpx.URL(url).host
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        return any(_private(a) for a in _resolve(host, port))
    except (OSError, ValueError, httpx.InvalidURL):
        return False


def private_allowed() -> bool | None:
    """Whether fetches in this context may connect to private addresses (None: not decided)."""
    return _PRIVATE_OK.get()


@contextmanager
def private_fetches(allowed: bool) -> Iterator[None]:
    """Fetches inside the block may (``allowed``) or may not connect to private addresses."""
    token = _PRIVATE_OK.set(allowed)
    try:
        yield
    finally:
        _PRIVATE_OK.reset(token)


def let_private() -> None:
    """From here to the end of the enclosing :func:`private_fetches` block, private addresses are allowed."""
    _PRIVATE_OK.set(True)


class GuardedBackend:
    """httpcore's sync backend, connecting only to addresses the context allows (httpcore's interface)."""

    def __init__(self, backend: Any, private_ok: bool) -> None:
        self._backend = backend
        self._private_ok = private_ok
        self.refused: PrivateAddress | None = None

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> Any:
        import httpcore

        try:
            addresses = _resolve(host, port)
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        if not self._private_ok:
            for address in addresses:
                if _private(address):
                    self.refused = PrivateAddress(host, address)
                    raise httpcore.ConnectError(str(self.refused))
        failure: Exception | None = None
        for address in addresses:  # the checked addresses themselves: no second lookup to rebind
            try:
                return self._backend.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> Any:
        import httpcore

        raise httpcore.ConnectError("fetches never use Unix sockets")

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def guarded_transport(url: str) -> tuple[httpx.HTTPTransport, GuardedBackend]:
    """httpx's default transport over :class:`GuardedBackend` (same private ``_pool`` as the runtime's deadline).

    Outside a front end's decision (a direct ``fetch``), ``url`` is the input: private addresses
    are allowed when it is on one itself.
    """
    from packc_runtime.calling.transport import pooled_transport

    allowed = private_allowed()
    private = is_private_host(url) if allowed is None else allowed
    made: list[GuardedBackend] = []  # the backend the pool was built over, for the caller's checks

    def guarded(inner: Any) -> GuardedBackend:
        made.append(GuardedBackend(inner, private))
        return made[0]

    transport = pooled_transport(
        guarded, purpose="packc puts the pool that checks every address a fetch connects to"
    )
    return transport, made[0]
