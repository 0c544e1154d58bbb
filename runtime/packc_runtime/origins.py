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
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != _DEFAULT_PORTS[scheme] else "")


def parse_origins(text: str) -> frozenset[str]:
    """Origins from a list of URLs separated by commas or whitespace (``PACKC_TRUSTED_ORIGINS``).

    Entries that are not http(s) URLs are ignored.
    """
    found = (origin_of(entry) for entry in re.split(r"[,\s]+", text) if entry)
    return frozenset(origin for origin in found if origin)
