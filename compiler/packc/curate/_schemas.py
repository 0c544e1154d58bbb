"""What an operation's schemas tell the ranking: the object it returns, its body's fields, the references."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from packc.curate._shape import same_noun, stem, words
from packc.model import Api, Operation
from packc_runtime.rules import unescape_token

__all__ = [
    "ID_WORDS",
    "body_fields",
    "main_schema",
    "names_noun",
    "operation_node",
    "required_nouns",
    "schema_refs",
]


def operation_node(api: Api, op: Operation, *, follow: bool = False) -> dict[str, Any] | None:
    """The operation's own object in the document, found by its model pointer (``#/paths/~1pets/get``);
    ``follow`` follows a ``$ref`` on the way (a path item given by reference).

    Read raw on purpose: the model reads an operation's request body and responses on first use and
    reports their warnings then, so planning, which looks at every operation, looks here instead of
    making the model read them all (compile reports the warnings of the operations it keeps).
    """
    # The pointer's tokens as RFC 6901 spells them: not percent-decoded, since a path key may hold
    # a "%" of its own (normalize escapes only "~" and "/").
    node: Any = api.document
    for raw in op.pointer.removeprefix("#/").split("/") if op.pointer.startswith("#/") else ():
        node = node.get(unescape_token(raw)) if isinstance(node, Mapping) else None
        node = api.deref(node) if follow else node
    return node if isinstance(node, dict) and node is not api.document else None


def main_schema(api: Api, op: Operation, memo: dict[str, str | None]) -> str | None:
    """The component schema an operation returns (or, failing that, takes): its main object."""
    node = operation_node(api, op)
    if node is None:
        return None
    bodies: list[Any] = []
    responses = node.get("responses")
    if isinstance(responses, dict):
        ok = [s for s in responses if str(s).startswith("2")]
        bodies += [responses[s] for s in (sorted(ok, key=str) if len(ok) > 1 else ok)]
    if isinstance(node.get("requestBody"), dict):
        bodies.append(node["requestBody"])
    for body in bodies:
        body = api.deref(body)
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict):
            continue
        for media in content.values():
            schema = media.get("schema") if isinstance(media, dict) else None
            name = _schema_name(api, schema, 0, memo)
            if name:
                return name
    return None


def body_fields(api: Api, op: Operation) -> int:
    """How many top-level fields the operation's request body has (a signature action takes many)."""
    node = operation_node(api, op)
    body = api.deref(node.get("requestBody")) if node is not None else None
    content = body.get("content") if isinstance(body, dict) else None
    most = 0
    if isinstance(content, dict):
        for media in content.values():
            schema = api.deref(media.get("schema")) if isinstance(media, dict) else None
            props = schema.get("properties") if isinstance(schema, dict) else None
            if isinstance(props, dict):
                most = max(most, len(props))
    return most


ID_WORDS = frozenset({"id", "ids", "sid", "gid", "uuid", "key", "slug"})


def required_nouns(api: Api, op: Operation) -> frozenset[tuple[str, ...]]:
    """The nouns an operation's required body fields name: ``server_type`` → (server, type)."""
    node = operation_node(api, op)
    body = api.deref(node.get("requestBody")) if node is not None else None
    content = body.get("content") if isinstance(body, dict) else None
    out: set[tuple[str, ...]] = set()
    for media in content.values() if isinstance(content, dict) else ():
        schema = api.deref(media.get("schema")) if isinstance(media, dict) else None
        required = schema.get("required") if isinstance(schema, dict) else None
        for name in required if isinstance(required, list) else ():
            ws = [w for w in words(str(name)) if w not in ID_WORDS]
            if 1 <= len(ws) <= 2:
                out.add(tuple(stem(w) for w in ws))
        break
    return frozenset(out)


def _schema_name(api: Api, schema: Any, depth: int, memo: dict[str, str | None]) -> str | None:
    if not isinstance(schema, dict) or depth > 2:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        if ref not in memo:  # many operations return the same schema
            target = api.deref(schema)
            inner = _schema_name(api, target, depth + 1, memo) if _is_wrapper(target) else None
            memo[ref] = inner or ref.rsplit("/", 1)[1]
        return memo[ref]
    if isinstance(schema.get("items"), dict):
        return _schema_name(api, schema["items"], depth + 1, memo)
    for key in ("anyOf", "oneOf", "allOf"):  # Stripe's customer | deleted_customer: the first named one
        parts = schema.get(key)
        if isinstance(parts, list):
            for part in parts:
                name = _schema_name(api, part, depth + 1, memo)
                if name:
                    return name
    if _is_wrapper(schema):
        for prop in schema["properties"].values():
            name = _schema_name(api, prop, depth + 1, memo)
            if name:
                return name
    return None


def _is_wrapper(schema: Any) -> bool:
    """A list envelope: an object whose only object-valued property is one array (``{data: [...], has_more}``)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    arrays = [p for p in schema["properties"].values() if isinstance(p, dict) and p.get("type") == "array"]
    return len(arrays) == 1 and len(schema["properties"]) <= 6


def schema_refs(api: Api) -> Counter[str]:
    """How many component schemas reference each one (directly, in properties, items or compositions)."""
    components = api.document.get("components")
    schemas = components.get("schemas") if isinstance(components, Mapping) else None
    counts: Counter[str] = Counter()
    if not isinstance(schemas, Mapping):
        return counts
    for name, schema in schemas.items():
        found: set[str] = set()
        _refs(schema, found, 0)
        found.discard(name)
        counts.update(found)
    return counts


def _refs(node: Any, out: set[str], depth: int) -> None:
    if depth > 3 or not isinstance(node, Mapping):
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref.startswith("#/components/schemas/"):
            out.add(ref.rsplit("/", 1)[1])
        return
    for key in ("items", "additionalProperties"):
        _refs(node.get(key), out, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        parts = node.get(key)
        if isinstance(parts, list):
            for part in parts:
                _refs(part, out, depth + 1)
    props = node.get("properties")
    if isinstance(props, Mapping):
        for prop in props.values():
            _refs(prop, out, depth + 1)


def names_noun(schema: str, noun: tuple[str, ...]) -> bool:
    """Whether a schema's name names the resource's noun (``issue-comment`` for comments, ``customer``)."""
    return bool(noun) and any(same_noun(stem(w), noun[-1]) for w in words(schema))
