"""Check a schema against the JSON Schema 2020-12 meta-schema, each distinct subschema once.

``Draft202012Validator.check_schema`` costs ~1 ms per call and ~0.1 ms per schema node, and lint
checks every verb's ``args``. The verbs of one API share most of their argument schemas (Microsoft
Graph: 71,672 argument properties, 14,068 distinct subschemas), so a schema is checked in pieces:

- The meta-schema checks the value of each keyword in ``_ONE``, ``_LIST`` and ``_MAP`` as a schema
  of its own (a ``$dynamicRef`` to the meta-schema itself), so a schema is valid exactly when its
  own keywords are valid with those subschemas set to ``true`` and each subschema is valid.
- Keywords the meta-schema constrains only by type (``description`` a string, ``enum`` an array,
  ``default`` anything, ...) keep their validity, not their value, in the piece that is checked.
- Results are kept by the piece's JSON text for the life of the process (bounded).

``tests/lint/internals/test_lint.py`` checks on random schemas that this agrees with one whole check.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from packc_runtime.rules import SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, SCHEMA_ONE_KEYWORDS, subschemas

__all__ = ["meta_schema_problem"]

# The 2020-12 meta-schema does not know additionalItems (draft 7's): its value is kept as written,
# no schema to check.
_NOT_ONE = frozenset({"additionalItems"})
_ONE = SCHEMA_ONE_KEYWORDS - _NOT_ONE
_LIST = SCHEMA_LIST_KEYWORDS  # non-empty arrays of schemas
# patternProperties is an object of schemas whose names must be regexes: its names are kept.
_MAP = SCHEMA_MAP_KEYWORDS - {"patternProperties"}  # objects of schemas, any names
_STRINGS = ("title", "description", "$comment")  # {"type": "string"}
_ARRAYS = ("examples", "enum")  # {"type": "array", "items": true}
_ANY = ("default", "const")  # true

_CACHE: dict[str, tuple[str, str]] = {}
_CACHE_CHARS = [0]
_CACHE_MAX_CHARS = 64 * 2**20


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    # What Draft202012Validator.check_schema builds on every call, built once.
    return Draft202012Validator(
        Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def _is_schema(value: Any) -> bool:
    return isinstance(value, Mapping | bool)


def _pieces(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Mapping[str, Any]]]]:
    """``schema``'s own keywords with subschemas set to true (and values only their type matters
    for reduced), and the object subschemas with their pointers."""
    own: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ONE and _is_schema(value):
            own[key] = True
        elif key in _LIST and isinstance(value, list):
            others = [v for v in value if not _is_schema(v)]
            own[key] = [*others, True] if len(others) < len(value) else others
        elif key in _MAP and isinstance(value, Mapping):
            own[key] = {k: v for k, v in value.items() if not _is_schema(v)}
        elif key == "patternProperties" and isinstance(value, Mapping):
            own[key] = {k: True if _is_schema(v) else v for k, v in value.items()}
        elif (key in _STRINGS and isinstance(value, str)) or (key in _ARRAYS and isinstance(value, list)):
            own[key] = value[:0]
        elif key not in _ANY:
            own[key] = value
    # A boolean subschema is always valid; an items array (draft 4's) already fails ``own``.
    subs = [
        (w, s)
        for w, s in subschemas(schema)
        if isinstance(s, Mapping) and w.partition("/")[0] not in _NOT_ONE
    ]
    return own, subs


def _remember(key: str, problem: tuple[str, str]) -> tuple[str, str]:
    if _CACHE_CHARS[0] > _CACHE_MAX_CHARS:
        _CACHE.clear()
        _CACHE_CHARS[0] = 0
    _CACHE[key] = problem
    _CACHE_CHARS[0] += len(key)
    return problem


def _key(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON (a pack read from JSON never gets here): not cached
        return ""


def _own_problem(own: Any) -> str:
    """The first meta-schema error of a schema piece whose subschemas are all ``true``."""
    key = _key(own)
    if key and "own " + key in _CACHE:
        return _CACHE["own " + key][1]
    try:
        error = next(iter(_validator().iter_errors(own)), None)
        message = error.message if error is not None else ""
    except Exception as exc:  # a schema that breaks the validator itself is still invalid
        message = type(exc).__name__
    if key:
        _remember("own " + key, ("", message))
    return message


def meta_schema_problem(schema: Any) -> tuple[str, str]:
    """Where in ``schema`` (a JSON pointer) its first meta-schema error is, and the error's message;
    ``("", "")`` when ``schema`` is a valid JSON Schema 2020-12 schema."""
    key = _key(schema)
    if key and key in _CACHE:
        return _CACHE[key]
    own, subs = _pieces(schema) if isinstance(schema, Mapping) else (schema, [])
    problem = ("", _own_problem(own))
    for where, sub in subs:
        if problem[1]:
            break
        inner, message = meta_schema_problem(sub)
        problem = (f"/{where}{inner}", message) if message else problem
    return _remember(key, problem) if key else problem
