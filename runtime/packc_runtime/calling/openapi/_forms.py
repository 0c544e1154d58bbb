"""Form bodies by the media type's ``encoding``: x-www-form-urlencoded pairs and multipart parts.

OpenAPI's Encoding Object gives each property a ``style``, ``explode`` and ``allowReserved``
(serialized as a query parameter would be, default ``form`` exploded) or a ``contentType``.
``deepObject`` nests objects and arrays the way Rack and qs parse them and Stripe documents
(``metadata[order]=42``, ``items[0][price]=p``, ``expand[0]=x``: the indexed form its own
libraries send); OpenAPI leaves nesting undefined, and this is the form servers decode.
In ``multipart/form-data`` an explicit ``style``/``explode``/``allowReserved`` turns the property
into one text part per pair (OpenAPI 3.1; Stripe's 3.0 file upload relies on it too); otherwise
each property is a part of its ``contentType`` (objects as JSON, array items as parts of their own).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from packc_runtime.calling.openapi._styles import query_value, scalar_text
from packc_runtime.errors import InvalidArgument

__all__ = ["deep_pairs", "form_pairs", "multipart_parts", "urlencoded_body"]

_STYLE_KEYS = ("style", "explode", "allowReserved")

Part = tuple[str, tuple[str | None, bytes] | tuple[str | None, bytes, str]]


def deep_pairs(name: str, value: Any, arg: str) -> list[tuple[str, str]]:
    """``(key, text)`` pairs for ``value`` nested under ``name`` with brackets (deepObject).

    Objects give ``name[key]``, arrays ``name[0]``; an empty object or array gives no pair (there
    is nothing to nest). A key that is empty or holds ``[``/``]`` could not be told apart from the
    nesting by the server, so it is refused (an ``invalid_argument`` naming ``arg``).
    """
    if isinstance(value, Mapping):
        out: list[tuple[str, str]] = []
        for key, item in value.items():
            key = str(key)
            if not key or "[" in key or "]" in key:
                raise InvalidArgument(
                    f"Argument {arg!r}: the key {key!r} cannot be sent in a form body (a key may not "
                    "be empty or hold '[' or ']', the form's nesting marks).",
                    argument=arg,
                )
            out.extend(deep_pairs(f"{name}[{key}]", item, arg))
        return out
    if isinstance(value, list):
        return [
            pair for index, item in enumerate(value) for pair in deep_pairs(f"{name}[{index}]", item, arg)
        ]
    return [(name, scalar_text(value))]


def _styled(name: str, value: Any, style: str, explode: bool, arg: str) -> list[tuple[str, str]]:
    """Pairs for one property serialized like a query parameter of ``style``/``explode``."""
    if style == "deepObject":
        return deep_pairs(name, value, arg)
    delimiter = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
    if isinstance(value, list):
        items = [scalar_text(v) for v in value]
        if explode and style == "form":
            return [(name, v) for v in items]
        return [(name, delimiter.join(items))]
    if isinstance(value, Mapping):
        pairs = [(str(k), scalar_text(v)) for k, v in value.items()]
        if explode and style == "form":
            return pairs
        return [(name, delimiter.join(f"{k}{delimiter}{v}" for k, v in pairs))]
    return [(name, scalar_text(value))]


def _is_json_type(media: str) -> bool:
    base = media.split(";")[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def _has_style(enc: Mapping[str, Any]) -> bool:
    return any(key in enc for key in _STYLE_KEYS)


def form_pairs(
    name: str, value: Any, enc: Mapping[str, Any] | None, arg: str | None = None
) -> tuple[list[tuple[str, str]], bool]:
    """The ``(key, text)`` pairs of one form property and whether reserved characters stay literal.

    ``contentType`` alone (no style, explode or allowReserved) serializes the value as that type
    (JSON text for a JSON type); otherwise style ``form`` and explode true are the defaults.
    """
    enc = enc if isinstance(enc, Mapping) else {}
    content_type = enc.get("contentType")
    if isinstance(content_type, str) and content_type and not _has_style(enc):
        if _is_json_type(content_type):
            return [(name, json.dumps(value, separators=(",", ":"), ensure_ascii=False))], False
        return [(name, scalar_text(value))], False
    style = enc.get("style") if isinstance(enc.get("style"), str) else "form"
    explode = enc["explode"] if isinstance(enc.get("explode"), bool) else style == "form"
    return _styled(name, value, str(style), explode, arg or name), enc.get("allowReserved") is True


def _key(text: str) -> str:
    # Brackets stay literal, as Stripe's own libraries send them; the rest of the key is encoded.
    return quote(text, safe="[]")


def urlencoded_body(
    fields: Mapping[str, Any], encoding: Mapping[str, Any], args: Mapping[str, str] | None = None
) -> bytes:
    """An ``application/x-www-form-urlencoded`` body for ``fields`` by ``encoding`` (``args``:
    property -> the argument that gave it, for errors)."""
    pieces: list[str] = []
    for name, value in fields.items():
        pairs, allow_reserved = form_pairs(name, value, encoding.get(name), (args or {}).get(name))
        pieces.extend(f"{_key(k)}={query_value(v, allow_reserved)}" for k, v in pairs)
    return "&".join(pieces).encode()


def _part_type(value: Any, declared: Any) -> str | None:
    """A part's Content-Type: the encoding's (its first, if it lists several), else JSON for an
    object (OpenAPI's default); a primitive part is text/plain, which a part without one means."""
    if isinstance(declared, str) and declared.strip():
        return declared.split(",")[0].strip()
    return "application/json" if isinstance(value, Mapping) else None


def multipart_parts(
    fields: Mapping[str, Any],
    encoding: Mapping[str, Any],
    is_file: Mapping[str, bool],
    read_file: Any,
    args: Mapping[str, str] | None = None,
) -> list[Part]:
    """``multipart/form-data`` parts for ``fields``, in order, for httpx's ``files``.

    Args:
        fields: property name -> value.
        encoding: the media type's ``encoding`` map.
        is_file: property name -> True when its schema (or its items') is binary: a file path.
        read_file: ``(property, path) -> (filename, bytes)``.
        args: property -> the argument that gave it, for errors.
    """
    parts: list[Part] = []
    for name, value in fields.items():
        enc = encoding.get(name)
        enc = enc if isinstance(enc, Mapping) else {}
        declared = enc.get("contentType")
        if is_file.get(name):
            for item in value if isinstance(value, list) else [value]:
                filename, content = read_file(name, item)
                parts.append(
                    (name, (filename, content, _part_type(item, declared) or "application/octet-stream"))
                )
        elif _has_style(enc):
            parts.extend(
                (key, (None, text.encode()))
                for key, text in form_pairs(name, value, enc, (args or {}).get(name))[0]
            )
        else:
            for item in value if isinstance(value, list) else [value]:
                part_type = _part_type(item, declared)
                text = (
                    json.dumps(item, separators=(",", ":"), ensure_ascii=False)
                    if part_type and _is_json_type(part_type)
                    else scalar_text(item)
                )
                parts.append((name, (None, text.encode(), part_type) if part_type else (None, text.encode())))
    return parts
