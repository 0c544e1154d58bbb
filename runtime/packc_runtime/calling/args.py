"""Check a verb's arguments against its args schema before anything is sent; coerce CLI strings."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from packc_runtime.errors import InvalidArgument, MissingArgument, PackRuntimeError, UnknownArgument
from packc_runtime.rules import escape_token
from packc_runtime.text.patterns import search, validator

__all__ = ["check_json_args", "coerce_cli_value", "schema_is_simple", "validate_args"]

MAX_DEPTH = 64  # nesting of one argument value; deeper input would exhaust the validators' recursion
# Python refuses to turn an int of more than 4,300 digits into text (sys.get_int_max_str_digits);
# 14,000 bits is about 4,214 digits, below that limit whatever it is set to by default.
_MAX_INT_BITS = 14_000

# Keywords the built-in checker handles exactly; a schema using anything else goes to jsonschema
# (imported only then: it costs a fifth of the CLI's cold start).
_SIMPLE = frozenset(
    {
        "type",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "items",
        "minItems",
        "maxItems",
        "format",
        "description",
        "examples",
        "example",
        "default",
        "title",
        "x-position",
        "nullable",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "uniqueItems",
    }
)
_SIMPLE_ROOT = frozenset({"type", "properties", "required", "additionalProperties", "description", "title"})
_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
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
        if schema.get("uniqueItems") is True and len({json.dumps(v, sort_keys=True) for v in value}) < len(
            value
        ):
            out.append("has non-unique items")
        for i, item in enumerate(value):
            out.extend(f"item {i}: {e}" for e in _simple_errors(schema.get("items", True), item))
    return out


def _same(a: Any, b: Any) -> bool:
    return (type(a) is type(b) and a == b) or (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonschema_errors(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[dict[str, str]]:
    """Per-argument errors from jsonschema over the whole args schema (so ``$ref``/``$defs`` work)."""
    import jsonschema  # lazily: only for schemas beyond the built-in subset
    from referencing.exceptions import Unresolvable

    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        errors = list(
            validator(cls, schema).iter_errors(dict(args))
        )  # a remote $ref is refused, never fetched
    except (
        jsonschema.exceptions.SchemaError,
        Unresolvable,
        jsonschema.exceptions.UnknownType,
        RecursionError,
    ) as exc:
        return [{"argument": "*", "message": f"the pack's args schema cannot be used ({type(exc).__name__})"}]
    out = []
    for error in errors:
        if error.path:
            out.append(
                {
                    "argument": str(error.path[0]),
                    "message": _explain(jsonschema.exceptions.best_match([error])),
                }
            )
        elif error.validator not in ("required", "additionalProperties", "unevaluatedProperties"):
            out.append({"argument": "*", "message": error.message})
    return out


def _explain(error: Any) -> str:
    """One error, at the field it is about: an ``anyOf``/``oneOf`` failure is explained by the
    branch that came closest (jsonschema's ``best_match``), and an unknown property is named."""
    inside = ".".join(str(p) for p in list(error.absolute_path)[1:])
    at = f" at {inside}" if inside else ""
    if error.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(
        error.instance, Mapping
    ):
        known = error.schema.get("properties") if isinstance(error.schema, Mapping) else None
        known = known if isinstance(known, Mapping) else {}
        unknown = sorted(str(k) for k in error.instance if k not in known)
        if unknown:
            listed = f" (known: {', '.join(sorted(map(str, known)))})" if known else ""
            return f"unknown field(s) {', '.join(map(repr, unknown))}{at}{listed}"
    return f"{error.message}{at}"


def schema_is_simple(schema: Mapping[str, Any] | None) -> bool:
    """Whether the built-in checker covers this args schema exactly (else jsonschema is used)."""
    schema = schema or {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    return set(schema) <= _SIMPLE_ROOT and all(_is_simple(p) for p in (properties or {}).values())


def _json_problem(value: Any) -> str | None:
    """Why ``value`` is not a JSON value the runtime can send (None when it is), without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        at = f" at {where if len(where) <= 60 else where[:57] + '...'}" if where else ""
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return f"the text{at} holds a lone surrogate, which no request can carry"
        elif isinstance(item, int):
            if item.bit_length() > _MAX_INT_BITS:
                return f"the integer{at} has more than 4,000 digits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"the number{at} is {item}: JSON cannot carry NaN or Infinity"
        elif isinstance(item, (list, tuple, Mapping)):
            if depth >= MAX_DEPTH:
                return f"the value nests deeper than {MAX_DEPTH} levels{at}"
            if isinstance(item, Mapping):
                for key, sub in item.items():
                    if not isinstance(key, str):
                        return f"the object{at} has a key that is not a string ({type(key).__name__})"
                    stack.append((sub, f"{where}/{escape_token(key)}", depth + 1))
            else:
                stack.extend((sub, f"{where}/{i}", depth + 1) for i, sub in enumerate(item))
        else:
            return f"the value{at} is a {type(item).__name__}, not a JSON value"
    return None


def check_json_args(verb: str, args: Any) -> Mapping[str, Any]:
    """Refuse arguments no JSON request can carry, before anything else looks at them.

    Names must be strings; values must be JSON: no NaN/Infinity, no integer past Python's text
    limit, no nesting deeper than :data:`MAX_DEPTH`, no lone surrogates, no other Python objects.

    Raises:
        InvalidArgument: naming the argument and where inside its value the problem is.
    """
    if not isinstance(args, Mapping):
        raise InvalidArgument(f"The arguments of {verb} must be a JSON object.")
    for name, value in args.items():
        if not isinstance(name, str):
            raise InvalidArgument(
                f"{verb}: argument names must be strings, not {type(name).__name__} ({_show_key(name)})."
            )
        problem = _json_problem(value)
        if problem is not None:
            raise InvalidArgument(
                f"{verb}: argument {_show_key(name)}: {problem}.",
                argument=name,
                invalid=[{"argument": name, "message": problem}],
            )
    return args


def _show_key(key: Any) -> str:
    try:
        text = repr(key)
    except Exception:  # a key whose repr fails or is too long for Python to print
        return "unprintable"
    return text if len(text) <= 40 else text[:37] + "..."


def validate_args(
    verb: str, schema: Mapping[str, Any] | None, args: Any, *, simple: bool | None = None
) -> dict[str, Any]:
    """Refuse unknown, missing and ill-typed arguments, naming each; returns the args unchanged.

    ``simple`` is :func:`schema_is_simple` of the schema, when the caller has it cached.

    Raises:
        UnknownArgument, MissingArgument, InvalidArgument: with ``unknown``, ``missing`` and
            ``invalid`` details listing every problem found (the class is the first kind found).
    """
    args = check_json_args(verb, args)
    schema = schema or {"type": "object", "properties": {}}
    properties: Mapping[str, Any] = (
        schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
    )
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
        parts.append(
            "unknown argument(s) "
            + ", ".join(unknown)
            + (f" (known: {', '.join(sorted(properties))})" if properties else " (it takes none)")
        )
    if missing:
        parts.append("missing required argument(s) " + ", ".join(missing))
    if invalid:
        parts.append("; ".join(f"{e['argument']}: {e['message']}" for e in invalid))
    cls: type[PackRuntimeError] = (
        UnknownArgument if unknown else MissingArgument if missing else InvalidArgument
    )
    raise cls(
        f"{verb}: " + "; ".join(parts) + ".",
        unknown=unknown or None,
        missing=missing or None,
        invalid=invalid or None,
    )


def _schema_types(schema: Mapping[str, Any]) -> list[str]:
    types = schema.get("type")
    if isinstance(types, list):
        return [str(t) for t in types]
    if isinstance(types, str):
        return [types]
    # allOf too: a document's `allOf: [{$ref: Destination}, {description: ...}]` is an object, and
    # its JSON text on a command line must be read as one (it was passed on as a string).
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list):
            return [t for sub in schema[key] if isinstance(sub, Mapping) for t in _schema_types(sub)]
    if isinstance(schema.get("enum"), list):  # `enum: [true, false, 0, 1]` and no type: Nexmo's booleans
        kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
        return list(dict.fromkeys(kinds[type(e)] for e in schema["enum"] if type(e) in kinds))
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
