"""Check a verb's arguments against its args schema before anything is sent; coerce CLI strings."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from .errors import InvalidArgument, MissingArgument, PackRuntimeError, UnknownArgument
from .patterns import safe_validator, search

__all__ = ["coerce_cli_value", "schema_is_simple", "validate_args"]

# Keywords the built-in checker handles exactly; a schema using anything else goes to jsonschema
# (imported only then: it costs a fifth of the CLI's cold start).
_SIMPLE = frozenset({
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
    "maxLength", "pattern", "items", "minItems", "maxItems", "format", "description", "examples",
    "example", "default", "title", "x-position", "nullable", "deprecated", "readOnly", "writeOnly",
    "contentMediaType", "contentEncoding", "uniqueItems",
})
_SIMPLE_ROOT = frozenset({"type", "properties", "required", "additionalProperties", "description", "title"})
_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def _is_simple(schema: Any) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or not set(schema) <= _SIMPLE:
        return False
    if "pattern" in schema:
        try:
            re.compile(str(schema["pattern"]))
        except re.error:
            return False
    return "items" not in schema or _is_simple(schema["items"])


def _simple_errors(schema: Any, value: Any) -> list[str]:
    if schema is True or schema == {}:
        return []
    if schema is False:
        return ["no value is allowed"]
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if schema.get("nullable") is True:
            names = [*names, "null"]
        if not any(_TYPES.get(str(t), lambda v: False)(value) for t in names):
            return [f"{_show(value)} is not of type {' or '.join(repr(t) for t in names)}"]
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        return [f"{_show(value)} is not one of {json.dumps(schema['enum'])[:200]}"]
    if "const" in schema and not _same(value, schema["const"]):
        return [f"{_show(value)} is not {json.dumps(schema['const'])[:100]}"]
    out = []
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{value} is less than the minimum of {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{value} is greater than the maximum of {schema['maximum']}")
        emin, emax = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if isinstance(emin, (int, float)) and not isinstance(emin, bool) and value <= emin:
            out.append(f"{value} is not greater than {emin}")
        if isinstance(emax, (int, float)) and not isinstance(emax, bool) and value >= emax:
            out.append(f"{value} is not less than {emax}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{_show(value)} is shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{_show(value)} is longer than {schema['maxLength']} characters")
        if "pattern" in schema and search(str(schema["pattern"]), value) is False:  # None: risky, not run
            out.append(f"{_show(value)} does not match {schema['pattern']!r}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"has fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"has more than {schema['maxItems']} items")
        if schema.get("uniqueItems") is True and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
            out.append("has non-unique items")
        for i, item in enumerate(value):
            out.extend(f"item {i}: {e}" for e in _simple_errors(schema.get("items", True), item))
    return out


def _same(a: Any, b: Any) -> bool:
    return (type(a) is type(b) and a == b) or (
        isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
        and not isinstance(b, bool) and a == b)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonschema_errors(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[dict[str, str]]:
    """Per-argument errors from jsonschema over the whole args schema (so ``$ref``/``$defs`` work)."""
    import jsonschema  # lazily: only for schemas beyond the built-in subset

    try:
        cls = safe_validator(jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator))
        errors = list(cls(schema).iter_errors(dict(args)))
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.RefResolutionError,
            jsonschema.exceptions.UnknownType, RecursionError) as exc:
        return [{"argument": "*", "message": f"the pack's args schema cannot be used ({type(exc).__name__})"}]
    out = []
    for error in errors:
        if error.path:
            out.append({"argument": str(error.path[0]), "message": error.message})
        elif error.validator not in ("required", "additionalProperties", "unevaluatedProperties"):
            out.append({"argument": "*", "message": error.message})
    return out


def schema_is_simple(schema: Mapping[str, Any] | None) -> bool:
    """Whether the built-in checker covers this args schema exactly (else jsonschema is used)."""
    schema = schema or {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    return set(schema) <= _SIMPLE_ROOT and all(_is_simple(p) for p in (properties or {}).values())


def validate_args(verb: str, schema: Mapping[str, Any] | None, args: Any, *, simple: bool | None = None) -> dict[str, Any]:
    """Refuse unknown, missing and ill-typed arguments, naming each; returns the args unchanged.

    ``simple`` is :func:`schema_is_simple` of the schema, when the caller has it cached.

    Raises:
        UnknownArgument, MissingArgument, InvalidArgument: with ``unknown``, ``missing`` and
            ``invalid`` details listing every problem found (the class is the first kind found).
    """
    if not isinstance(args, Mapping):
        raise InvalidArgument(f"The arguments of {verb} must be a JSON object.")
    schema = schema or {"type": "object", "properties": {}}
    properties: Mapping[str, Any] = schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
    required = [r for r in schema.get("required", []) if isinstance(r, str)]
    unknown = sorted(k for k in args if k not in properties)
    missing = [r for r in required if r not in args or args[r] is None]
    known = {k: v for k, v in args.items() if k in properties and v is not None}
    invalid: list[dict[str, str]] = []
    if simple if simple is not None else schema_is_simple(schema):
        for name, value in known.items():
            invalid.extend({"argument": name, "message": e} for e in _simple_errors(properties[name], value))
    else:
        invalid = _jsonschema_errors(schema, known)
    if not (unknown or missing or invalid):
        return dict(args)
    parts = []
    if unknown:
        parts.append("unknown argument(s) " + ", ".join(unknown) + (
            f" (known: {', '.join(sorted(properties))})" if properties else " (it takes none)"))
    if missing:
        parts.append("missing required argument(s) " + ", ".join(missing))
    if invalid:
        parts.append("; ".join(f"{e['argument']}: {e['message']}" for e in invalid))
    cls: type[PackRuntimeError] = UnknownArgument if unknown else MissingArgument if missing else InvalidArgument
    raise cls(f"{verb}: " + "; ".join(parts) + ".", unknown=unknown or None, missing=missing or None,
              invalid=invalid or None)


def _schema_types(schema: Mapping[str, Any]) -> list[str]:
    types = schema.get("type")
    if isinstance(types, list):
        return [str(t) for t in types]
    if isinstance(types, str):
        return [types]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return [t for sub in schema[key] if isinstance(sub, Mapping) for t in _schema_types(sub)]
    return []


def coerce_cli_value(name: str, schema: Mapping[str, Any], values: list[str]) -> Any:
    """Turn command-line strings into the type the arg's schema asks for.

    Integers, numbers and booleans are parsed; arrays come from repeated flags or one JSON array;
    objects from JSON. A value that does not parse is passed on as a string, so validation names it.
    """
    types = _schema_types(schema)
    if "array" in types:
        if len(values) == 1 and values[0].lstrip().startswith("["):
            try:
                parsed = json.loads(values[0])
                if isinstance(parsed, list):
                    return parsed
            except ValueError:
                pass
        items: Mapping[str, Any] = schema["items"] if isinstance(schema.get("items"), Mapping) else {}
        return [coerce_cli_value(name, items, [v]) for v in values]
    value = values[-1]
    for kind in types:
        if kind == "integer" and re.fullmatch(r"[-+]?\d+", value.strip()):
            return int(value)
        if kind == "number":
            try:
                number = float(value)
                if math.isfinite(number):
                    return int(number) if re.fullmatch(r"[-+]?\d+", value.strip()) else number
            except ValueError:
                pass
        if kind == "boolean" and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if kind == "object":
            try:
                parsed = json.loads(value)
                if isinstance(parsed, dict):
                    return parsed
            except ValueError:
                pass
        if kind == "null" and value in ("", "null"):
            return None
    return value
