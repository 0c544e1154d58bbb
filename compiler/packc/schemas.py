"""OpenAPI schemas → self-contained JSON Schema for args, and deterministic examples that validate."""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from packc_runtime.patterns import risky, safe_validator, search

from .model import Api, resolve_pointer
from .text import clean, shorten

__all__ = ["example_for", "inline_schema", "validates"]

MAX_DEPTH = 8
MAX_NODES = 400  # per argument: big shared schemas are cut, not copied thousands of times
_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
_SUB = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
        "unevaluatedProperties", "unevaluatedItems")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "dependentSchemas")
_NUM = ("minimum", "maximum", "multipleOf")
_INT = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
_COPY = ("format", "default", "const", "readOnly", "writeOnly", "deprecated", "contentMediaType",
         "contentEncoding", "uniqueItems")
CUT_NOTE = "Recursive or very large schema cut here; see the pack's openapi.json."


class _Budget:
    def __init__(self) -> None:
        self.nodes = 0
        self.cut = False
        self.risky: list[str] = []  # patterns left out: they may backtrack for ever (packc_runtime.patterns)


def _pattern_ok(pattern: object, budget: _Budget) -> bool:
    if not isinstance(pattern, str):
        return False
    if risky(pattern):  # also every pattern re cannot compile
        import warnings

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "possible nested set" and the like: still a pattern
                re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            return False  # not a pattern at all: dropped as before, without a warning
        budget.risky.append(pattern)
        return False
    return True


def inline_schema(api: Api, node: Any) -> tuple[Any, bool, tuple[str, ...]]:
    """``node`` with internal refs inlined and OpenAPI-only keywords mapped to JSON Schema.

    Returns the schema, whether something (a cycle, a size limit) was cut to ``{}``, and the
    patterns left out because running them could take exponential time.
    """
    budget = _Budget()
    out = _inline(api, node, (), 0, budget)
    # Every keyword above is copied only with a value of the right type, so the result is valid
    # JSON Schema by construction; lint checks each pack against the meta-schema once more.
    return out, budget.cut, tuple(budget.risky)


_SHALLOW = ("type", "format", "enum", "const", "nullable", "minimum", "maximum", "minLength", "maxLength", "pattern")


def _cut(budget: _Budget, api: Api, node: Mapping[str, Any]) -> dict[str, Any]:
    """A cut keeps a scalar node's own keywords (its type above all), so an example still has to fit."""
    budget.cut = True
    target: Any = node
    for _ in range(16):  # follow a chain of refs, not a cycle
        ref = target.get("$ref") if isinstance(target, Mapping) else None
        if not isinstance(ref, str):
            break
        target = resolve_pointer(api.document, ref)
    shallow = {k: v for k, v in target.items() if k in _SHALLOW} if isinstance(target, Mapping) else {}
    out = _inline(api, shallow, (), 0, _Budget()) if shallow else {}
    types = out.get("type") if isinstance(out, dict) else None
    if not isinstance(out, dict) or not types or {"object", "array"} & set([types] if isinstance(types, str) else types):
        out = {}  # a cut object stays open: its required properties are beyond the cut
    return {"description": CUT_NOTE, **{k: v for k, v in out.items() if k != "description"}}


def _inline(api: Api, node: Any, stack: tuple[str, ...], depth: int, budget: _Budget) -> Any:
    if isinstance(node, bool):
        return node
    if not isinstance(node, Mapping):
        return {}
    budget.nodes += 1
    if depth > MAX_DEPTH or budget.nodes > MAX_NODES:
        return _cut(budget, api, node)
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in stack:
            return _cut(budget, api, node)
        target = resolve_pointer(api.document, ref)
        if target is None:
            return {}
        inner = _inline(api, target, (*stack, ref), depth + 1, budget)
        extra = {k: v for k, v in node.items() if k in ("description", "nullable")}
        if extra and isinstance(inner, dict):  # 3.1 allows siblings of $ref
            inner = {**inner, **_inline(api, extra, stack, depth, budget)}
        return inner
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _MAPS and isinstance(value, Mapping):
            out[key] = {str(k): _inline(api, v, stack, depth + 1, budget) for k, v in value.items()}
        elif key in _SUB and isinstance(value, Mapping | bool):
            out[key] = _inline(api, value, stack, depth + 1, budget)
        elif key == "items" and isinstance(value, list):  # draft-4 tuple form
            out["prefixItems"] = [_inline(api, v, stack, depth + 1, budget) for v in value]
        elif key in _LISTS and isinstance(value, list) and value:
            out[key] = [_inline(api, v, stack, depth + 1, budget) for v in value]
        elif key == "type":
            types = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            kept = [t for t in types if isinstance(t, str) and t in _TYPES]
            kept = list(dict.fromkeys(kept))
            if kept:
                out["type"] = kept[0] if len(kept) == 1 else kept
        elif key in ("description", "title") and isinstance(value, str):
            text = shorten(clean(value), 160)
            if text:
                out[key] = text
        elif key == "enum" and isinstance(value, list) and value:
            unique: list[Any] = []
            for v in value:
                if v not in unique:
                    unique.append(copy.deepcopy(v))
            out["enum"] = unique
        elif key == "required" and isinstance(value, list):
            names = [v for v in value if isinstance(v, str)]
            if names:
                out["required"] = list(dict.fromkeys(names))
        elif key in _NUM and isinstance(value, int | float) and not isinstance(value, bool):
            if key != "multipleOf" or value > 0:
                out[key] = value
        elif key in _INT and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
        elif key in ("exclusiveMinimum", "exclusiveMaximum"):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if isinstance(value, bool):  # OpenAPI 3.0 / draft 4: a flag on minimum/maximum
                if value and isinstance(node.get(bound), int | float):
                    out[key] = node[bound]
            elif isinstance(value, int | float):
                out[key] = value
        elif key == "pattern":
            if _pattern_ok(value, budget):
                out[key] = value
        elif key == "example":
            out.setdefault("examples", [copy.deepcopy(value)])
        elif key == "examples" and isinstance(value, list):
            out["examples"] = copy.deepcopy(value)
        elif key in _COPY:
            if key == "uniqueItems" and not isinstance(value, bool):
                continue
            if key in ("format", "contentMediaType", "contentEncoding") and not isinstance(value, str):
                continue
            if key in ("readOnly", "writeOnly", "deprecated") and not isinstance(value, bool):
                continue
            out[key] = copy.deepcopy(value)
    if isinstance(out.get("exclusiveMinimum"), int | float) and out.get("minimum") == out["exclusiveMinimum"]:
        del out["minimum"]
    if isinstance(out.get("exclusiveMaximum"), int | float) and out.get("maximum") == out["exclusiveMaximum"]:
        del out["maximum"]
    if isinstance(out.get("allOf"), list):
        # OpenAPI "inheritance": additionalProperties false beside (or inside) allOf parts rejects the
        # other parts' properties in JSON Schema, so no value could validate; loosen it.
        if out.get("additionalProperties") is False:
            del out["additionalProperties"]
        for part in out["allOf"]:
            if isinstance(part, dict) and part.get("additionalProperties") is False:
                del part["additionalProperties"]
    if "enum" in out:
        _repair_enum(out)
    if node.get("nullable") is True:
        out = _nullable(out)
    if "examples" in out:
        good = [e for e in out["examples"] if validates({k: v for k, v in out.items() if k != "examples"}, e)]
        if good:
            out["examples"] = good[:3]
        else:
            del out["examples"]
    if "default" in out and not validates({k: v for k, v in out.items() if k != "default"}, out["default"]):
        del out["default"]
    return out


def _repair_enum(out: dict[str, Any]) -> None:
    """Enum members the schema's own type rejects: numbers for a string become strings, others go."""
    if "type" not in out:
        return
    typed = {"type": out["type"]}
    kept: list[Any] = []
    for v in out["enum"]:
        if validates(typed, v):
            kept.append(v)
        elif isinstance(v, int | float) and not isinstance(v, bool) and validates(typed, str(v)):
            kept.append(str(v))
    unique: list[Any] = []
    for v in kept:
        if v not in unique:
            unique.append(v)
    if unique:
        out["enum"] = unique
    else:
        del out["enum"]


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    t = schema.get("type")
    if isinstance(t, str):
        schema["type"] = [t, "null"]
    elif isinstance(t, list) and "null" not in t:
        schema["type"] = [*t, "null"]
    elif t is None and schema:
        return {"anyOf": [schema, {"type": "null"}]}
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


# Draft 2020-12's type checks, as jsonschema makes them (an integral float is an integer).
_TYPE_CHECKS: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _type_only(schema: Any, value: Any) -> bool | None:
    """The answer for a schema that is only a known ``type`` (enum repair asks it for every member);
    None for any other schema."""
    if not isinstance(schema, dict) or len(schema) != 1 or "type" not in schema:
        return None
    types = schema["type"]
    names = [types] if isinstance(types, str) else types if isinstance(types, list) else None
    if not names or not all(isinstance(t, str) and t in _TYPE_CHECKS for t in names):
        return None
    return any(_TYPE_CHECKS[t](value) for t in names)


@functools.lru_cache(maxsize=4096)
def _validator(text: str) -> Draft202012Validator:
    # Built from the JSON text (what a pack ships and the runtime validates against), not the caller's
    # dict: a dict changed later cannot change a cached validator.
    return safe_validator(Draft202012Validator)(json.loads(text))  # type: ignore[no-any-return]


def validates(schema: Any, value: Any) -> bool:
    """Does ``value`` validate against ``schema`` (draft 2020-12, no remote refs)?"""
    import warnings

    quick = _type_only(schema, value)
    if quick is not None:
        return quick
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # FutureWarning on patterns like "[[a]": still valid
            try:
                validator = _validator(json.dumps(schema, sort_keys=True))
            except (TypeError, ValueError):  # not JSON text (a non-string key, a cycle): not cached
                validator = safe_validator(Draft202012Validator)(schema)
            return next(iter(validator.iter_errors(value)), None) is None
    except Exception:  # unusable schema: treat the value as not validated
        return False


# --- examples ---------------------------------------------------------------------------------------

_FORMATS: dict[str, Any] = {
    "date": "2024-01-15", "date-time": "2024-01-15T09:30:00Z", "time": "09:30:00Z", "email": "user@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "uri": "https://example.com/item", "url": "https://example.com/item",
    "hostname": "example.com", "ipv4": "192.0.2.10", "ipv6": "2001:db8::1", "binary": "./file.bin",
    "byte": "ZXhhbXBsZQ==", "password": "secret", "duration": "P1D", "uri-reference": "/items/1",
    "phone": "+15555550100", "int32": "1", "int64": "1",
}


def _from_pattern(pattern: str) -> str | None:
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
                out.append(gen(sub, depth + 1) * min(count, 64))
            elif op is SUBPATTERN:
                out.append(gen(av[-1], depth + 1))
            elif op is BRANCH:
                out.append(gen(av[1][0], depth + 1))
            elif op is AT:
                continue
            else:
                return "\x00"  # lookarounds, backrefs: give up
        return "".join(out)

    try:
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
        gen = _from_pattern(schema["pattern"])
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


def _filled(schema: Mapping[str, Any], obj: dict[str, Any], least: int, props: Mapping[str, Any],
            depth: int) -> dict[str, Any]:
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
