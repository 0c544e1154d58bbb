"""The HTTP face's access check: a random bearer secret per server, required on every request.

``packc serve --http`` listens on loopback, which every local user can reach. Without a check,
another user on the machine could call the tools with the serving user's credentials and even
answer the write verbs' approval form itself. So every HTTP request must carry
``Authorization: Bearer <secret>``; anything else gets 401 before the MCP SDK sees the request.

The secret is ``secrets.token_urlsafe(32)`` (256 bits), made at start, or read from a token file
the person keeps (created 0600 when missing; refused when group or others can read it), so a host
configuration can stay the same across restarts. It is compared in constant time.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import secrets
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

__all__ = [
    "TOKEN_ENV",
    "BearerGate",
    "TokenFileError",
    "allowed_host_names",
    "host_name",
    "new_secret",
    "secret_from_file",
]

#: The environment variable the printed host snippets read the secret from (never the secret itself).
TOKEN_ENV = "PACKC_MCP_TOKEN"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The names every loopback address answers to, as a Host header writes them.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def host_name(value: str) -> str:
    """A host (a name, an IPv4 or IPv6 address, bracketed or not) as a Host header writes it.

    Raises:
        ValueError: not a host name or an IP address (a port, a path, a space, an empty value).
    """
    text = value.strip().lower()
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        address = ipaddress.ip_address(inner)
    except ValueError:
        labels = text.rstrip(".").split(".")
        if not text or not all(
            0 < len(label) <= 63 and label.replace("-", "").isalnum() and label.isascii() for label in labels
        ):
            raise ValueError(value) from None
        return text
    return f"[{address.compressed}]" if address.version == 6 else address.compressed


def allowed_host_names(bind: str, extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The Host names a server bound to ``bind`` answers to: DNS-rebinding protection everywhere.

    A web page the user opens can name any host and have its DNS answer with the server's address;
    only the Host header tells such a request from the user's own. So every bind address gets the
    check, not only 127.0.0.1, localhost and ::1 (the SDK's default, which left ``127.0.0.2`` or a
    LAN address open): the names the server answers to are the bind address itself, the loopback
    names when it is loopback or every address (``0.0.0.0``, ``::``), and each ``--allow-host``.

    Raises:
        ValueError: ``bind`` or an ``extra`` value is not a host (see :func:`host_name`).
    """
    own = host_name(bind)
    inner = own.strip("[]")
    names: list[str] = []
    try:
        address = ipaddress.ip_address(inner)
    except ValueError:
        address = None
    if own == "localhost" or (address is not None and (address.is_loopback or address.is_unspecified)):
        names += _LOOPBACK_NAMES
    if address is None or not address.is_unspecified:
        names.append(own)
    names += [host_name(name) for name in extra]
    return list(dict.fromkeys(names))


_REFUSED = json.dumps(
    {
        "error": "invalid_token",
        "error_description": "This packc serve needs the header 'Authorization: Bearer <secret>': the secret was printed "
        "when the server started (or is in its --token-file).",
    }
).encode()


class TokenFileError(ValueError):
    """A token file that cannot be used: unreadable, empty, too short, or readable by others."""


def new_secret() -> str:
    """A fresh random secret (43 URL-safe characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def secret_from_file(path: Path) -> str:
    """The secret kept in ``path``; a new one is written there (mode 0600) when it does not exist.

    Raises:
        TokenFileError: the file is readable by group or others, holds fewer than 32 characters,
            or cannot be read or written.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise TokenFileError(f"cannot create {path}: {exc.strerror}") from None
    else:
        secret = new_secret()
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(secret + "\n")
        return secret
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise TokenFileError(f"cannot read {path}: {exc.strerror}") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenFileError(
            f"{path} can be read by other users (mode {stat.S_IMODE(mode):o}); "
            f"run `chmod 600 {path}` or delete it to get a new secret"
        )
    if len(text) < 32 or any(c.isspace() for c in text):
        raise TokenFileError(
            f"{path} must hold one secret of at least 32 characters; delete it to get a new one"
        )
    return text


class BearerGate:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <secret>`` gets 401.

    Lifespan events pass through; every HTTP or WebSocket request is checked, whatever its path.
    """

    def __init__(self, app: ASGIApp, secret: str) -> None:
        if len(secret) < 32:
            raise ValueError("the bearer secret must be at least 32 characters")
        self.app = app
        self._secret = secret.encode()

    def allows(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether exactly one Authorization header carries this server's secret (constant-time compare)."""
        given = [value for name, value in headers if name.lower() == b"authorization"]
        if len(given) != 1:
            return False
        scheme, _, token = given[0].strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._secret)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allows(list(scope.get("headers") or [])):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(_REFUSED)).encode()),
                    (b"www-authenticate", b'Bearer realm="packc serve", error="invalid_token"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": _REFUSED})
