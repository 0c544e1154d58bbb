"""A check Prism cannot make: decode a form body the way the API's server does (Rack, as Stripe's
documentation describes) and compare each argument with what was sent.

Prism validates a form body against the schema after its own decoding, which accepts a JSON text
where an object is due (``metadata=%7B...%7D``), so it never caught Stripe packs sending objects
that way. Here ``a[b]=1`` nests a hash, ``a[]=1`` appends, ``a[0]=1`` is a hash keyed "0" (Stripe
reads an integer-keyed hash as an array: :func:`stripe_arrays`). The test server
``tests/servers/form_app.py`` decodes with the same functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["form_mismatches", "rack_parse", "stripe_arrays"]

_HEAD = re.compile(r"\A[\[\]]*([^\[\]]+)\]*")


def _normalize(params: dict[str, Any], name: str, value: str) -> None:
    match = _HEAD.match(name)
    if match is None:
        return
    key, after = match.group(1), name[match.end() :]
    if after == "":
        params[key] = value
    elif after == "[]":
        params.setdefault(key, []).append(value)
    elif after.startswith("[]"):  # an array of hashes: a new hash when the last one has the child key
        child = after[2:]
        items = params.setdefault(key, [])
        child_key = _HEAD.match(child)
        last = items[-1] if items else None
        if isinstance(last, dict) and child_key and child_key.group(1) not in last:
            _normalize(last, child, value)
        else:
            fresh: dict[str, Any] = {}
            _normalize(fresh, child, value)
            items.append(fresh)
    else:
        nested = params.setdefault(key, {})
        if not isinstance(nested, dict):
            raise ValueError(f"expected a hash for {key!r}")
        _normalize(nested, after, value)


def rack_parse(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Decoded ``(name, value)`` pairs -> nested params, as Rack's ``parse_nested_query``."""
    params: dict[str, Any] = {}
    for name, value in pairs:
        _normalize(params, name, value)
    return params


def stripe_arrays(value: Any) -> Any:
    """Integer-keyed hashes ("0", "1", ...) as arrays, as Stripe reads array parameters."""
    if isinstance(value, dict):
        if (
            value
            and all(k.isdigit() for k in value)
            and sorted(int(k) for k in value) == list(range(len(value)))
        ):
            return [stripe_arrays(value[str(i)]) for i in range(len(value))]
        return {k: stripe_arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stripe_arrays(v) for v in value]
    return value


def _text(value: Any) -> Any:
    """What a form carries for ``value``: scalars as text, empty containers as nothing."""
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, Mapping):
        return {str(k): _text(v) for k, v in value.items() if _text(v) not in ({}, [])}
    if isinstance(value, list):
        return [_text(v) for v in value if _text(v) not in ({}, [])]
    return str(value)


def form_mismatches(
    body: bytes, args: Mapping[str, Any], binding_args: Mapping[str, Any], encoding: Mapping[str, Any]
) -> list[str]:
    """Arguments whose value does not arrive intact when the urlencoded ``body`` is decoded as Rack
    and Stripe do. Checked: scalars, and objects/arrays whose property is ``deepObject``-encoded
    (other styles have no bracket nesting for a Rack server to read)."""
    try:
        decoded = stripe_arrays(rack_parse(parse_qsl(body.decode("ascii"), keep_blank_values=True)))
    except (UnicodeDecodeError, ValueError) as exc:
        return [f"the body does not decode ({exc})"]
    out = []
    for arg, value in args.items():
        spec = binding_args.get(arg)
        if not isinstance(spec, Mapping) or spec.get("in") != "body" or not isinstance(spec.get("name"), str):
            continue
        name = spec["name"]
        enc = encoding.get(name) if isinstance(encoding.get(name), Mapping) else {}
        nested = isinstance(value, (Mapping, list))
        if nested and enc.get("style") != "deepObject":
            continue
        want = _text(value)
        if want in ({}, []):
            continue
        if decoded.get(name) != want:
            out.append(f"{arg}: sent {want!r}, a Rack server reads {decoded.get(name)!r}")
    return out
