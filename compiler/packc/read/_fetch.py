"""Fetch: a local path or an http(s) URL into bytes, under a size cap and one deadline.

A URL fetch may only reach the origins it is allowed: its own (the input's), or any http(s) origin
with ``any_origin`` (``--allow-remote-refs``). The rules of a URL fetch (redirects checked hop by
hop, never https to http, the address guard, one deadline, the caps) have their one home in the
runtime (``packc_runtime.calling.fetch``); this module reads local paths and turns the runtime's
refusals into diagnostics (D026, D027, D001).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from packc.errors import InputError
from packc.read._limits import too_large
from packc_runtime.calling.fetch import (
    FetchFailed,
    FetchPrivate,
    FetchRefused,
    FetchTooLarge,
    fetch_url,
    same_origin,
)
from packc_runtime.calling.netguard import PrivateAddress
from packc_runtime.credentials.origins import origin_of
from packc_runtime.diagnostics import Diagnostic

__all__ = ["PrivateRefused", "RedirectRefused", "fetch", "is_url", "origin_of", "same_origin"]


class RedirectRefused(InputError):
    """A redirect (or a first URL) that the fetch may not follow; ``target`` is where it led."""

    def __init__(
        self, message: str, diagnostics: list[Diagnostic], *, source: str, target: str, reason: str
    ) -> None:
        super().__init__(message, diagnostics)
        self.source, self.target, self.reason = source, target, reason


class PrivateRefused(InputError):
    """(D027) A fetch would connect to an address that is not public, and may not (``_netguard``)."""

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


def _fetch_url(url: str, *, timeout: float, max_bytes: int, allowed: str | None) -> tuple[bytes, str]:
    """The runtime's guarded fetch (the one home of its rules), its refusals as diagnostics."""
    try:
        return fetch_url(url, timeout=timeout, max_bytes=max_bytes, allowed=allowed)
    except FetchRefused as exc:
        raise _refused(url, exc.source, exc.target, exc.reason) from None
    except FetchPrivate as exc:
        raise PrivateRefused(url, exc.refused) from None
    except FetchTooLarge:
        raise InputError(f"{url}: more than {max_bytes} bytes", [too_large(url, max_bytes)]) from None
    except FetchFailed as exc:
        raise InputError(exc.message, [_read_error(url, exc.detail)]) from None


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


def _read_error(location: str, message: str) -> Diagnostic:
    return Diagnostic(
        "D001", "error", f"{location}#", message, "Check the path or URL and that it is reachable."
    )
