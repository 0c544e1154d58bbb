"""Deterministic examples that validate against an args schema (``_schemas.validates``)."""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from packc.build._schemas import conforms, validates
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.text.patterns import search

__all__ = ["PLACEHOLDERS", "enum_order", "example_for", "is_placeholder", "name_hints", "with_example"]

# Longest text an example is built up to: written-out counts multiply (``((a{1000}){1000}){1000}``
# is a billion characters, four levels cannot be allocated at all), so a longer one is given up.
_MAX_EXAMPLE = 4096

_FORMATS: dict[str, Any] = {
    "date": "2024-01-15",
    "date-time": "2024-01-15T09:30:00Z",
    "time": "09:30:00Z",
    "email": "user@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "uri": "https://example.com/item",
    "url": "https://example.com/item",
    "hostname": "example.com",
    "ipv4": "192.0.2.10",
    "ipv6": "2001:db8::1",
    "binary": "./file.bin",
    "byte": "ZXhhbXBsZQ==",
    "duration": "P1D",
    "uri-reference": "/items/1",
    "phone": "+15555550100",
    "int32": "1",
    "int64": "1",
    # Formats documents use beyond JSON Schema's (counted over the corpus), each with a value of it.
    "uint64": "1",
    "iri": "https://example.com/item",
    "iri-reference": "/items/1",
    "uri-template": "https://example.com/items/{id}",
    "idn-email": "user@example.com",
    "idn-hostname": "example.com",
    "google-datetime": "2024-01-15T09:30:00Z",
    "google-duration": "3.5s",
    "google-fieldmask": "name",
    "dateTime": "2024-01-15T09:30:00Z",
    "datetime": "2024-01-15T09:30:00Z",
    "iso-datetime": "2024-01-15T09:30:00Z",
    "phone-number": "+15555550100",
    "iso-country-code": "US",
    "currency": "USD",
    "decimal": "1.00",
    "double": "1.5",
    "float": "1.5",
    "base64": "ZXhhbXBsZQ==",
    "base64url": "ZXhhbXBsZQ",
    "guid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "bcp-47": "en-US",
    "http-method": "GET",
    "domain": "example.com",
}
# Formats that say only "text" of some kind: a word of text is a value of them.
_TEXT_FORMATS = frozenset({"string", "text", "html", "markdown", "slug", "path", "json-path", "mask"})


# Words a document or a generator writes where it has no value: on a ready-to-run line they read as
# a real one (``--currency example``, ``--tax_exempt ''``).
PLACEHOLDERS = frozenset({"", "example", "string", "text", "value", "str"})


def is_placeholder(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` is a placeholder word standing for an argument that needs a real value: one
    with a format, or an enum with another value (``""`` may be the only one: then it is the value)."""
    if not (isinstance(value, str) and value.strip().lower() in PLACEHOLDERS):
        return False
    enum = schema.get("enum")
    if isinstance(enum, list):  # a member is a value (Ably's `by: value`), the empty text means unset
        return value == "" and any(e != "" and e is not None for e in enum)
    fmt = schema.get("format")
    return isinstance(fmt, str) and fmt not in _TEXT_FORMATS


def _from_pattern(pattern: str, min_length: int = 0) -> str | None:
    """A short text ``pattern`` matches, at least ``min_length`` long when a repeat can grow to it."""
    try:
        import re._parser as sre  # type: ignore[import-not-found]
        from re._constants import (  # type: ignore[import-not-found]
            ANY,
            AT,
            BRANCH,
            CATEGORY,
            CATEGORY_DIGIT,
            CATEGORY_SPACE,
            IN,
            LITERAL,
            MAX_REPEAT,
            MIN_REPEAT,
            NEGATE,
            NOT_LITERAL,
            RANGE,
            SUBPATTERN,
        )

        parsed = sre.parse(pattern)
    except Exception:  # unsupported pattern syntax: no generated example
        return None

    def one_of_set(items: Any) -> str:
        if items and items[0][0] is NEGATE:
            for ch in "aZ0_x-":
                if re.fullmatch(pattern_set(items), ch):
                    return ch
            return "a"
        op, av = items[0]
        if op is LITERAL:
            return chr(av)
        if op is RANGE:
            return chr(av[0])
        if op is CATEGORY:
            return "0" if av is CATEGORY_DIGIT else " " if av is CATEGORY_SPACE else "a"
        return "a"

    def pattern_set(items: Any) -> str:
        return "[^" + re.escape("".join(chr(av) for op, av in items if op is LITERAL)) + "]"

    def gen(items: Any, depth: int = 0) -> str:
        if depth > 20:
            return ""
        out = []
        for op, av in items:
            if op is LITERAL:
                out.append(chr(av))
            elif op is NOT_LITERAL:
                out.append("a" if av != ord("a") else "b")
            elif op is ANY:
                out.append("a")
            elif op is IN:
                out.append(one_of_set(av))
            elif op in (MAX_REPEAT, MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
                lo, hi, sub = av
                count = lo if lo > 0 else (1 if hi != 0 else 0)
                unit = gen(sub, depth + 1)
                if grow[0] > 0 and unit and hi > count:  # the first repeats that can grow make minLength
                    more = min(hi - count, -(-grow[0] // len(unit)))
                    count += more
                    grow[0] -= more * len(unit)
                if len(unit) * min(count, 1024) + sum(map(len, out)) > _MAX_EXAMPLE:
                    return "\x00"
                out.append(unit * min(count, 1024))
            elif op is SUBPATTERN:
                out.append(gen(av[-1], depth + 1))
            elif op is BRANCH:
                out.append(gen(av[1][0], depth + 1))
            elif op is AT:
                continue
            else:
                return "\x00"  # lookarounds, backrefs: give up
        return "".join(out)

    grow = [0]
    try:
        text = gen(parsed)
        if 0 < len(text) < min_length and "\x00" not in text:
            grow[0] = min_length - len(text)
            text = gen(parsed)
    except (re.error, RecursionError, ValueError, TypeError):  # e.g. a negated set of ranges only
        return None
    if "\x00" in text:
        return None
    try:
        return text if search(pattern, text) else None  # None also for a risky pattern: never run
    except re.error:
        return None


def _string(schema: Mapping[str, Any]) -> list[Any]:
    fmt = schema.get("format")
    base = [_FORMATS[fmt]] if isinstance(fmt, str) and fmt in _FORMATS else []
    if isinstance(schema.get("pattern"), str):
        lo_len = schema.get("minLength", 0)
        gen = _from_pattern(schema["pattern"], lo_len if isinstance(lo_len, int) else 0)
        if gen is not None:
            base.insert(0, gen)
    if not isinstance(fmt, str) or fmt in _FORMATS or fmt in _TEXT_FORMATS:
        # A format we have no value for (a password, ``currency``, ``country-code``) gets none:
        # "example" would read as a real value on a ready-to-run line (issue 24).
        base.append("example")
    lo, hi = schema.get("minLength", 0), schema.get("maxLength")
    out = []
    for cand in base:
        if isinstance(cand, str):
            if len(cand) < lo:
                cand = cand + "x" * (lo - len(cand))
            if isinstance(hi, int) and len(cand) > hi:
                cand = cand[:hi]
        out.append(cand)
    return out


def _number(schema: Mapping[str, Any], integer: bool) -> list[Any]:
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 1
    if isinstance(lo, int | float):
        value = max(value, lo + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0))
    if isinstance(hi, int | float) and value > hi:
        value = hi - (1 if "exclusiveMaximum" in schema and "maximum" not in schema else 0)
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and step > 0:
        value = math.ceil(value / step) * step
    if integer:
        value = math.ceil(value)
    cands: list[Any] = [value if not integer else int(value)]
    if isinstance(lo, int | float):
        cands.append(math.ceil(lo) if integer else lo)
    if isinstance(hi, int | float):
        cands.append(math.floor(hi) if integer else hi)
    return cands


def _candidates(schema: Any, depth: int, fill: bool = False) -> list[Any]:
    if schema is True or schema == {}:
        return ["example"]
    if not isinstance(schema, Mapping) or depth > 6:
        return []
    out: list[Any] = []
    if isinstance(schema.get("examples"), list):
        out += schema["examples"][:1]
    if "const" in schema:
        out.append(schema["const"])
    if isinstance(schema.get("enum"), list):
        out += enum_order(schema)[:2]
    if "default" in schema:
        out.append(schema["default"])
    for key in ("oneOf", "anyOf"):
        for option in schema.get(key, []):
            if (
                isinstance(option, Mapping)
                and "type" not in option
                and ("properties" in schema or "type" in schema)
            ):
                # `oneOf: [{required: [url]}, {required: [html]}]` beside the properties: the option
                # only narrows the schema around it, so the example is that schema narrowed.
                out += _candidates(_narrowed(schema, option), depth + 1)[:2]
            else:
                out += _candidates(option, depth + 1)[:2]
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            if isinstance(part, Mapping):
                for k, v in part.items():
                    if k == "properties" and isinstance(v, Mapping):
                        merged.setdefault("properties", {}).update(v)
                    elif k == "required" and isinstance(v, list):
                        merged.setdefault("required", []).extend(v)
                    else:
                        merged.setdefault(k, v)
        out += _candidates(merged, depth + 1)[:2]
    t = schema.get("type")
    types = [t] if isinstance(t, str) else list(t) if isinstance(t, list) else []
    if not types:
        types = ["object"] if "properties" in schema else ["array"] if "items" in schema else ["string"]
    for kind in [k for k in types if k != "null"] + (["null"] if "null" in types else []):
        if kind == "string":
            out += _string(schema)
        elif kind in ("integer", "number"):
            out += _number(schema, kind == "integer")
        elif kind == "boolean":
            out.append(True)
        elif kind == "null":
            out.append(None)
        elif kind == "array":
            items = schema.get("items", {})
            inner = _candidates(items, depth + 1)[:1]
            count = max(1, schema.get("minItems", 1) if isinstance(schema.get("minItems"), int) else 1)
            out.append(inner * count if inner else [])
            out.append([])
        elif kind == "object":
            obj: dict[str, Any] = {}
            props = schema.get("properties", {}) if isinstance(schema.get("properties"), Mapping) else {}
            for name in schema.get("required", []) if isinstance(schema.get("required"), list) else []:
                sub = _candidates(props.get(name, {}), depth + 1)[:1]
                obj[name] = sub[0] if sub else "example"
            least = schema.get("minProperties", 0) if isinstance(schema.get("minProperties"), int) else 0
            if len(obj) < max(least, 1 if depth == 0 and fill else 0):
                out.append(_filled(schema, obj, max(least, 1), props, depth))
            out.append(obj)
    return out


def enum_order(schema: Mapping[str, Any]) -> list[Any]:
    """A schema's enum values, best example first: those its description names, in the order it
    names them (Twilio's ``fallback_method`` enum starts with HEAD and says "Can be: GET or POST"),
    then the others as listed; an empty text last (Stripe's ``tax_exempt`` lists ``""`` first, which
    means "unset")."""
    values = [e for e in schema.get("enum", []) if e is not None]
    text = str(schema.get("description", ""))

    def named(value: Any) -> int:
        if not isinstance(value, str) or len(value) < 2:
            return len(text) + 1
        found = re.search(r"(?<![\w-])" + re.escape(value) + r"(?![\w-])", text)
        return found.start() if found else len(text) + 1

    return sorted(values, key=lambda v: (v == "", named(v)))


def _narrowed(schema: Mapping[str, Any], option: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``oneOf``/``anyOf``, with one option's properties and required added."""
    merged = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf", "examples", "default")}
    for k, v in option.items():
        if k == "properties" and isinstance(v, Mapping):
            merged["properties"] = {**merged.get("properties", {}), **v}
        elif k == "required" and isinstance(v, list):
            merged["required"] = [*merged.get("required", []), *v]
        else:
            merged.setdefault(k, v)
    return merged


def _filled(
    schema: Mapping[str, Any], obj: dict[str, Any], least: int, props: Mapping[str, Any], depth: int
) -> dict[str, Any]:
    """``obj`` with optional properties added (declared ones first, then additional ones) up to ``least``."""
    filled = dict(obj)
    for name, sub_schema in props.items():
        if len(filled) >= least:
            return filled
        if name not in filled:
            sub = [c for c in _candidates(sub_schema, depth + 1) if c is not None][:1]
            if sub:
                filled[name] = sub[0]
    extra = schema.get("additionalProperties", True)
    n = 1
    while len(filled) < least and extra is not False and n <= 64:
        sub = _candidates(extra, depth + 1)[:1] if extra is not True else ["example"]
        if not sub:
            break
        key = f"key{n}" if n > 1 else "key"
        if key not in filled:
            filled[key] = sub[0]
        n += 1
    return filled


def example_for(schema: Any, *, fill: bool = False, not_null: bool = False) -> tuple[bool, Any]:
    """A deterministic example that validates against ``schema``; ``(False, None)`` when none is found.

    ``fill``: an object example gets at least one property (a required object query parameter with
    ``{}`` sends nothing). ``not_null``: never ``None`` (the runtime reads a null argument as missing).
    """
    for candidate in _candidates(schema, 0, fill):
        if (not_null and candidate is None) or (
            isinstance(schema, Mapping) and is_placeholder(schema, candidate)
        ):
            continue
        if validates(schema, candidate):
            return True, copy.deepcopy(candidate)
    return False, None


def with_example(
    schema: dict[str, Any],
    given: Sequence[Any],
    where: str,
    diags: list[Diagnostic],
    *,
    required: bool = False,
    fill: bool = False,
    decode: bool = False,
    hints: Sequence[Any] = (),
) -> dict[str, Any]:
    """The first given, hinted or schema example that validates and is no placeholder word
    (``example`` for a format or an enum: :func:`is_placeholder`), else a generated one.

    ``required``: never null (the runtime reads a null argument as missing). ``fill``: never an empty
    object (a required object query parameter sent as ``{}`` is not sent at all). ``decode``: the
    argument is percent-encoded when sent (query, path, form), so a text the document wrote already
    encoded is decoded first (Spotify's ``remaster%20track:Doxy`` went out as ``remaster%2520track``).
    ``hints``: values to try after the document's own (:func:`name_hints`). A password gets none.
    """
    bare = {k: v for k, v in schema.items() if k != "examples"}
    if bare.get("format") == "password":
        # A secret's example is either made up ("secret" read as one on a line) or a real one the
        # document leaked: none is shown, and a required one reads '<name>' (issue 24, item 5).
        return bare
    for value in [*given, *hints, *schema.get("examples", [])]:
        if decode:
            value = _decoded(value)
        if (required and value is None) or (fill and value == {}) or is_placeholder(bare, value):
            continue
        if validates(bare, value) and conforms(bare, value):
            return {**bare, "examples": [value]}
    ok, value = example_for(bare, fill=fill, not_null=required)
    if ok and fill and value == {}:
        ok = False
    if ok:
        return {**bare, "examples": [value]}
    diags.append(
        Diagnostic(
            "C120",
            "warning",
            where,
            "No example could be found or generated for this argument.",
            "Add an example that validates to the parameter or schema.",
        )
    )
    return bare


_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_CURRENCY = re.compile(r"(\w+_)?currency(_code)?", re.I)


def _decoded(value: Any) -> Any:
    """A text the document wrote percent-encoded, decoded; anything else as it is. A URL keeps its
    escapes (``https://x/a%20b`` is a URL as written); an array's texts are decoded one by one."""
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    for _ in range(3):  # Azure's `2018-02-05T00%253A30` was encoded twice
        if not isinstance(value, str) or not _ENCODED.search(value) or _URL.match(value):
            return value
        value = unquote(value)
    return value


def name_hints(name: str, schema: Mapping[str, Any]) -> list[Any]:
    """Examples the name makes certain where the schema says only "a string": a currency argument is a
    three-letter code (Stripe's ``currency`` showed as ``--currency example``), lower case when its
    description asks for it."""
    if _CURRENCY.fullmatch(name) and schema.get("type") == "string" and "enum" not in schema:
        lower = re.search(r"\blower ?case\b", str(schema.get("description", "")), re.I)
        return ["usd" if lower else "USD"]
    return []
