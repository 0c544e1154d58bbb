"""Origins (``scheme://host[:port]``): the unit credentials are bound to, written one way everywhere."""

from __future__ import annotations

import re

import httpx

__all__ = ["is_loopback_host", "origin_of", "parse_origins", "secure_url"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str | None:
    """The origin of an http(s) URL, canonical: lower-case scheme and host, default port left out.

    ``HTTPS://API.Example.com:443/v1`` -> ``https://api.example.com``; ``http://[::1]:8080/`` ->
    ``http://[::1]:8080``. None for anything that is not an absolute http(s) URL with a host httpx
    can send to.

    The URL is read by the parser that sends it (httpx's), so user info, backslashes and other
    tricks cannot make the origin judged differ from the host connected to; and a host outside
    ASCII is written as the A-label httpx connects to (``https://аpi.stripe.com``, with a Cyrillic
    ``а``, is ``https://xn--pi-6kc.stripe.com``): the origin a person approves or stores a
    credential for is shown as what it is, never as a lookalike of another one. This is the one
    home of the rule: credentials (runtime) and fetches (compiler) both judge origins with it.
    """
    try:
        parsed = httpx.URL(url)
        scheme = parsed.scheme.lower()
        _ = parsed.host  # decodes the A-label: refuses a host IDNA refuses (``xn--bcher-kva.example%20``)
        host = parsed.raw_host.decode("ascii").lower()
        port = parsed.port
    except (httpx.InvalidURL, ValueError, TypeError):  # idna's errors are UnicodeErrors, so ValueErrors
        return None
    if scheme not in _DEFAULT_PORTS or not host:
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


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name, an address, ``[::1]``) is this machine: ``localhost`` or a loopback
    address."""
    import ipaddress

    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def secure_url(url: str) -> bool:
    """Whether a secret may travel to ``url``: https, or plain http to this machine (``localhost``, a
    loopback address) only, where no network lies between."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if not parts.hostname:
        return False
    scheme = parts.scheme.lower()
    return scheme == "https" or (scheme == "http" and is_loopback_host(parts.hostname))
