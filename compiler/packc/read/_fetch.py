"""Fetch: a local path or an http(s) URL into bytes, under a size cap and one deadline.

A URL fetch may only reach the origins it is allowed: its own (the input's), or any http(s) origin
with ``any_origin`` (``--allow-remote-refs``). Redirects are followed by hand, each hop checked
against that before it is requested: never to another origin (unless allowed), never from https to
http, never to a scheme other than http(s). One deadline covers every hop, head and body.
"""

from __future__ import annotations

import threading
import zlib
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from packc.errors import InputError
from packc.read._limits import too_large
from packc_runtime.calling.netguard import GuardedBackend, PrivateAddress, guarded_transport
from packc_runtime.credentials.origins import origin_of
from packc_runtime.diagnostics import Diagnostic

__all__ = ["PrivateRefused", "RedirectRefused", "fetch", "is_url", "origin_of", "same_origin"]

_MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class RedirectRefused(InputError):
    """A redirect (or a first URL) that the fetch may not follow; ``target`` is where it led."""

    def __init__(
        self, message: str, diagnostics: list[Diagnostic], *, source: str, target: str, reason: str
    ) -> None:
        super().__init__(message, diagnostics)
        self.source, self.target, self.reason = source, target, reason


class PrivateRefused(InputError):
    """(D027) A fetch would connect to an address that is not public, and may not (``netguard``)."""

    def __init__(self, url: str, refused: PrivateAddress) -> None:
        super().__init__(
            f"{url}: {refused}; not fetched",
            [
                Diagnostic(
                    "D027",
                    "error",
                    f"{url}#",
                    f"{refused.host} resolves to {refused.address}, an address that is not public (loopback, private "
                    "network, link-local); it is not fetched, since a document from elsewhere may not reach into this "
                    "machine or its network.",
                    "Pass --allow-private-addresses if the document is yours, or compile a URL on that address itself.",
                )
            ],
        )
        self.refused = refused


def is_url(source: str) -> bool:
    """True for an http(s) URL."""
    try:
        return urlsplit(source).scheme.lower() in ("http", "https")
    except ValueError:  # e.g. "http://[::1": not a usable URL
        return False


def fetch(
    source: str | Path,
    *,
    timeout: float,
    max_bytes: int,
    allowed_origin: str | None = None,
    any_origin: bool = False,
) -> tuple[bytes, str]:
    """Read a local file or an http(s) URL, refusing more than ``max_bytes``.

    Args:
        source: a local path or an http(s) URL.
        timeout: seconds of inactivity per read; the whole fetch (redirects included) has twice that.
        max_bytes: size cap, before and after decompression.
        allowed_origin: the origin a URL and its redirects must stay on (``scheme://host:port``);
            default: the URL's own.
        any_origin: any http(s) origin will do (``--allow-remote-refs``); still never https → http.

    Returns:
        The bytes and the canonical location (an absolute path or the final URL after redirects).

    Raises:
        RedirectRefused: (D026) the URL or a redirect leaves the allowed origins.
        InputError: anything else that stops the read.
    """
    text_source = str(source)
    if isinstance(source, str) and is_url(source):
        allowed = None if any_origin else (allowed_origin or origin_of(source))
        return _fetch_url(source, timeout=timeout, max_bytes=max_bytes, allowed=allowed)
    if isinstance(source, str) and "://" in source:
        raise InputError(
            f"{source}: only local paths and http(s) URLs can be read",
            [_read_error(text_source, "Only local paths and http(s) URLs can be read.")],
        )
    try:
        path = Path(source).expanduser().resolve()
    except (OSError, ValueError, RuntimeError):
        raise InputError(
            f"{text_source!r}: not a usable path",
            [_read_error(text_source, "The source is not a usable path.")],
        ) from None
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"{path}: not a file", [_read_error(str(path), "The source is not a file.")])
        if size > max_bytes:
            raise InputError(
                f"{path}: {size} bytes is more than the limit of {max_bytes}",
                [too_large(str(path), max_bytes)],
            )
        return path.read_bytes(), str(path)
    except ValueError:
        raise InputError(
            f"{path}: not a usable path", [_read_error(str(path), "The source is not a usable path.")]
        ) from None
    except OSError as exc:
        raise InputError(
            f"{path}: {exc.strerror or exc}",
            [_read_error(str(path), f"The file cannot be read ({exc.strerror or exc}).")],
        ) from None


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


def _refusal(allowed: str | None, current: str, target: str) -> str | None:
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


def _fetch_url(url: str, *, timeout: float, max_bytes: int, allowed: str | None) -> tuple[bytes, str]:
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
        raise InputError(
            f"{url}: download took longer than {limit:g} s",
            [_read_error(url, f"The download took longer than {limit:g} s.")],
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
    why = _refusal(allowed, url, url)
    if why is not None:
        raise _refused(url, url, url, why)
    try:
        for _ in range(_MAX_REDIRECTS + 1):
            with client.stream("GET", current, headers=headers) as resp:
                if resp.status_code in _REDIRECTS and "location" in resp.headers:
                    target = str(resp.url.join(resp.headers["location"]))
                    why = _refusal(allowed, current, target)
                    if why is not None:
                        raise _refused(url, current, target, why)
                    current = target
                    continue
                if resp.status_code >= 400:
                    raise InputError(
                        f"{url}: HTTP {resp.status_code}",
                        [_read_error(url, f"The server answered HTTP {resp.status_code}.")],
                    )
                chunks: list[bytes] = []
                size = 0
                for chunk in resp.iter_raw():
                    size += len(chunk)
                    if size > max_bytes:
                        raise InputError(f"{url}: more than {max_bytes} bytes", [too_large(url, max_bytes)])
                    chunks.append(chunk)
                encoding = resp.headers.get("content-encoding", "identity").lower()
                final = str(resp.url)
                break
        else:
            raise InputError(
                f"{url}: more than {_MAX_REDIRECTS} redirects",
                [_read_error(url, f"The server redirected more than {_MAX_REDIRECTS} times.")],
            )
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:  # InvalidURL is no HTTPError
        if guard is not None and guard.refused is not None:
            raise PrivateRefused(url, guard.refused) from None
        raise InputError(
            f"{url}: {type(exc).__name__}: {exc}",
            [_read_error(url, f"The URL cannot be fetched ({type(exc).__name__}).")],
        ) from None
    raw = b"".join(chunks)
    # Only encodings we can inflate with a cap are accepted.
    if encoding not in ("identity", ""):
        raw = _decompress(raw, encoding, url, max_bytes)
    return raw, final


def _refused(url: str, current: str, target: str, why: str) -> RedirectRefused:
    what = f"{current} redirects to {target}" if current != target else f"{target} may not be fetched"
    return RedirectRefused(
        f"{url}: {what} ({why}); not followed",
        [
            Diagnostic(
                "D026",
                "error",
                f"{url}#",
                f"{what}, which is {why}; it is not followed.",
                "Pass --allow-remote-refs if that origin is trusted, or give the final URL itself.",
            )
        ],
        source=current,
        target=target,
        reason=why,
    )


def _decompress(raw: bytes, encoding: str, url: str, max_bytes: int) -> bytes:
    # Raw bytes were read so the size cap applies before decompression too; decompress with a cap,
    # because a small gzip body can expand a thousandfold.
    if encoding not in ("gzip", "deflate", "x-gzip"):
        raise InputError(
            f"{url}: unsupported content-encoding {encoding}",
            [_read_error(url, f"The server used content-encoding {encoding!r}.")],
        )
    wbits = 16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(raw, max_bytes + 1)
    except zlib.error:
        raise InputError(
            f"{url}: corrupt {encoding} body", [_read_error(url, f"The {encoding} body is corrupt.")]
        ) from None
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise InputError(f"{url}: more than {max_bytes} bytes", [too_large(url, max_bytes)])
    return out


def _read_error(location: str, message: str) -> Diagnostic:
    return Diagnostic(
        "D001", "error", f"{location}#", message, "Check the path or URL and that it is reachable."
    )
