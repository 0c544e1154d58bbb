"""Example arguments for a conformance call: each argument's first example, or a plain value its schema accepts."""

from __future__ import annotations

from typing import Any


def synthesize(schema: Any, depth: int = 0) -> Any:
    """A plain value that the schema accepts, for a required arg that has no example."""
    if not isinstance(schema, dict) or depth > 6:
        return "x"
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("oneOf", "anyOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return synthesize(schema[key][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = (
            max(1, int(low) + (1 if "exclusiveMinimum" in schema else 0))
            if isinstance(low, int | float)
            else 1
        )
        return value if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    if kind == "array":
        return [synthesize(schema.get("items"), depth + 1)] if schema.get("minItems", 0) else []
    if kind == "object":
        props: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        return {
            k: synthesize(props.get(k), depth + 1) for k in schema.get("required", []) if isinstance(k, str)
        }
    formats = {
        "date": "2024-01-02",
        "date-time": "2024-01-02T03:04:05Z",
        "email": "user@example.org",
        "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "uri": "https://example.org/x",
        "url": "https://example.org/x",
    }
    text = formats.get(str(schema.get("format")), "x")
    return text * max(1, int(schema.get("minLength", 1))) if text == "x" else text


def is_file(schema: Any) -> bool:
    """An argument the runtime reads from a file path (binary content; Swagger 2.0's ``type: file``)."""
    return isinstance(schema, dict) and (
        schema.get("format") in ("binary", "file")
        or "contentMediaType" in schema
        or "contentEncoding" in schema
    )


def example_args(schema: Any, upload: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """Each arg's first example; required args without one get a synthesized value (named in the 2nd item).

    With ``upload`` (a small file the run provides; only for verbs whose body is not JSON, where the
    runtime reads binary values from files), file arguments get its path.
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return {}, []
    required = set(schema.get("required") or [])
    args: dict[str, Any] = {}
    synthesized: list[str] = []
    for name, prop in schema["properties"].items():
        examples: Any = prop.get("examples") if isinstance(prop, dict) else None
        if upload and is_file(prop):
            args[name] = upload
        elif upload and isinstance(prop, dict) and prop.get("type") == "array" and is_file(prop.get("items")):
            args[name] = [upload]
        elif isinstance(examples, list) and examples:
            args[name] = examples[0]
        elif name in required:
            args[name] = synthesize(prop)
            synthesized.append(name)
    return args, synthesized
