"""Origins (``scheme://host[:port]``): the unit credentials are bound to, written one way everywhere."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["origin_of", "parse_origins"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str | None:
    """The origin of an http(s) URL, canonical: lower-case scheme and host, default port left out.

    ``HTTPS://API.Example.com:443/v1`` -> ``https://api.example.com``; ``http://[::1]:8080/`` ->
    ``http://[::1]:8080``. None for anything that is not an absolute http(s) URL with a host.

    A host outside ASCII is written as the A-label httpx connects to (``https://аpi.stripe.com``,
    with a Cyrillic ``а``, is ``https://xn--pi-6kc.stripe.com``): the origin a person approves or
    stores a credential for is shown as what it is, never as a lookalike of another one.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host or any(ch in host for ch in "/\\@ \t\r\n"):
        return None
    if not host.isascii():
        label = _a_label(host)
        if label is None:
            return None
        host = label
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != _DEFAULT_PORTS[scheme] else "")


def _a_label(host: str) -> str | None:
    """The IDNA A-label of ``host``, as httpx encodes it to connect (None when it cannot be)."""
    import idna  # httpx's own dependency; only hosts outside ASCII need it

    try:
        return str(idna.encode(host).decode("ascii"))
    except (idna.IDNAError, UnicodeError, ValueError):
        return None


def parse_origins(text: str) -> frozenset[str]:
    """Origins from a list of URLs separated by commas or whitespace (``PACKC_TRUSTED_ORIGINS``).

    Entries that are not http(s) URLs are ignored.
    """
    found = (origin_of(entry) for entry in re.split(r"[,\s]+", text) if entry)
    return frozenset(origin for origin in found if origin)
