"""Fetch: a local path or an http(s) URL into bytes, under a size cap and a deadline."""

from __future__ import annotations

import time
import zlib
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from packc_runtime.diagnostics import Diagnostic

from .errors import InputError
from .limits import too_large

__all__ = ["fetch", "is_url"]


def is_url(source: str) -> bool:
    """True for an http(s) URL."""
    try:
        return urlsplit(source).scheme.lower() in ("http", "https")
    except ValueError:  # e.g. "http://[::1": not a usable URL
        return False


def fetch(source: str | Path, *, timeout: float, max_bytes: int) -> tuple[bytes, str]:
    """Read a local file or an http(s) URL, refusing more than ``max_bytes``.

    Returns:
        The bytes and the canonical location (an absolute path or the final URL after redirects).
    """
    text_source = str(source)
    if isinstance(source, str) and is_url(source):
        return _fetch_url(source, timeout=timeout, max_bytes=max_bytes)
    if isinstance(source, str) and "://" in source:
        raise InputError(f"{source}: only local paths and http(s) URLs can be read",
                         [_read_error(text_source, "Only local paths and http(s) URLs can be read.")])
    try:
        path = Path(source).expanduser().resolve()
    except (OSError, ValueError, RuntimeError):
        raise InputError(f"{text_source!r}: not a usable path",
                         [_read_error(text_source, "The source is not a usable path.")]) from None
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"{path}: not a file", [_read_error(str(path), "The source is not a file.")])
        if size > max_bytes:
            raise InputError(f"{path}: {size} bytes is more than the limit of {max_bytes}",
                             [too_large(str(path), max_bytes)])
        return path.read_bytes(), str(path)
    except ValueError:
        raise InputError(f"{path}: not a usable path", [_read_error(str(path), "The source is not a usable path.")]) from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}",
                         [_read_error(str(path), f"The file cannot be read ({exc.strerror or exc}).")]) from None


def _fetch_url(url: str, *, timeout: float, max_bytes: int) -> tuple[bytes, str]:
    chunks: list[bytes] = []
    size = 0
    # httpx's timeout measures inactivity (a byte every few seconds keeps a call alive), so the
    # whole download also has a deadline; only encodings we can inflate with a cap are accepted.
    deadline = time.monotonic() + 2 * timeout
    headers = {"Accept": "application/json, application/yaml, */*", "Accept-Encoding": "gzip, deflate"}
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True, max_redirects=5) as client, \
                client.stream("GET", url, headers=headers) as resp:
            if resp.status_code >= 400:
                raise InputError(f"{url}: HTTP {resp.status_code}",
                                 [_read_error(url, f"The server answered HTTP {resp.status_code}.")])
            final = str(resp.url)
            for chunk in resp.iter_raw():
                size += len(chunk)
                if size > max_bytes:
                    raise InputError(f"{url}: more than {max_bytes} bytes", [too_large(url, max_bytes)])
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise InputError(f"{url}: download took longer than {2 * timeout:g} s", [_read_error(
                        url, f"The download took longer than {2 * timeout:g} s.")])
            encoding = resp.headers.get("content-encoding", "identity").lower()
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:  # InvalidURL is no HTTPError
        raise InputError(f"{url}: {type(exc).__name__}: {exc}",
                         [_read_error(url, f"The URL cannot be fetched ({type(exc).__name__}).")]) from None
    raw = b"".join(chunks)
    if encoding not in ("identity", ""):
        raw = _decompress(raw, encoding, url, max_bytes)
    return raw, final


def _decompress(raw: bytes, encoding: str, url: str, max_bytes: int) -> bytes:
    # Raw bytes were read so the size cap applies before decompression too; decompress with a cap,
    # because a small gzip body can expand a thousandfold.
    if encoding not in ("gzip", "deflate", "x-gzip"):
        raise InputError(f"{url}: unsupported content-encoding {encoding}",
                         [_read_error(url, f"The server used content-encoding {encoding!r}.")])
    wbits = 16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(raw, max_bytes + 1)
    except zlib.error:
        raise InputError(f"{url}: corrupt {encoding} body",
                         [_read_error(url, f"The {encoding} body is corrupt.")]) from None
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise InputError(f"{url}: more than {max_bytes} bytes", [too_large(url, max_bytes)])
    return out


def _read_error(location: str, message: str) -> Diagnostic:
    return Diagnostic("D001", "error", f"{location}#", message, "Check the path or URL and that it is reachable.")
