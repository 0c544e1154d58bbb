"""What a GET answers with, read from its response schema: an array, a list in an envelope, one object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from packc.curate._schemas import operation_node
from packc.model import Api, Operation
from packc.text import snake

__all__ = ["response_shape"]


def response_shape(api: Api | None, op: Operation, cache: dict[str, str] | None = None) -> str:
    """What a GET answers with in its first 2xx JSON response: ``array``, ``list`` (an object that
    wraps a list), ``object`` (one object) or ``''`` (nothing said). Read from the operation's node
    (``_schemas.operation_node``), so planning makes the model read no operation's parts."""
    if api is None or op.method != "get" or op.path.rstrip("/").endswith("}"):
        return ""
    node = operation_node(api, op, follow=True)
    responses = api.deref(node.get("responses")) if node is not None else None
    if not isinstance(responses, Mapping):
        return ""
    for status in sorted(str(s) for s in responses):
        if not status.startswith("2"):
            continue
        response = api.deref(responses.get(status) if status in responses else responses.get(int(status)))
        content = api.deref(response.get("content")) if isinstance(response, Mapping) else None
        if not isinstance(content, Mapping):
            continue
        media = next((api.deref(v) for k, v in content.items() if "json" in str(k)), None)
        raw = media.get("schema") if isinstance(media, Mapping) else None
        ref = raw.get("$ref") if isinstance(raw, Mapping) and isinstance(raw.get("$ref"), str) else None
        if cache is not None and ref in cache:
            return cache[ref]
        shape = _shape(api, api.deref(raw))
        if cache is not None and ref:
            cache[ref] = shape  # a shared response schema (Graph: 11,000 operations, few schemas) once
        return shape
    return ""


_LISTY = {
    "data",
    "items",
    "results",
    "records",
    "entries",
    "values",
    "list",
    "elements",
    "objects",
    "nodes",
    "edges",
    "content",
    "rows",
    "hits",
    "resources",
    "collection",
}
_PAGING = {
    "has_more",
    "next",
    "next_page",
    "next_cursor",
    "cursor",
    "total_count",
    "total",
    "count",
    "page",
    "per_page",
    "offset",
    "limit",
    "links",
    "next_page_token",
    "page_token",
    "pagination",
    "paging",
    "meta",
}


def _shape(api: Api, schema: Any, depth: int = 0) -> str:
    if not isinstance(schema, Mapping) or depth > 3:
        return ""
    if schema.get("type") == "array" or "items" in schema:
        return "array"
    alternatives = [
        api.deref(s)
        for key in ("oneOf", "anyOf")
        for s in schema.get(key) or []
        if isinstance(schema.get(key), list)
    ]
    if alternatives and not schema.get("properties"):
        shapes = {_shape(api, alt, depth + 1) for alt in alternatives}
        return shapes.pop() if len(shapes) == 1 else ""
    props: dict[str, Any] = {}
    for part in [
        schema,
        *[api.deref(p) for p in schema.get("allOf", []) if isinstance(schema.get("allOf"), list)],
    ]:
        if isinstance(part, Mapping) and isinstance(part.get("properties"), Mapping):
            props.update(part["properties"])
    if not props or schema.get("type") not in (None, "object"):
        return ""
    arrays = [
        str(k)
        for k, v in props.items()
        if isinstance(api.deref(v), Mapping)
        and (api.deref(v).get("type") == "array" or "items" in api.deref(v))
    ]
    # A list inside (Stripe's {"data": [...]}, GitHub's {"total_count", "secrets": [...]}).
    if arrays and (
        len(props) <= 2 or {snake(a) for a in arrays} & _LISTY or {snake(str(k)) for k in props} & _PAGING
    ):
        return "list"
    return "object"
