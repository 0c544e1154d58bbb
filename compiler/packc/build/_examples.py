"""Deterministic examples that validate against an args schema (``schemas.validates``)."""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from typing import Any

from packc.build._schemas import validates
from packc_runtime.text.patterns import search

__all__ = ["example_for"]

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
    "password": "secret",
    "duration": "P1D",
    "uri-reference": "/items/1",
    "phone": "+15555550100",
    "int32": "1",
    "int64": "1",
}


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
        out += [e for e in schema["enum"] if e is not None][:1]
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
        if not_null and candidate is None:
            continue
        if validates(schema, candidate):
            return True, copy.deepcopy(candidate)
    return False, None
