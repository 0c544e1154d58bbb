"""OpenAPI schemas → self-contained JSON Schema for args, and whether a value validates (examples: ``_examples.py``)."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from packc.model import Api, resolve_pointer
from packc.text import clean, shorten
from packc_runtime.rules import SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, SCHEMA_ONE_KEYWORDS
from packc_runtime.text.patterns import risky, validator

__all__ = ["inline_schema", "unique_values", "validates"]

MAX_DEPTH = 8
MAX_NODES = 400  # per argument: big shared schemas are cut, not copied thousands of times
_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
# An args schema keeps the subschemas a 2020-12 validator checks: not additionalItems (draft 7's,
# unknown to 2020-12) nor contentSchema (an annotation), and no $defs or definitions (every $ref is
# inlined, so nothing points at them).
_SUB = SCHEMA_ONE_KEYWORDS - {"additionalItems", "contentSchema"}
_LISTS = SCHEMA_LIST_KEYWORDS
_MAPS = SCHEMA_MAP_KEYWORDS - {"$defs", "definitions"}
_NUM = ("minimum", "maximum", "multipleOf")
_INT = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
_COPY = (
    "format",
    "default",
    "const",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding",
    "uniqueItems",
)
CUT_NOTE = "Recursive or very large schema cut here; see the pack's openapi.json."


class _Budget:
    def __init__(self) -> None:
        self.nodes = 0
        self.cut = False
        self.risky: list[
            str
        ] = []  # patterns left out: they may backtrack for ever (packc_runtime.text.patterns)


def _pattern_ok(pattern: object, budget: _Budget) -> bool:
    """A pattern args may keep: one ``re`` compiles and that cannot backtrack for ever (noted in ``budget``)."""
    if not isinstance(pattern, str):
        return False
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and the like: still a valid pattern
            re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False  # not a pattern at all: dropped, without a warning
    if risky(pattern):
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


_SHALLOW = (
    "type",
    "format",
    "enum",
    "const",
    "nullable",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
)


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
    if (
        not isinstance(out, dict)
        or not types
        or {"object", "array"} & set([types] if isinstance(types, str) else types)
    ):
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
            out["enum"] = [copy.deepcopy(v) for v in unique_values(value)]
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
    unique = unique_values(kept)
    if unique:
        out["enum"] = unique
    else:
        del out["enum"]


def _enum_key(value: Any) -> str:
    """Equal JSON values (JSON Schema's enum equality: 1 == 1.0, key order ignored, true != 1) share a key."""

    def canon(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, dict):
            return {str(k): canon(x) for k, x in v.items()}
        if isinstance(v, list):
            return [canon(x) for x in v]
        return v

    try:
        return json.dumps(canon(value), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON (a document read from YAML may hold anything)
        return f"\x00{type(value).__name__}:{value!r}"


def unique_values(values: list[Any]) -> list[Any]:
    """``values`` without repeats, first occurrence kept, in linear time (enums may hold 10,000s of members)."""
    seen: set[str] = set()
    out: list[Any] = []
    for v in values:
        key = _enum_key(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


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
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
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
    return validator(Draft202012Validator, json.loads(text))  # type: ignore[no-any-return]


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
                checker = _validator(json.dumps(schema, sort_keys=True))
            except (TypeError, ValueError):  # not JSON text (a non-string key, a cycle): not cached
                checker = validator(Draft202012Validator, schema)
            return next(iter(checker.iter_errors(value)), None) is None
    except Exception:  # unusable schema: treat the value as not validated
        return False


def conforms(schema: Any, value: Any) -> bool:
    """Whether a text ``value`` is of the ``format`` its schema names, where jsonschema knows that format
    (the date a document wrote as ``2025-10-15T13:51:00Z``); ``validates`` leaves formats unchecked."""
    fmt = schema.get("format") if isinstance(schema, Mapping) else None
    if not isinstance(fmt, str) or not isinstance(value, str):
        return True
    try:
        return bool(Draft202012Validator.FORMAT_CHECKER.conforms(value, fmt))
    except Exception:  # a checker that fails on odd input: not a reason to drop the example
        return True
