"""Serialize parameter values by OpenAPI style and explode (path, query, header, cookie)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from packc_runtime.calling.openapi.operations import Parameter
from packc_runtime.errors import InvalidArgument

__all__ = [
    "RESERVED_LITERAL",
    "encode_path_value",
    "query_value",
    "scalar_text",
    "serialize_cookie",
    "serialize_header",
    "serialize_path",
    "serialize_query",
]

# What allowReserved keeps literal in a query or form value: RFC 3986's reserved characters
# (":/?#[]@!$&'()*+,;=") except those that would change the query's structure for the server,
# which stay percent-encoded whatever the document says: '&' (starts another pair), '=' (splits
# key from value), '#' (ends the query: the rest would be a fragment, never sent), '+' (a space to
# form decoders) and ';' (a pair separator to some servers). A value can so never add a
# parameter, change a key or cut the query short (tests/security/internals/test_sec_query.py).
RESERVED_LITERAL = ":/?[]@!$'()*,"


def scalar_text(value: Any) -> str:
    """A primitive as OpenAPI writes it: booleans lower-case, ``null`` empty, others as ``str``."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return str(value)


def encode_path_value(text: str) -> str:
    """Percent-encode a value so that it stays inside one path segment.

    Every reserved character, ``%``, ``\\``, control characters and non-ASCII are encoded; ``.`` is
    encoded too, because httpx removes ``.``/``..`` segments and two values can meet in one segment.
    """
    return quote(text, safe="").replace(".", "%2E")


def query_value(text: str, allow_reserved: bool) -> str:
    """``text`` percent-encoded for a query or form value (``allow_reserved``: see :data:`RESERVED_LITERAL`)."""
    return quote(text, safe=RESERVED_LITERAL if allow_reserved else "")


def _pairs(value: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(str(k), scalar_text(v)) for k, v in value.items()]


def _content(param: Parameter, value: Any) -> str | None:
    if param.content_type is None:
        return None
    if "json" in param.content_type:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return scalar_text(value)


def serialize_path(param: Parameter, value: Any) -> str:
    """The encoded text that replaces ``{name}`` in the path template."""
    enc = encode_path_value
    content = _content(param, value)
    if content is not None:
        value = content
    style, explode = param.style, param.explode
    if isinstance(value, list):
        items = [enc(scalar_text(v)) for v in value]
        if style == "label":
            return "." + ("." if explode else ",").join(items)
        if style == "matrix":
            name = enc(param.name)
            return "".join(f";{name}={v}" for v in items) if explode else f";{name}=" + ",".join(items)
        return ",".join(items)
    if isinstance(value, Mapping):
        pairs = [(enc(k), enc(v)) for k, v in _pairs(value)]
        if explode:
            joined = [f"{k}={v}" for k, v in pairs]
            if style == "label":
                return "." + ".".join(joined)
            if style == "matrix":
                return "".join(";" + p for p in joined)
            return ",".join(joined)
        flat = ",".join(f"{k},{v}" for k, v in pairs)
        if style == "label":
            return "." + flat
        if style == "matrix":
            return f";{enc(param.name)}={flat}"
        return flat
    text = enc(scalar_text(value))
    if style == "label":
        return "." + text
    if style == "matrix":
        return f";{enc(param.name)}={text}"
    return text


def serialize_query(param: Parameter, value: Any) -> list[str]:
    """Encoded ``name=value`` pieces for the query string (never merged with other parameters)."""
    name = quote(param.name, safe="")
    content = _content(param, value)
    if content is not None:
        return [f"{name}={query_value(content, False)}"]

    def enc(text: str) -> str:
        return query_value(text, param.allow_reserved)

    style, explode = param.style, param.explode
    if isinstance(value, list):
        items = [enc(scalar_text(v)) for v in value]
        if style == "form" and explode:
            return [f"{name}={v}" for v in items]
        delimiter = {"spaceDelimited": "%20", "pipeDelimited": "|"}.get(style, ",")
        return [f"{name}=" + delimiter.join(items)]
    if isinstance(value, Mapping):
        pairs = _pairs(value)
        if style == "deepObject":
            return [f"{name}%5B{quote(k, safe='')}%5D={enc(v)}" for k, v in pairs]
        if explode:
            return [f"{quote(k, safe='')}={enc(v)}" for k, v in pairs]
        delimiter = {"spaceDelimited": "%20", "pipeDelimited": "|"}.get(style, ",")
        return [f"{name}=" + delimiter.join(f"{enc(k)}{delimiter}{enc(v)}" for k, v in pairs)]
    return [f"{name}={enc(scalar_text(value))}"]


def _check_header_text(name: str, text: str) -> str:
    if any(ch in text for ch in "\r\n\x00"):
        raise InvalidArgument(
            f"The value for header {name!r} contains CR, LF or NUL, which HTTP forbids.", argument=name
        )
    if not text.isascii():
        raise InvalidArgument(
            f"The value for header {name!r} contains non-ASCII characters, which HTTP headers cannot carry.",
            argument=name,
        )
    return text


def serialize_header(param: Parameter, value: Any) -> str:
    """The header value (style ``simple``); refuses CR, LF, NUL and non-ASCII."""
    content = _content(param, value)
    if content is not None:
        return _check_header_text(param.name, content)
    if isinstance(value, list):
        text = ",".join(scalar_text(v) for v in value)
    elif isinstance(value, Mapping):
        pairs = _pairs(value)
        text = (
            ",".join(f"{k}={v}" for k, v in pairs)
            if param.explode
            else ",".join(f"{k},{v}" for k, v in pairs)
        )
    else:
        text = scalar_text(value)
    return _check_header_text(param.name, text)


def _cookie_value(text: str) -> str:
    # cookie-octet excludes CTLs, whitespace, DQUOTE, comma, semicolon and backslash: encode those.
    return quote(text, safe="!#$&'()*+-./:<=>?@[]^_`{|}~")


def serialize_cookie(param: Parameter, value: Any) -> list[tuple[str, str]]:
    """``(name, encoded value)`` pairs for the Cookie header (style ``form``)."""
    content = _content(param, value)
    if content is not None:
        return [(param.name, _cookie_value(content))]
    if isinstance(value, list):
        items = [_cookie_value(scalar_text(v)) for v in value]
        if param.explode:
            return [(param.name, v) for v in items]
        return [(param.name, ",".join(items))]
    if isinstance(value, Mapping):
        pairs = _pairs(value)
        if param.explode:
            return [(k, _cookie_value(v)) for k, v in pairs]
        return [(param.name, ",".join(f"{_cookie_value(k)},{_cookie_value(v)}" for k, v in pairs))]
    return [(param.name, _cookie_value(scalar_text(value)))]
