"""Fetch an http(s) document under a size cap and one deadline, on the allowed origins only.

The one home of the rules every document fetch follows (the compiler's reads import it): a URL may
only reach the origins it is allowed: its own, or any http(s) origin when ``allowed`` is None.
Redirects are followed by hand, each hop checked before it is requested: never to another origin
(unless allowed), never from https to http, never to a scheme other than http(s). Every connection
is checked by ``netguard`` (no private address unless allowed). One deadline covers every hop,
head and body; the size cap holds before and after decompression.
"""

from __future__ import annotations

import threading
import zlib

import httpx

from packc_runtime.calling.netguard import GuardedBackend, PrivateAddress, guarded_transport
from packc_runtime.credentials.origins import origin_of

__all__ = [
    "FetchFailed",
    "FetchPrivate",
    "FetchRefused",
    "FetchTooLarge",
    "fetch_url",
    "hop_refusal",
    "same_origin",
]

_MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class FetchFailed(Exception):
    """A fetch that gave no document: ``message`` for a log, ``detail`` one sentence for a person.

    FetchFailed
    ├── FetchRefused   a hop (or the first URL) leaves the allowed origins or scheme
    ├── FetchPrivate   a connection would reach an address that is not public
    └── FetchTooLarge  more than the size cap, before or after decompression
    """

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.message, self.detail = message, detail


class FetchRefused(FetchFailed):
    """``current`` leads to ``target``, which may not be fetched, for ``reason``."""

    def __init__(self, url: str, current: str, target: str, reason: str) -> None:
        what = f"{current} redirects to {target}" if current != target else f"{target} may not be fetched"
        super().__init__(
            f"{url}: {what} ({reason}); not followed", f"{what}, which is {reason}; it is not followed."
        )
        self.source, self.target, self.reason = current, target, reason


class FetchPrivate(FetchFailed):
    """A connection was refused by ``netguard``: ``refused`` says which host and address."""

    def __init__(self, url: str, refused: PrivateAddress) -> None:
        super().__init__(f"{url}: {refused}; not fetched", str(refused))
        self.refused = refused


class FetchTooLarge(FetchFailed):
    """The document is larger than ``max_bytes``."""

    def __init__(self, url: str, max_bytes: int) -> None:
        super().__init__(
            f"{url}: more than {max_bytes} bytes", f"The document is larger than {max_bytes} bytes."
        )
        self.max_bytes = max_bytes


def same_origin(allowed: str, url: str) -> bool:
    """True when ``url`` is on the ``allowed`` origin, or is its https upgrade (http://h → https://h).

    Origins are ``packc_runtime.credentials.origins.origin_of``'s (the one rule, shared with credentials): the
    URL read by the parser httpx sends with, the host as its A-label, a default port left out.
    """
    target = origin_of(url)
    if target is None:
        return False
    if target == allowed:
        return True
    rest = allowed.removeprefix("http://")
    default_port = ":" not in rest.rpartition("]")[2]  # "[::1]" has none, "[::1]:8080" has one
    return allowed.startswith("http://") and default_port and target == f"https://{rest}"


def hop_refusal(allowed: str | None, current: str, target: str) -> str | None:
    """Why the hop from ``current`` to ``target`` may not be taken (None: it may)."""
    if origin_of(target) is None:
        return "not an http(s) URL"
    if (
        origin_of(current) is not None
        and httpx.URL(current).scheme == "https"
        and httpx.URL(target).scheme == "http"
    ):
        return "from https to plain http"
    if allowed is not None and not same_origin(allowed, target):
        return f"another origin than {allowed}"
    return None


def fetch_url(url: str, *, timeout: float, max_bytes: int, allowed: str | None) -> tuple[bytes, str]:
    """The bytes at ``url`` and the final URL after redirects.

    Args:
        url: an http(s) URL.
        timeout: seconds of inactivity per read; the whole fetch (redirects included) has twice that.
        max_bytes: the size cap, before and after decompression.
        allowed: the origin the URL and its redirects must stay on; None: any http(s) origin.

    Raises:
        FetchFailed: (or one of its kinds) no document was fetched.
    """
    # httpx's timeout measures inactivity (a byte every few seconds keeps a call alive, in the head
    # too), so the whole fetch, every hop with head and body, runs on a worker thread under one
    # deadline; past it the client is closed, which ends the worker's next read.
    limit = 2 * timeout
    outcome: list[tuple[bytes, str] | BaseException] = []
    # Built here, in the caller's context: whether private addresses are allowed is a context variable.
    transport, guard = guarded_transport(url)
    client = httpx.Client(timeout=timeout, follow_redirects=False, transport=transport)

    def work() -> None:
        try:
            outcome.append(_download(client, url, max_bytes=max_bytes, allowed=allowed, guard=guard))
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome.append(exc)

    worker = threading.Thread(target=work, name="packc-fetch", daemon=True)
    worker.start()
    worker.join(limit)
    if not outcome:
        client.close()
        raise FetchFailed(
            f"{url}: download took longer than {limit:g} s", f"The download took longer than {limit:g} s."
        )
    client.close()
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _download(
    client: httpx.Client,
    url: str,
    *,
    max_bytes: int,
    allowed: str | None,
    guard: GuardedBackend | None = None,
) -> tuple[bytes, str]:
    headers = {"Accept": "application/json, application/yaml, */*", "Accept-Encoding": "gzip, deflate"}
    current = url
    why = hop_refusal(allowed, url, url)
    if why is not None:
        raise FetchRefused(url, url, url, why)
    try:
        for _ in range(_MAX_REDIRECTS + 1):
            with client.stream("GET", current, headers=headers) as resp:
                if resp.status_code in _REDIRECTS and "location" in resp.headers:
                    target = str(resp.url.join(resp.headers["location"]))
                    why = hop_refusal(allowed, current, target)
                    if why is not None:
                        raise FetchRefused(url, current, target, why)
                    current = target
                    continue
                if resp.status_code >= 400:
                    raise FetchFailed(
                        f"{url}: HTTP {resp.status_code}", f"The server answered HTTP {resp.status_code}."
                    )
                chunks: list[bytes] = []
                size = 0
                for chunk in resp.iter_raw():
                    size += len(chunk)
                    if size > max_bytes:
                        raise FetchTooLarge(url, max_bytes)
                    chunks.append(chunk)
                encoding = resp.headers.get("content-encoding", "identity").lower()
                final = str(resp.url)
                break
        else:
            raise FetchFailed(
                f"{url}: more than {_MAX_REDIRECTS} redirects",
                f"The server redirected more than {_MAX_REDIRECTS} times.",
            )
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:  # InvalidURL is no HTTPError
        if guard is not None and guard.refused is not None:
            raise FetchPrivate(url, guard.refused) from None
        raise FetchFailed(
            f"{url}: {type(exc).__name__}: {exc}", f"The URL cannot be fetched ({type(exc).__name__})."
        ) from None
    raw = b"".join(chunks)
    # Only encodings we can inflate with a cap are accepted.
    if encoding not in ("identity", ""):
        raw = _decompress(raw, encoding, url, max_bytes)
    return raw, final


def _decompress(raw: bytes, encoding: str, url: str, max_bytes: int) -> bytes:
    # Raw bytes were read so the size cap applies before decompression too; decompress with a cap,
    # because a small gzip body can expand a thousandfold.
    if encoding not in ("gzip", "deflate", "x-gzip"):
        raise FetchFailed(
            f"{url}: unsupported content-encoding {encoding}",
            f"The server used content-encoding {encoding!r}.",
        )
    wbits = 16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(raw, max_bytes + 1)
    except zlib.error:
        raise FetchFailed(f"{url}: corrupt {encoding} body", f"The {encoding} body is corrupt.") from None
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise FetchTooLarge(url, max_bytes)
    return out
