"""``binding.mode: mock``: a verb's answer from the document itself, with nothing sent.

A person can try any pack, and an agent rehearse, without an account: the answer is the success
response's own example (``example``, the first of ``examples``), else a value built from its
schema (each schema's ``example``, ``default``, ``const`` or first ``enum`` value, else one value of
its type). Arguments are checked and writes are confirmed first, exactly as for a real call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from packc_runtime.calling.openapi.operations import Operation, resolve
from packc_runtime.errors import InvalidPack

__all__ = ["mock_answer"]

_MAX_DEPTH = 8  # nesting of a built value; a recursive schema stops here
_MAX_PROPERTIES = 50  # properties of one built object
_JSON_TYPES = ("application/json", "text/json")
# One value per string format a reader recognises; anything else is "string".
_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
    "byte": "",
    "binary": "",
}


def _resolved(document: Mapping[str, Any], node: Any) -> Any:
    try:
        return resolve(document, node)
    except InvalidPack:
        return None


def _success(responses: Mapping[str, Any]) -> tuple[int, Any]:
    """The status and response object a mock answers with: the first 2xx, else ``default`` (200)."""
    codes = sorted(str(code) for code in responses)
    for code in codes:
        if code.startswith("2") and code.isdigit():
            return int(code), responses[code]
    for code in codes:
        if code.upper() == "2XX":
            return 200, responses[code]
    return 200, responses.get("default")


def _media(content: Any) -> Mapping[str, Any] | None:
    """The JSON media of a response's content (``+json`` too), else its first one."""
    if not isinstance(content, Mapping) or not content:
        return None
    for name, media in content.items():
        kind = str(name).split(";")[0].strip().lower()
        if kind in _JSON_TYPES or kind.endswith("+json"):
            return media if isinstance(media, Mapping) else None
    first = next(iter(content.values()))
    return first if isinstance(first, Mapping) else None


def _example(document: Mapping[str, Any], media: Mapping[str, Any]) -> tuple[bool, Any]:
    if "example" in media:
        return True, media["example"]
    examples = media.get("examples")
    if isinstance(examples, Mapping):
        for entry in examples.values():
            entry = _resolved(document, entry)
            if isinstance(entry, Mapping) and "value" in entry:
                return True, entry["value"]
    return False, None


def schema_value(document: Mapping[str, Any], schema: Any, depth: int = 0) -> Any:
    """One value that fits ``schema``: its own example or default when it has one, else built."""
    schema = _resolved(document, schema)
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return None
    for key in ("example", "default", "const"):
        if key in schema:
            return schema[key]
    for key in ("examples", "enum"):
        listed = schema.get(key)
        if isinstance(listed, list) and listed:
            return listed[0]
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return schema_value(document, options[0], depth + 1)
    parts = schema.get("allOf")
    if isinstance(parts, list) and parts:
        merged: dict[str, Any] = {}
        for part in parts:
            value = schema_value(document, part, depth + 1)
            if isinstance(value, Mapping):
                merged.update(value)
        if merged or "properties" not in schema:
            return merged or schema_value(document, parts[0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "object":
        properties = schema.get("properties")
        out: dict[str, Any] = {}
        if isinstance(properties, Mapping):
            for name, sub in list(properties.items())[:_MAX_PROPERTIES]:
                out[str(name)] = schema_value(document, sub, depth + 1)
        return out
    if kind == "array":
        return [schema_value(document, schema.get("items"), depth + 1)] if depth < _MAX_DEPTH else []
    if kind == "string":
        return _FORMATS.get(str(schema.get("format", "")), "string")
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        value = low if isinstance(low, (int, float)) and not isinstance(low, bool) else 0
        above = schema.get("exclusiveMinimum")
        if above is True:  # OpenAPI 3.0: a flag on minimum
            value += 1
        elif isinstance(above, (int, float)) and not isinstance(above, bool):  # 3.1: the bound itself
            value = max(value, above + 1)
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    return None


def mock_answer(document: Mapping[str, Any], op: Operation) -> tuple[int, Any]:
    """The status and body a mock call of ``op`` answers with, from the document alone."""
    operation = _resolved(document, {"$ref": op.pointer})
    responses = operation.get("responses") if isinstance(operation, Mapping) else None
    if not isinstance(responses, Mapping) or not responses:
        return 200, None
    status, response = _success(responses)
    response = _resolved(document, response)
    if not isinstance(response, Mapping):
        return status, None
    media = _media(response.get("content"))
    if media is None:
        return status, None
    found, value = _example(document, media)
    return status, value if found else schema_value(document, media.get("schema"))
